/**
 * CDK context for the tests that read a synthesized template and nothing else: no bundling (the
 * bundles are built and tested on their own, test/support/bundle-cache.ts) and no creation stack
 * trace for every construct (as cdk.json sets for `cdk synth`; docs/decisions.md).
 */
export const TEMPLATE_ONLY_CONTEXT = {
  'aws:cdk:bundling-stacks': [],
  'aws:cdk:disable-creation-stack-traces': true,
};
