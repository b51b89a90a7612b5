/**
 * Usage per account and UTC day (UsageDays, written by the generation's completing transaction)
 * and generations started per day (DailyUsage, written by the reservation).
 */
import { type DynamoDBDocumentClient, GetCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { UsageDay, UsageStore } from '../../core/usage';

/** Per-website counters are top-level attributes of the day item (ADD creates them at no extra cost). */
export const usageKeys = {
  website: (websiteUuid: string) => ({
    articles: `website#${websiteUuid}#articles`,
    credits: `website#${websiteUuid}#credits`,
  }),
};
const WEBSITE_ATTRIBUTE = /^website#(.+)#(articles|credits)$/;

export interface UsageTables {
  usageDays: string;
  dailyUsage: string;
}

export class DynamoUsageRepository implements UsageStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: Partial<UsageTables>,
  ) {}

  async listDays(accountId: string, from: string, to: string): Promise<UsageDay[]> {
    const days: UsageDay[] = [];
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.table('usageDays'),
        KeyConditionExpression: 'accountId = :accountId AND #day BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#day': 'day' },
        ExpressionAttributeValues: { ':accountId': accountId, ':from': from, ':to': to },
      },
    );
    for await (const page of pages) for (const item of page.Items ?? []) days.push(fromItem(item));
    return days;
  }

  async startedOn(accountId: string, day: string): Promise<number> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.table('dailyUsage'),
        Key: { accountId, day },
        ProjectionExpression: 'generations',
      }),
    );
    return Number(Item?.generations ?? 0);
  }

  private table(name: keyof UsageTables): string {
    const tableName = this.tables[name];
    if (!tableName) throw new Error(`No ${name} table configured`);
    return tableName;
  }
}

function fromItem(item: Record<string, unknown>): UsageDay {
  const websites = new Map<string, { websiteUuid: string; articlesGenerated: number; creditsUsed: number }>();
  for (const [name, value] of Object.entries(item)) {
    const match = WEBSITE_ATTRIBUTE.exec(name);
    if (!match?.[1]) continue;
    const websiteUuid = match[1];
    const entry = websites.get(websiteUuid) ?? { websiteUuid, articlesGenerated: 0, creditsUsed: 0 };
    if (match[2] === 'articles') entry.articlesGenerated = Number(value);
    else entry.creditsUsed = Number(value);
    websites.set(websiteUuid, entry);
  }
  return {
    day: String(item.day),
    articlesGenerated: Number(item.articlesGenerated ?? 0),
    creditsUsed: Number(item.creditsUsed ?? 0),
    websites: [...websites.values()].sort((a, b) => a.websiteUuid.localeCompare(b.websiteUuid)),
  };
}
