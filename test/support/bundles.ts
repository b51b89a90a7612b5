/**
 * Functions as Lambda runs them: bundled by esbuild with the stack's settings (their lazy modules
 * and the files they read beside the bundle) and invoked in a fresh `node` process, composed at init.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { type FunctionDefinition, functionNamed } from '../../functions/routes';
import { BASE_ENVIRONMENT, repositoryRoot } from '../../lib/constructs/inkpress-function';
import { lazyModulesRequiredBy } from '../../lib/constructs/lazy-modules';
import { functionEnvironment } from '../../lib/constructs/service-functions';
import { buildLazyModule, functionBundle } from './bundle-cache';

const run = promisify(execFile);

/**
 * Builds each function's bundle once into `outDir`, as the stack does (its main bundle from
 * bundle-cache.ts), with its lazy modules (the same); returns its `index.js`.
 */
export function bundleBuilder(outDir: () => string) {
  const bundles = new Map<string, Promise<string>>();
  const buildOne = async (functionName: string) => {
    const bundleDir = path.join(outDir(), functionName);
    const outfile = path.join(bundleDir, 'index.js');
    const definition = functionNamed(functionName);
    mkdirSync(bundleDir, { recursive: true });
    writeFileSync(outfile, (await functionBundle(definition)).source);
    for (const name of lazyModulesRequiredBy(readFileSync(outfile, 'utf8'))) {
      await buildLazyModule(name, bundleDir);
    }
    // The files it reads at run time, under their own name (the stack's afterBundling hook).
    for (const file of definition.bundledFiles ?? []) {
      copyFileSync(path.join(repositoryRoot, file), path.join(bundleDir, path.basename(file)));
    }
    return outfile;
  };
  return (functionName: string): Promise<string> => {
    const existing = bundles.get(functionName) ?? buildOne(functionName);
    bundles.set(functionName, existing);
    return existing;
  };
}

const INVOKE = `
const bundle = require(process.argv[1]);
const event = JSON.parse(process.argv[2]);
bundle.handler(event, { awsRequestId: 'bundled-test', getRemainingTimeInMillis: () => 10000 })
  .then((result) => process.stdout.write('RESULT ' + JSON.stringify(result)));
`;

/** Invokes the bundle `file` with `event` in a fresh process with exactly `environment`. */
export async function invokeBundle<Result>(
  file: string,
  functionName: string,
  event: unknown,
  environment: NodeJS.ProcessEnv,
): Promise<{ result: Result; output: string }> {
  const { stdout, stderr } = await run(process.execPath, ['-e', INVOKE, file, JSON.stringify(event)], {
    env: {
      ...environment,
      AWS_LAMBDA_FUNCTION_NAME: `Inkpress-${functionName}`,
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
  });
  const [logs = '', result = ''] = stdout.split('RESULT ');
  return { result: JSON.parse(result) as Result, output: logs + stderr };
}

/**
 * The environment the stack gives a function, with placeholders for its resources (never called:
 * for cold starts, where the function composes at init what it does in Lambda).
 */
export function stackEnvironment(definition: FunctionDefinition): Record<string, string> {
  return {
    ...BASE_ENVIRONMENT,
    ...functionEnvironment(definition.access, {
      tableName: (name) => `bench-${name}`,
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/generation',
      webhookQueueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/webhooks',
      sitePasswordKeyId: '00000000-0000-0000-0000-000000000000',
      modelSecretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench',
      imageBucketName: 'bench-images',
    }),
    AWS_LAMBDA_FUNCTION_NAME: `Inkpress-${definition.name}`,
  };
}
