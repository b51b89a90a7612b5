import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { errorBodies } from '../../functions/api/http/responses';

/** CDK context key that drops the web ACL (`cdk deploy -c waf=false`); on by default. */
export const WAF_CONTEXT_KEY = 'waf';

/**
 * Requests one client address may make in `windowSeconds` before the web ACL answers it 429
 * until its rate falls below: 300 a minute (5 per second), a tenth of what the stage lets
 * through per route (THROTTLING), so no single address can use a route up for everyone.
 */
export const RATE_PER_ADDRESS = { limit: 300, windowSeconds: 60 } as const;

export interface ApiFirewallProps {
  stage: apigateway.Stage;
}

/**
 * An AWS WAF web ACL on the API stage with one rule: a rate limit per client address, counted
 * before API Gateway's throttle and the authorizer, so a client sending junk (invalid tokens
 * included) is stopped by its own address instead of taking the stage's shared limits.
 */
export class ApiFirewall extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiFirewallProps) {
    super(scope, id);
    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      description: 'Inkpress: requests per client address on the API stage',
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      customResponseBodies: {
        tooManyRequests: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify(errorBodies.tooManyRequests),
        },
      },
      rules: [
        {
          name: 'RatePerAddress',
          priority: 0,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: RATE_PER_ADDRESS.limit,
              evaluationWindowSec: RATE_PER_ADDRESS.windowSeconds,
            },
          },
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'tooManyRequests',
                responseHeaders: [
                  { name: 'Retry-After', value: String(RATE_PER_ADDRESS.windowSeconds) },
                  { name: 'Cache-Control', value: 'no-store' },
                ],
              },
            },
          },
          visibilityConfig: {
            cloudWatchMetricsEnabled: true,
            metricName: 'InkpressRatePerAddress',
            sampledRequestsEnabled: true,
          },
        },
      ],
      visibilityConfig: {
        cloudWatchMetricsEnabled: true,
        metricName: 'InkpressWebAcl',
        sampledRequestsEnabled: true,
      },
    });
    const association = new wafv2.CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
    association.node.addDependency(props.stage);
  }
}

/** Whether the context keeps the web ACL: anything but `false` (`-c waf=false`, or `"waf": false`). */
export function wafEnabled(scope: Construct): boolean {
  return String(scope.node.tryGetContext(WAF_CONTEXT_KEY)) !== 'false';
}
