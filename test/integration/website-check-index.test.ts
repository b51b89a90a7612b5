/**
 * The health check's index of websites due (`dueForCheck`), against DynamoDB Local: the sweep
 * reads one query per shard and never scans; a check moves a website to the back; websites
 * stored before the index existed join it when the tables are provisioned again (or when
 * anything updates them).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { websiteKeys } from '../../functions/adapters/dynamodb/keys';
import { CHECK_SHARDS, checkShardOf } from '../../functions/adapters/dynamodb/website-repository';
import type { Website } from '../../functions/core/websites/website';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import { type ProvisionedResources, provisionTables } from '../../local/provision';
import * as deps from '../support/deps';
import { withReadLog } from '../support/read-log';
import { provisionTestResources } from '../support/test-resources';

const MINUTE = 60_000;
const base = Date.parse('2026-03-01T00:00:00.000Z');
const at = (minutes: number) => new Date(base + minutes * MINUTE).toISOString();

let resources: ProvisionedResources;

beforeAll(async () => {
  resources = await provisionTestResources();
});

let serial = 0;
function website(checkedMinutes: number): Website {
  serial++;
  const uuid = `20000000-0000-4000-8000-${String(serial).padStart(12, '0')}`;
  return {
    accountId: `account-${serial % 3}`,
    websiteUuid: uuid,
    url: `https://site-${serial}.example.com`,
    login: 'inkpress',
    passwordCiphertext: 'not-used-here',
    loginIsUnauthorized: false,
    isUnreachable: false,
    totalCreditsUsed: 0,
    articlesCount: 0,
    categoriesCount: 0,
    createdAt: at(-10_000),
    checkedAt: at(checkedMinutes),
  };
}

async function store(sites: Website[]): Promise<void> {
  for (const site of sites) await deps.websiteStore().create(site, `site-${site.websiteUuid}.example.com`);
}

const uuids = (sites: Website[]) => sites.map((site) => site.websiteUuid);

describe('listDueForCheck', () => {
  const sites: Website[] = [];

  beforeAll(async () => {
    // 48 websites checked one minute apart, from minute 0 to minute 47.
    for (let minute = 0; minute < 48; minute++) sites.push(website(minute));
    await store(sites);
  });

  it('spreads the websites over every shard', () => {
    expect(new Set(sites.map((site) => checkShardOf(site.websiteUuid))).size).toBe(CHECK_SHARDS);
  });

  it('returns the websites checked before the cut-off, oldest first, with one query per shard', async () => {
    const { result, log } = await withReadLog(dynamoDocumentClient(), () =>
      deps.websiteStore().listDueForCheck(at(30), 10),
    );
    expect(uuids(result)).toEqual(uuids(sites.slice(0, 10)));
    expect(log.commands).toEqual(Array(CHECK_SHARDS).fill('QueryCommand'));
    expect(log.itemsRead).toBeLessThanOrEqual(CHECK_SHARDS * 10);
  });

  it('returns every due website when the limit allows, and none checked at or after the cut-off', async () => {
    const due = await deps.websiteStore().listDueForCheck(at(30), 1000);
    expect(uuids(due)).toEqual(uuids(sites.slice(0, 30)));
  });

  it('leaves out the URL guard items', async () => {
    const due = await deps.websiteStore().listDueForCheck(at(10_000), 1000);
    expect(due.every((site) => site.url.startsWith('https://site-'))).toBe(true);
    expect(due).toHaveLength(sites.length);
  });

  it('moves a checked website out of the due list until it is due again', async () => {
    const first = sites[0] as Website;
    await deps.websiteStore().recordHealth(first.accountId, first.websiteUuid, { checkedAt: at(60) });
    expect(uuids(await deps.websiteStore().listDueForCheck(at(30), 1000))).not.toContain(first.websiteUuid);
    const later = await deps.websiteStore().listDueForCheck(at(61), 1000);
    expect(uuids(later).at(-1)).toBe(first.websiteUuid);
  });
});

describe('websites stored before the index existed', () => {
  /** A website item as it was written before `checkShard` (and, earlier still, `checkedAt`). */
  async function putLegacy(site: Website, withCheckedAt: boolean): Promise<void> {
    const { checkedAt, ...rest } = site;
    await dynamoDocumentClient().send(
      new PutCommand({
        TableName: resources.tableNames.websites,
        Item: {
          ...websiteKeys.website(site.accountId, site.websiteUuid),
          ...rest,
          ...(withCheckedAt ? { checkedAt } : {}),
          listSortKey: websiteKeys.listSortKey(site.createdAt, site.websiteUuid),
        },
      }),
    );
  }

  it('are put in the index, and so checked, when the tables are provisioned again', async () => {
    const checked = website(-500);
    const neverChecked = website(0);
    await putLegacy(checked, true);
    await putLegacy(neverChecked, false);
    const before = uuids(await deps.websiteStore().listDueForCheck(at(10_000), 1000));
    expect(before).not.toContain(checked.websiteUuid);
    expect(before).not.toContain(neverChecked.websiteUuid);

    const client = new DynamoDBClient({});
    try {
      await provisionTables(client, { prefix: resources.tableNames.websites.replace(/-Websites$/, '') });
    } finally {
      client.destroy();
    }

    const due = await deps.websiteStore().listDueForCheck(at(0), 1000);
    expect(uuids(due)).toContain(checked.websiteUuid);
    // Never checked: due from its creation on.
    expect(due.find((site) => site.websiteUuid === neverChecked.websiteUuid)?.checkedAt).toBe(
      neverChecked.createdAt,
    );
  });

  it('join the index when anything records their health', async () => {
    const site = website(-400);
    await putLegacy(site, true);
    await deps.websiteStore().recordHealth(site.accountId, site.websiteUuid, { isUnreachable: true });
    const { Item } = await dynamoDocumentClient().send(
      new GetCommand({
        TableName: resources.tableNames.websites,
        Key: websiteKeys.website(site.accountId, site.websiteUuid),
      }),
    );
    expect(Item?.checkShard).toBe(checkShardOf(site.websiteUuid));
    expect(uuids(await deps.websiteStore().listDueForCheck(at(0), 1000))).toContain(site.websiteUuid);
  });
});
