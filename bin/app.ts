#!/usr/bin/env node
/** CDK app entry: the Inkpress stack, checked by cdk-nag's AwsSolutions rules at synth. */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { InkpressStack } from '../lib/inkpress-stack';

const app = new App();
new InkpressStack(app, 'Inkpress', {
  description: 'Inkpress: SEO article generation and WordPress publishing API',
});
// cdk-nag 3 is a policy-validation plugin (it replaced the v2 aspect): any finding that is not
// acknowledged fails synthesis.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
