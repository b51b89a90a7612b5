/**
 * What each function's bundle contains, built by esbuild with the stack's settings: every
 * entry of the route table bundles, only the generation worker carries the language-model
 * client (docs/design.md: API handlers must not bundle it) and zod's full API, and each function
 * bundles the AWS SDK clients its route-table `access` declares and no other.
 */
import * as path from 'node:path';
import { build } from 'esbuild';
import {
  allFunctions,
  authorizer,
  type FunctionDefinition,
  generationWorker,
  routes,
  sweeper,
  webhookDispatcher,
} from '../../functions/routes';
import { FUNCTION_BUILD_OPTIONS, repositoryRoot } from '../../lib/constructs/inkpress-function';

/** The files (under node_modules for packages) that end up in a function's bundle. */
async function bundledFiles(definition: FunctionDefinition): Promise<string[]> {
  const result = await build({
    ...FUNCTION_BUILD_OPTIONS,
    entryPoints: [path.join(repositoryRoot, definition.entry)],
    write: false,
    metafile: true,
    outfile: 'index.js',
    logLevel: 'silent',
  });
  return Object.values(result.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
}

/** The npm packages that end up in a function's bundle. */
async function bundledPackages(definition: FunctionDefinition): Promise<Set<string>> {
  const packages = new Set<string>();
  for (const input of await bundledFiles(definition)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match?.[1]) packages.add(match[1]);
  }
  return packages;
}

describe('function bundles', () => {
  it.each(
    [...routes, authorizer, sweeper, webhookDispatcher].map(
      (definition) => [definition.name, definition] as const,
    ),
  )('%s bundles without the openai client', async (_name, definition) => {
    const packages = await bundledPackages(definition);
    expect(packages.has('openai')).toBe(false);
  });

  it.each(
    [...routes, authorizer, sweeper, webhookDispatcher].map(
      (definition) => [definition.name, definition] as const,
    ),
  )('%s bundles neither zod-openapi nor zod beyond zod/mini', async (_name, definition) => {
    const files = await bundledFiles(definition);
    // zod/mini is zod's core plus thin functions; the full API (classic) brings every locale.
    expect(
      files.filter((file) => /node_modules\/(zod-openapi\/|zod\/v4\/(classic|locales)\/)/.test(file)),
    ).toEqual([]);
  });

  it('the generation worker bundles the openai client', async () => {
    const packages = await bundledPackages(generationWorker);
    expect(packages.has('openai')).toBe(true);
  });

  it.each(allFunctions.map((definition) => [definition.name, definition] as const))(
    '%s bundles the SDK clients its access declares and no other',
    async (_name, definition) => {
      const { access } = definition;
      const isRoute = routes.some((route) => route.name === definition.name);
      const expected = [
        // Every route takes its rate-limit token from DynamoDB (public routes import the wrapper too).
        ...(isRoute || Object.keys(access.tables).length > 0 ? ['@aws-sdk/client-dynamodb'] : []),
        ...(access.sitePasswordKey ? ['@aws-sdk/client-kms'] : []),
        ...(access.readsModelSecret ? ['@aws-sdk/client-secrets-manager'] : []),
        ...(access.sendsToQueue ||
        access.consumesQueue ||
        access.sendsToWebhookQueue ||
        access.consumesWebhookQueue
          ? ['@aws-sdk/client-sqs']
          : []),
      ];
      const clients = [...(await bundledPackages(definition))].filter((name) =>
        name.startsWith('@aws-sdk/client-'),
      );
      expect(clients.sort()).toEqual(expected.sort());
    },
  );
});
