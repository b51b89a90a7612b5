/**
 * Reading articles: one article, the generated list (page N is one Query on the dense
 * `generatedSeq`, whatever N) and the queue listing.
 */
import { type DynamoDBDocumentClient, GetCommand, paginateQuery, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Article } from '../../core/articles/article';
import type { ArticlePage, ArticleReads } from '../../core/articles/ports';
import { articleFromItem, type Item } from './article-item';
import { readArticle } from './article-refund';
import { countQuery } from './reads';
import { ARTICLE_INDEX } from './table-definitions';

export interface ReadTables {
  articles: string;
  /** The account's `generatedCount`: the length of its generated list. */
  accounts: string;
}

export class DynamoArticleReads implements ArticleReads {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: ReadTables,
  ) {}

  get(accountId: string, articleUuid: string): Promise<Article | undefined> {
    return readArticle(this.client, this.tables.articles, { accountId, articleUuid });
  }

  async listGenerated(accountId: string, page: number, perPage: number): Promise<ArticlePage> {
    const { Item: account } = await this.client.send(
      new GetCommand({
        TableName: this.tables.accounts,
        Key: { accountId },
        ProjectionExpression: 'generatedCount',
      }),
    );
    const total = Number(account?.generatedCount ?? 0);
    const highestSeq = total - (page - 1) * perPage;
    if (highestSeq < 1) return { items: [], total };
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tables.articles,
        IndexName: ARTICLE_INDEX.generated,
        KeyConditionExpression: 'accountId = :accountId AND generatedSeq <= :highest',
        ExpressionAttributeValues: { ':accountId': accountId, ':highest': highestSeq },
        ScanIndexForward: false,
        Limit: perPage,
      }),
    );
    return { items: (Items ?? []).map(articleFromItem), total };
  }

  async listQueued(accountId: string, page: number, perPage: number): Promise<ArticlePage> {
    const wanted = page * perPage;
    const query = {
      TableName: this.tables.articles,
      IndexName: ARTICLE_INDEX.queue,
      KeyConditionExpression: 'accountId = :accountId',
      ExpressionAttributeValues: { ':accountId': accountId },
      ScanIndexForward: false,
    };
    const items: Item[] = [];
    let lastKey: Item | undefined;
    for await (const result of paginateQuery({ client: this.client, pageSize: wanted }, query)) {
      items.push(...(result.Items ?? []));
      lastKey = result.LastEvaluatedKey;
      if (items.length >= wanted) break;
    }
    const pageItems = items.slice((page - 1) * perPage, wanted).map(articleFromItem);
    // Past the wanted items the queue still has to be counted, so every page has the same meta.
    const total = lastKey
      ? items.length + (await countQuery(this.client, { ...query, ExclusiveStartKey: lastKey }))
      : items.length;
    return { items: pageItems, total };
  }
}
