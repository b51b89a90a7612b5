/**
 * The record a webhook event reports, as the change that produces it leaves it: the article read
 * (consistent) just before the change's transaction, with the change's own update applied in
 * memory (update-in-memory.ts). The transaction's conditions (state, lease, publication state)
 * hold for the item read, so the body is that transaction's result, never a later state.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Article } from '../../core/articles/article';
import type { EventRecord } from '../../core/webhooks/ports';
import type { Website } from '../../core/websites/website';
import { articleFromItem } from './article-item';
import { applyUpdate, type UpdateInput } from './update-in-memory';

/** The article as `update` leaves it. */
export function articleAfter(article: Article, update: UpdateInput): Article {
  return articleFromItem(applyUpdate(article as unknown as Record<string, unknown>, update));
}

/** The website as `update` leaves it. */
export function websiteAfter(website: Website, update: UpdateInput): Website {
  return applyUpdate(website as unknown as Record<string, unknown>, update) as unknown as Website;
}

/** The article at `key`, read now, as `update` leaves it; undefined when there is none. */
export async function readArticleAfter(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: Record<string, unknown>,
  update: UpdateInput,
): Promise<Article | undefined> {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
  );
  return Item ? articleAfter(articleFromItem(Item), update) : undefined;
}

/** For `updateWithEvent`: the record of an article event, the article at `key` as the update leaves it. */
export function articleRecordAfter(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: Record<string, unknown>,
) {
  return async (update: UpdateInput): Promise<EventRecord | undefined> => {
    const article = await readArticleAfter(client, tableName, key, update);
    return article && { kind: 'article', article };
  };
}
