import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Website } from '../../core/websites/website';
import { websiteKeys } from './keys';

/** Websites in DynamoDB (read side for articles; the websites API extends this module). */
export class DynamoWebsiteRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(accountId: string, websiteUuid: string): Promise<Website | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: websiteKeys.website(accountId, websiteUuid) }),
    );
    return Item as Website | undefined;
  }
}
