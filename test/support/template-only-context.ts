import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';

/**
 * CDK context for the tests that read a synthesized template and nothing else: no bundling (the
 * bundles are built and tested on their own, test/support/bundle-cache.ts) and no creation stack
 * trace for every construct (as cdk.json sets for `cdk synth`; docs/decisions.md).
 */
export const TEMPLATE_ONLY_CONTEXT = {
  'aws:cdk:bundling-stacks': [],
  'aws:cdk:disable-creation-stack-traces': true,
};

const outdirs: string[] = [];
// An App without an outdir writes its cloud assembly to a new `cdk.outXXXX` folder of the
// system's temporary folder and leaves it there: 13 of them after every `npm test`.
afterAll(() => {
  for (const outdir of outdirs.splice(0)) rmSync(outdir, { recursive: true, force: true });
});

/**
 * An App for reading templates, its cloud assembly in a temporary folder removed after the test
 * file. Without CDK's built-in CloudFormation validation (~10 s of CPU per test file, only ever
 * warns): `npm run synth` (`.ci/run`'s synth step) runs it.
 */
export function templateOnlyApp(context: Record<string, unknown> = {}): App {
  const outdir = mkdtempSync(path.join(tmpdir(), 'inkpress-template-'));
  outdirs.push(outdir);
  return new App({
    outdir,
    context: { ...context, ...TEMPLATE_ONLY_CONTEXT },
    builtinCloudFormationValidation: false,
  });
}
