/** Records the DynamoDB calls made while `run` executes, and how many items they read. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MiddlewareStack } from '@smithy/types';

export interface ReadLog {
  commands: string[];
  itemsRead: number;
}

export async function withReadLog<T>(
  client: DynamoDBDocumentClient,
  run: () => Promise<T>,
): Promise<{ result: T; log: ReadLog }> {
  const log: ReadLog = { commands: [], itemsRead: 0 };
  const stack = client.middlewareStack as MiddlewareStack<object, object>;
  stack.add(
    (next, context) => async (args) => {
      const output = await next(args);
      const body = output.output as { ScannedCount?: number; Item?: unknown };
      log.commands.push(String(context.commandName));
      log.itemsRead += body.ScannedCount ?? (body.Item ? 1 : 0);
      return output;
    },
    { step: 'initialize', name: 'readLog' },
  );
  try {
    return { result: await run(), log };
  } finally {
    stack.remove('readLog');
  }
}
