/**
 * The site index in DynamoDB: partition `websiteUuid`; sort key `post#<site post id>` for each
 * indexed post and `state` for where the index stands (core/websites/site-index.ts).
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SiteIndexStore } from '../../core/websites/ports';
import type { IndexedPost, IndexedPostRecord, SiteIndexState } from '../../core/websites/site-index';
import { batchWrite } from './batches';
import { queryAll } from './reads';

type Item = Record<string, unknown>;

const STATE_KEY = 'state';
const POST_PREFIX = 'post#';
const WRITE_FAILURE = 'The site index could not be written (throttled)';

const postKey = (postId: string) => `${POST_PREFIX}${postId}`;

export class DynamoSiteIndexRepository implements SiteIndexStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getState(websiteUuid: string): Promise<SiteIndexState | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { websiteUuid, entryKey: STATE_KEY },
        ConsistentRead: true,
      }),
    );
    if (!Item) return undefined;
    const { entryKey: _key, ...state } = Item;
    return state as unknown as SiteIndexState;
  }

  async putState(state: SiteIndexState): Promise<void> {
    await this.client.send(
      new PutCommand({ TableName: this.tableName, Item: { ...state, entryKey: STATE_KEY } }),
    );
  }

  async upsert(websiteUuid: string, posts: IndexedPost[], seenAt: string): Promise<void> {
    // One page of the site may list a post twice (it was modified while we paged): one put each.
    const unique = new Map(posts.map((post) => [post.postId, post]));
    await batchWrite(
      this.client,
      this.tableName,
      [...unique.values()].map((post) => ({ PutRequest: { Item: toItem(websiteUuid, post, seenAt) } })),
      WRITE_FAILURE,
    );
  }

  async add(websiteUuid: string, post: IndexedPost, seenAt: string): Promise<boolean> {
    const { Attributes } = await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: toItem(websiteUuid, post, seenAt),
        ReturnValues: 'ALL_OLD',
      }),
    );
    return Attributes === undefined;
  }

  async remove(websiteUuid: string, postIds: string[]): Promise<void> {
    await batchWrite(
      this.client,
      this.tableName,
      [...new Set(postIds)].map((postId) => ({
        DeleteRequest: { Key: { websiteUuid, entryKey: postKey(postId) } },
      })),
      WRITE_FAILURE,
    );
  }

  async list(websiteUuid: string): Promise<IndexedPostRecord[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'websiteUuid = :websiteUuid AND begins_with(entryKey, :post)',
      ExpressionAttributeValues: { ':websiteUuid': websiteUuid, ':post': POST_PREFIX },
    });
    return items.map(fromItem);
  }

  async removeAll(websiteUuid: string): Promise<void> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'websiteUuid = :websiteUuid',
      ExpressionAttributeValues: { ':websiteUuid': websiteUuid },
      ProjectionExpression: 'entryKey',
    });
    await batchWrite(
      this.client,
      this.tableName,
      items.map((item) => ({ DeleteRequest: { Key: { websiteUuid, entryKey: String(item.entryKey) } } })),
      WRITE_FAILURE,
    );
  }
}

function toItem(websiteUuid: string, post: IndexedPost, seenAt: string): Item {
  return {
    websiteUuid,
    entryKey: postKey(post.postId),
    postId: post.postId,
    url: post.url,
    title: post.title,
    excerpt: post.excerpt,
    focusKeyword: post.focusKeyword,
    categories: post.categories,
    modifiedAt: post.modifiedAt,
    noindex: post.noindex,
    seenAt,
  };
}

function fromItem(item: Item): IndexedPostRecord {
  return {
    postId: String(item.postId),
    url: String(item.url),
    title: String(item.title ?? ''),
    excerpt: String(item.excerpt ?? ''),
    focusKeyword: String(item.focusKeyword ?? ''),
    categories: Array.isArray(item.categories) ? item.categories.map(String) : [],
    modifiedAt: String(item.modifiedAt ?? ''),
    noindex: item.noindex === true,
    seenAt: String(item.seenAt ?? ''),
  };
}
