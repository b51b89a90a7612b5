/**
 * Websites in DynamoDB. One table, partition `accountId`: the website item (`site#<uuid>`)
 * and a URL guard item (`url#<identity>`) written in one transaction, so one account cannot
 * register the same site twice even with concurrent requests. Only website items carry
 * `listSortKey`, which feeds the sparse newest-first `byCreation` index, and `checkShard`,
 * which with `checkedAt` feeds the sparse `dueForCheck` index of the health check.
 */
import { createHash } from 'node:crypto';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  paginateScan,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  DuplicateWebsiteUrlError,
  type WebsiteHealth,
  type WebsitePage,
  type WebsiteStore,
  type WebsiteWrite,
} from '../../core/websites/ports';
import { siteUrlIdentity } from '../../core/websites/site-url';
import { healthEvent, type Website } from '../../core/websites/website';
import { batchGet } from './batches';
import { updateWithEvent } from './conditional-update';
import type { EventOutbox } from './event-outbox';
import { websiteKeys } from './keys';
import { countQuery, queryFirst } from './reads';
import { WEBSITE_INDEX } from './table-definitions';
import { backoff, conditionFailed, MAX_TRANSACTION_ATTEMPTS, transactWithRetry } from './transactions';

type Item = Record<string, unknown>;

const WEBSITE_PREFIX = 'site#';

/**
 * Partition values of the `dueForCheck` index. Every check rewrites `checkedAt`, so the index
 * takes one write per check; spread over this many keys, no key gets near DynamoDB's
 * per-partition limits however many websites there are, and a sweep reads one page per key.
 */
export const CHECK_SHARDS = 8;

/** The `dueForCheck` partition of a website: fixed by its uuid. */
export function checkShardOf(websiteUuid: string): string {
  return String(createHash('sha256').update(websiteUuid).digest().readUInt32BE(0) % CHECK_SHARDS);
}

export class DynamoWebsiteRepository implements WebsiteStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** With it, health changes store their webhook events (event-outbox.ts). */
    private readonly events?: EventOutbox,
  ) {}

  async get(accountId: string, websiteUuid: string): Promise<Website | undefined> {
    const item = await this.rawItem(accountId, websiteUuid);
    return item ? fromItem(item) : undefined;
  }

  async getMany(accountId: string, websiteUuids: string[]): Promise<Website[]> {
    const keys = [...new Set(websiteUuids)].map((uuid) => websiteKeys.website(accountId, uuid));
    return (await batchGet(this.client, this.tableName, keys)).map(fromItem);
  }

  async isUrlRegistered(accountId: string, urlIdentity: string): Promise<boolean> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: websiteKeys.urlGuard(accountId, urlIdentity),
        ConsistentRead: true,
      }),
    );
    return Item !== undefined;
  }

  async create(website: Website, urlIdentity: string): Promise<void> {
    const guardKey = websiteKeys.urlGuard(website.accountId, urlIdentity);
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: toItem(website, guardKey.websiteKey),
                ConditionExpression: 'attribute_not_exists(websiteKey)',
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: { ...guardKey, websiteUuid: website.websiteUuid, createdAt: website.createdAt },
                ConditionExpression: 'attribute_not_exists(websiteKey)',
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (conditionFailed(error, 1)) throw new DuplicateWebsiteUrlError(website.url);
      throw error;
    }
  }

  /**
   * Newest first. The page starts after the key of the last website of the earlier pages (only
   * their keys travel), then one page is read: O(total) read units, fine for the few websites an
   * account has. The total comes from a count of the whole partition.
   */
  async list(accountId: string, page: number, perPage: number): Promise<WebsitePage> {
    const base: QueryCommandInput = {
      TableName: this.tableName,
      IndexName: WEBSITE_INDEX.byCreation,
      KeyConditionExpression: 'accountId = :accountId',
      ExpressionAttributeValues: { ':accountId': accountId },
      ScanIndexForward: false,
    };
    const total = await countQuery(this.client, base);
    const skip = (page - 1) * perPage;
    if (skip >= total) return { items: [], total };
    let start: Item | undefined;
    if (skip > 0) {
      // The index key of a website: the key an index query continues after.
      const skipped = await queryFirst(
        this.client,
        { ...base, ProjectionExpression: 'accountId, websiteKey, listSortKey' },
        skip,
      );
      start = skipped[skip - 1];
      if (!start) return { items: [], total };
    }
    const items = await queryFirst(this.client, { ...base, ExclusiveStartKey: start }, perPage);
    return { items: items.map(fromItem), total };
  }

  async delete(accountId: string, websiteUuid: string): Promise<Website | undefined> {
    const item = await this.rawItem(accountId, websiteUuid);
    if (!item) return undefined;
    const website = fromItem(item);
    const guardSortKey =
      typeof item.urlGuardKey === 'string'
        ? item.urlGuardKey
        : websiteKeys.urlGuard(accountId, siteUrlIdentity(website.url)).websiteKey;
    return transactWithRetry<Website | undefined>(
      this.client,
      async () => ({
        TransactItems: [
          {
            Delete: {
              TableName: this.tableName,
              Key: websiteKeys.website(accountId, websiteUuid),
              ConditionExpression: 'attribute_exists(websiteKey)',
            },
          },
          {
            Delete: {
              TableName: this.tableName,
              Key: { accountId, websiteKey: guardSortKey },
              // Only the guard of this website (a guard is never shared, but be exact).
              ConditionExpression: 'attribute_not_exists(websiteKey) OR websiteUuid = :websiteUuid',
              ExpressionAttributeValues: { ':websiteUuid': websiteUuid },
            },
          },
          // Its profile goes with it (if it has one).
          { Delete: { TableName: this.tableName, Key: websiteKeys.profile(accountId, websiteUuid) } },
        ],
      }),
      website,
      // Deleted by a concurrent request; write conflicts with one are tried again.
      (codes) => (conditionFailed(codes, 0) ? { result: undefined } : undefined),
    );
  }

  async updateCredentials(
    accountId: string,
    websiteUuid: string,
    credentials: { login: string; passwordCiphertext: string; passwordContextVersion: number },
    health: WebsiteHealth,
  ): Promise<WebsiteWrite | undefined> {
    return this.setExisting(accountId, websiteUuid, { ...health, ...credentials });
  }

  async replacePasswordCiphertext(
    accountId: string,
    websiteUuid: string,
    replacement: { passwordCiphertext: string; passwordContextVersion: number },
    previousCiphertext: string,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: websiteKeys.website(accountId, websiteUuid),
          UpdateExpression: 'SET passwordCiphertext = :ciphertext, passwordContextVersion = :version',
          ConditionExpression: 'passwordCiphertext = :previous',
          ExpressionAttributeValues: {
            ':ciphertext': replacement.passwordCiphertext,
            ':version': replacement.passwordContextVersion,
            ':previous': previousCiphertext,
          },
        }),
      );
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  }

  async recordHealth(
    accountId: string,
    websiteUuid: string,
    health: WebsiteHealth,
  ): Promise<WebsiteWrite | undefined> {
    return this.setExisting(accountId, websiteUuid, { ...health });
  }

  /**
   * Sets these attributes on the website item; undefined when it does not exist (or nothing to
   * set). With events, a write that would change the health goes through `setExistingWithEvent`.
   */
  private async setExisting(
    accountId: string,
    websiteUuid: string,
    fields: Item,
  ): Promise<WebsiteWrite | undefined> {
    const written = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    if (Object.keys(written).length === 0) return undefined;
    if (!this.events) return orUndefined(await this.updateReturningOld(accountId, websiteUuid, written, []));
    // Most writes leave the flags as the website has them (a publication or a check of a healthy
    // site), and only a change of flags is an event: one write, on that condition, no event.
    const flagsUnchanged = HEALTH_FLAGS.flatMap((flag) =>
      typeof written[flag] === 'boolean' ? [flagIs(flag, written[flag])] : [],
    );
    const write = await this.updateReturningOld(accountId, websiteUuid, written, flagsUnchanged);
    if (write !== 'condition_failed') return write;
    return this.setExistingWithEvent(accountId, websiteUuid, written, this.events);
  }

  /**
   * One UpdateItem of these attributes on the website item, under `conditions` on the written
   * flags (`flagIs`; besides its existence); the item as it was comes back with it, so the website after it is exactly that
   * item with these values: two concurrent writes each see the state the other left.
   */
  private async updateReturningOld(
    accountId: string,
    websiteUuid: string,
    written: Item,
    conditions: string[],
  ): Promise<WebsiteWrite | undefined | 'condition_failed'> {
    const update = setUpdate(websiteUuid, written);
    // The conditions are on written flags, whose names the SET already holds.
    if (conditions.length > 0) update.ExpressionAttributeValues[':flagSet'] = true;
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: websiteKeys.website(accountId, websiteUuid),
          ...update,
          ConditionExpression: ['attribute_exists(websiteKey)', ...conditions].join(' AND '),
          ReturnValues: 'ALL_OLD',
        }),
      );
      if (!Attributes) return undefined;
      return { before: fromItem(Attributes), after: fromItem({ ...Attributes, ...written }) };
    } catch (error) {
      if (!conditionFailed(error)) throw error;
      // Deleted, or (with `conditions`) one of them failed: the caller reads it and decides.
      return conditions.length > 0 ? 'condition_failed' : undefined;
    }
  }

  /**
   * `setExisting` of a write that may change the health, when health changes store their webhook
   * event: the website is read, and the write (with the event its flags' change reports, in one
   * transaction) holds only while the flags are still as read; otherwise it is read and decided
   * again.
   */
  private async setExistingWithEvent(
    accountId: string,
    websiteUuid: string,
    written: Item,
    events: EventOutbox,
  ): Promise<WebsiteWrite | undefined> {
    for (let attempt = 0; ; attempt++) {
      const item = await this.rawItem(accountId, websiteUuid);
      if (!item) return undefined;
      const write = { before: fromItem(item), after: fromItem({ ...item, ...written }) };
      const type = healthEvent(write.before, write.after);
      const event = type && (await events.stage(accountId, type, { kind: 'website', uuid: websiteUuid }));
      const done = await updateWithEvent(
        this.client,
        this.tableName,
        websiteKeys.website(accountId, websiteUuid),
        {
          ...withFlagNames(setUpdate(websiteUuid, written)),
          ConditionExpression: `attribute_exists(websiteKey) AND ${flagsAre(write.before)}`,
        },
        event || undefined,
        // The website as read with these values: the write holds only while its flags are as read.
        async () => ({ kind: 'website', website: write.after }),
      );
      if (done) return write;
      if (attempt + 1 >= MAX_TRANSACTION_ATTEMPTS)
        throw new Error('The website changed under every attempt to write it.');
      await backoff(attempt);
    }
  }

  /**
   * The websites checked longest ago, before `checkedBefore`: one query per shard of the
   * `dueForCheck` index (oldest first, at most `limit` each), merged. Never reads a whole table.
   */
  async listDueForCheck(checkedBefore: string, limit: number): Promise<Website[]> {
    const shards = Array.from({ length: CHECK_SHARDS }, (_, shard) => String(shard));
    const pages = await Promise.all(
      shards.map(async (shard) => {
        const { Items } = await this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: WEBSITE_INDEX.dueForCheck,
            KeyConditionExpression: 'checkShard = :shard AND checkedAt < :before',
            ExpressionAttributeValues: { ':shard': shard, ':before': checkedBefore },
            Limit: limit,
          }),
        );
        return (Items ?? []).map(fromItem);
      }),
    );
    return pages
      .flat()
      .sort((a, b) => (a.checkedAt ?? '').localeCompare(b.checkedAt ?? ''))
      .slice(0, limit);
  }

  private async rawItem(accountId: string, websiteUuid: string): Promise<Item | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: websiteKeys.website(accountId, websiteUuid),
        ConsistentRead: true,
      }),
    );
    return Item;
  }
}

function toItem(website: Website, urlGuardKey: string): Item {
  return {
    ...websiteKeys.website(website.accountId, website.websiteUuid),
    ...website,
    listSortKey: websiteKeys.listSortKey(website.createdAt, website.websiteUuid),
    checkedAt: website.checkedAt ?? website.createdAt,
    checkShard: checkShardOf(website.websiteUuid),
    urlGuardKey,
  };
}

/**
 * One-off migration for data written before the `dueForCheck` index: gives every website item
 * that lacks them a `checkShard` and a `checkedAt` (its creation time when it was never
 * checked, so it is due). Scans the table once; run by whoever holds table-wide rights (the
 * local provisioning, the admin CLI), never by a scheduled function. Returns how many it moved.
 */
export async function backfillCheckIndex(client: DynamoDBDocumentClient, tableName: string): Promise<number> {
  let moved = 0;
  const pages = paginateScan(
    { client },
    {
      TableName: tableName,
      FilterExpression: 'begins_with(websiteKey, :site) AND attribute_not_exists(checkShard)',
      ExpressionAttributeValues: { ':site': WEBSITE_PREFIX },
      ProjectionExpression: 'accountId, websiteKey, websiteUuid, checkedAt, createdAt',
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const checkedAt = typeof item.checkedAt === 'string' ? item.checkedAt : String(item.createdAt);
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { accountId: item.accountId, websiteKey: item.websiteKey },
            UpdateExpression: 'SET checkShard = :shard, checkedAt = if_not_exists(checkedAt, :checkedAt)',
            ConditionExpression: 'attribute_exists(websiteKey)',
            ExpressionAttributeValues: {
              ':shard': checkShardOf(String(item.websiteUuid)),
              ':checkedAt': checkedAt,
            },
          }),
        );
        moved++;
      } catch (error) {
        // Deleted meanwhile.
        if (!conditionFailed(error)) throw error;
      }
    }
  }
  return moved;
}

const HEALTH_FLAGS = ['loginIsUnauthorized', 'isUnreachable'] as const;
type HealthFlags = Pick<Website, (typeof HEALTH_FLAGS)[number]>;

/** Condition: the website's flag is set, or clear (an absent flag is clear). */
function flagIs(flag: keyof HealthFlags, set: boolean): string {
  return set ? `#${flag} = :flagSet` : `(attribute_not_exists(#${flag}) OR #${flag} <> :flagSet)`;
}

/** Condition: the website's flags are exactly these. */
function flagsAre(flags: HealthFlags): string {
  return HEALTH_FLAGS.map((flag) => flagIs(flag, flags[flag])).join(' AND ');
}

/** The names and value `flagsAre` uses, added to an update. */
function withFlagNames<
  T extends { ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Item },
>(update: T): T {
  for (const flag of HEALTH_FLAGS) update.ExpressionAttributeNames[`#${flag}`] = flag;
  update.ExpressionAttributeValues[':flagSet'] = true;
  return update;
}

const orUndefined = <T>(value: T | 'condition_failed'): T | undefined =>
  value === 'condition_failed' ? undefined : value;

/** SET of these (defined) attributes; any update puts a website created before the `dueForCheck` index into it. */
function setUpdate(websiteUuid: string, written: Item) {
  const names: Record<string, string> = { '#checkShard': 'checkShard' };
  const values: Item = { ':checkShard': checkShardOf(websiteUuid) };
  const sets = ['#checkShard = :checkShard'];
  for (const [field, value] of Object.entries(written)) {
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
  }
  return {
    UpdateExpression: `SET ${sets.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

function fromItem(item: Item): Website {
  const website: Website = {
    accountId: String(item.accountId),
    websiteUuid: String(item.websiteUuid),
    url: String(item.url),
    login: String(item.login),
    passwordCiphertext: String(item.passwordCiphertext),
    loginIsUnauthorized: item.loginIsUnauthorized === true,
    isUnreachable: item.isUnreachable === true,
    totalCreditsUsed: Number(item.totalCreditsUsed ?? 0),
    articlesCount: Number(item.articlesCount ?? 0),
    categoriesCount: Number(item.categoriesCount ?? 0),
    createdAt: String(item.createdAt),
  };
  if (typeof item.checkedAt === 'string') website.checkedAt = item.checkedAt;
  if (typeof item.timezone === 'string' || item.timezone === null) website.timezone = item.timezone;
  if (typeof item.passwordContextVersion === 'number') {
    website.passwordContextVersion = item.passwordContextVersion;
  }
  return website;
}
