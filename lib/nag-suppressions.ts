/**
 * The cdk-nag AwsSolutions findings this stack accepts, each on the narrowest construct and
 * with the reason it is accepted (cdk-nag 3: `Validations.of(scope).acknowledge`).
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { ApiFirewall } from './constructs/api-firewall';
import type { ImageBucket } from './constructs/image-bucket';
import type { InkpressApi } from './constructs/inkpress-api';
import type { ServiceFunctions } from './constructs/service-functions';

export interface AcknowledgedParts {
  api: InkpressApi;
  functions: ServiceFunctions;
  modelSecret: secretsmanager.ISecret;
  /** The web ACL on the stage; undefined when the operator dropped it (`-c waf=false`). */
  firewall: ApiFirewall | undefined;
  images: ImageBucket;
}

export function acknowledgeNagFindings({
  api,
  functions,
  modelSecret,
  firewall,
  images,
}: AcknowledgedParts): void {
  Validations.of(images.bucket).acknowledge({
    id: 'AwsSolutions-S1',
    reason:
      'The image bucket is private and reached only by the service functions through their IAM roles (presigned links included); its objects are article illustrations, not customer secrets. Object-level auditing, where wanted, is CloudTrail data events, not server access logs.',
  });
  const bucketId = Stack.of(images.bucket).getLogicalId(images.bucket.node.defaultChild as s3.CfnBucket);
  for (const fn of functions.all) {
    if (!fn.definition.access.imageBucket || !fn.role) continue;
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/articles/*]`,
      reason:
        'Image objects are named per article at run time (articles/<account>/<article>/<slot>); the grant covers that prefix of the one image bucket and only the object actions the route table declares for the function.',
    });
  }
  for (const fn of functions.all) {
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 (LTS) is the runtime the service is built and tested for (docs/design.md); moving to a newer runtime is a deliberate upgrade, not a stack default.',
    });
  }

  Validations.of(modelSecret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'The secret holds a third-party (OpenAI) API key that only the provider can issue; the operator rotates it at the provider and updates the secret value, so there is no rotation Lambda to schedule.',
  });

  Validations.of(api.restApi).acknowledge({
    id: 'AwsSolutions-APIG2',
    reason:
      'Requests are validated in each handler with a zod schema (422 with per-field messages); API Gateway models cannot validate the multipart/form-data bodies the API accepts.',
  });
  Validations.of(api.restApi).acknowledge({
    id: 'AwsSolutions-COG4',
    reason:
      'Clients authenticate with Inkpress API bearer tokens checked by a Lambda TOKEN authorizer; there is no Cognito user pool.',
  });
  if (!firewall) {
    Validations.of(api.restApi.deploymentStage).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'The operator dropped the web ACL (-c waf=false): every route needs a valid bearer token and the stage is throttled per route; docs/security.md says what one client address can then do.',
    });
  }
  const cloudWatchRole = api.restApi.node.tryFindChild('CloudWatchRole');
  if (cloudWatchRole) {
    Validations.of(cloudWatchRole).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The account-level role API Gateway uses to write execution logs; AmazonAPIGatewayPushToCloudWatchLogs is the AWS-documented policy for exactly that role.',
    });
  }
  for (const method of api.publicMethods) {
    for (const id of ['AwsSolutions-APIG4', 'AwsSolutions-COG4']) {
      Validations.of(method).acknowledge({
        id,
        reason:
          'Public on purpose: the OpenAPI document and the API reference page describe the API and carry no account data; every other route needs a bearer token.',
      });
    }
  }
  for (const method of api.methodNotAllowedMethods) {
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Mock method that only answers 405 Method Not Allowed with a fixed JSON body; it reaches no backend and no data.',
    });
  }
}
