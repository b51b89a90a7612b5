/**
 * Website profiles in the websites table: one item per website (`profile#<uuid>`) in the
 * account's partition, beside the website item, so only the account reads it and deleting the
 * website deletes it (website-repository.ts). It carries none of the index attributes.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SiteProfileStore } from '../../core/websites/ports';
import type { SiteProfile } from '../../core/websites/site-profile';
import { websiteKeys } from './keys';
import { conditionFailed, transactWithRetry } from './transactions';

export class DynamoSiteProfileRepository implements SiteProfileStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(accountId: string, websiteUuid: string): Promise<SiteProfile | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: websiteKeys.profile(accountId, websiteUuid) }),
    );
    if (!Item) return undefined;
    return {
      accountId,
      websiteUuid,
      voice: String(Item.voice ?? ''),
      audience: String(Item.audience ?? ''),
      facts: String(Item.facts ?? ''),
      bannedPhrases: Array.isArray(Item.bannedPhrases) ? Item.bannedPhrases.map(String) : [],
      // Kept as JSON text: raw values of any shape, their key order and types as given.
      defaults: typeof Item.defaults === 'string' ? JSON.parse(Item.defaults) : {},
      updatedAt: String(Item.updatedAt ?? ''),
    };
  }

  /** The put and a check that the website is there, in one transaction (a delete cannot orphan it). */
  put(profile: SiteProfile): Promise<boolean> {
    return transactWithRetry<boolean>(
      this.client,
      async () => ({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: this.tableName,
              Key: websiteKeys.website(profile.accountId, profile.websiteUuid),
              ConditionExpression: 'attribute_exists(websiteKey)',
            },
          },
          {
            Put: {
              TableName: this.tableName,
              Item: {
                ...websiteKeys.profile(profile.accountId, profile.websiteUuid),
                websiteUuid: profile.websiteUuid,
                voice: profile.voice,
                audience: profile.audience,
                facts: profile.facts,
                bannedPhrases: profile.bannedPhrases,
                defaults: JSON.stringify(profile.defaults),
                updatedAt: profile.updatedAt,
              },
            },
          },
        ],
      }),
      true,
      // The website was deleted: nothing stored.
      (codes) => (conditionFailed(codes, 0) ? { result: false } : undefined),
    );
  }
}
