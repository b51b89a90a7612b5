/** Test double of an API handler for the local API server: answers with the event it got. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

export async function handler(event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> {
  if (event.queryStringParameters?.crash === '1') throw new Error('echo handler crashed on purpose');
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json', 'X-Echo': 'yes' },
    multiValueHeaders: { 'Set-Cookie': ['a=1', 'b=2'] },
    body: JSON.stringify({
      event,
      functionName: context.functionName,
      remainingMs: context.getRemainingTimeInMillis(),
    }),
  };
}
