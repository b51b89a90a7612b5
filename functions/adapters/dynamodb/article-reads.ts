/**
 * Reading articles: one article, the generated list (page N is one Query on the dense
 * `generatedSeq`, whatever N) and the queue listing (the same cost at any page, through the
 * queue counters).
 */
import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Article } from '../../core/articles/article';
import type { ArticlePage, ArticleReads } from '../../core/articles/ports';
import { articleFromItem } from './article-item';
import { readArticle } from './article-refund';
import { locateQueueOffset, numberedEntriesUpTo } from './queue-positions';
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

  /** Two small reads find where page N starts (see queue-positions.ts), then one Query reads it. */
  async listQueued(accountId: string, page: number, perPage: number): Promise<ArticlePage> {
    const { total, start } = await locateQueueOffset(
      this.client,
      this.tables.articles,
      accountId,
      (page - 1) * perPage,
    );
    if (!start) return { items: [], total };
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tables.articles,
        ...numberedEntriesUpTo(accountId, start.highestKey),
        Limit: start.skip + perPage,
      }),
    );
    return { items: (Items ?? []).slice(start.skip).map(articleFromItem), total };
  }
}
