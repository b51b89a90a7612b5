/** The Lambda `Context` handed to handlers run locally. */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './local-config';

export function lambdaContext(
  functionName: string,
  timeoutSeconds: number,
  requestId = randomUUID(),
): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const localName = `inkpress-local-${functionName}`;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: localName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${localName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${localName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
