/**
 * Ending an article with a refund (a final generation failure, a cancel): the article's move and
 * the credits it holds going back to the account, in one transaction, exactly once.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Article } from '../../core/articles/article';
import { refundOf } from '../../core/articles/article-rules';
import type { ArticleKey } from '../../core/articles/ports';
import { articleFromItem, articleKey } from './article-item';
import type { ConditionalUpdate } from './conditional-update';
import { type CancellationVerdict, conditionFailed, transactWithRetry } from './transactions';

type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

export interface RefundTables {
  articles: string;
  accounts: string;
}

/** Reads one article (consistent). */
export async function readArticle(
  client: DynamoDBDocumentClient,
  tableName: string,
  ref: ArticleKey,
): Promise<Article | undefined> {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: articleKey(ref), ConsistentRead: true }),
  );
  return Item ? articleFromItem(Item) : undefined;
}

/**
 * `change` sees the current article and answers its update, or nothing when the article may
 * not move (then false). The update's condition must include `creditsCharged = :refund`, so the
 * refund is what the article held when it moved; a failed condition ends with `onConflict`.
 * `alongside` adds unconditional writes to the same transaction (the queue counters, an event);
 * it sees the article read and the article's update as sent.
 */
export async function endWithRefund(
  client: DynamoDBDocumentClient,
  tables: RefundTables,
  ref: ArticleKey,
  change: (current: Article) => Omit<ConditionalUpdate, 'ExpressionAttributeNames'> | undefined,
  onConflict: CancellationVerdict<boolean>,
  alongside: (
    current: Article,
    update: ConditionalUpdate,
  ) => TransactItems | Promise<TransactItems> = () => [],
): Promise<boolean> {
  return transactWithRetry<boolean>(
    client,
    async () => {
      const current = await readArticle(client, tables.articles, ref);
      const move = current ? change(current) : undefined;
      if (!current || !move) return { result: false };
      const refund = refundOf(current);
      const update: ConditionalUpdate = {
        ...move,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ...move.ExpressionAttributeValues, ':refund': refund },
      };
      const input: TransactWriteCommandInput = {
        TransactItems: [
          { Update: { TableName: tables.articles, Key: articleKey(ref), ...update } },
          ...(refund > 0
            ? [
                {
                  Update: {
                    TableName: tables.accounts,
                    Key: { accountId: ref.accountId },
                    UpdateExpression: 'ADD credits :refund',
                    ExpressionAttributeValues: { ':refund': refund },
                  },
                },
              ]
            : []),
          ...(await alongside(current, update)),
        ],
      };
      return input;
    },
    true,
    (codes) => (conditionFailed(codes, 0) ? onConflict : undefined),
  );
}
