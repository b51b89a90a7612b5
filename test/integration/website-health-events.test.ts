/**
 * Health events from concurrent writes, against DynamoDB Local: publications and checks that
 * clear (or set) a website's flags at the same time store one `website.recovered` (or
 * `website.unhealthy`) between them, because each write holds only while the flags are as it
 * read them, and its event is stored in the same transaction.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Website } from '../../functions/core/websites/website';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import * as deps from '../support/deps';
import { provisionTestResources } from '../support/test-resources';

beforeAll(async () => {
  await provisionTestResources();
});

/** The account wants health events. */
async function subscribe(accountId: string): Promise<void> {
  await deps.webhookStore().createEndpoint(
    {
      accountId,
      webhookUuid: crypto.randomUUID(),
      url: 'https://hooks.example.com/health',
      events: ['website.unhealthy', 'website.recovered'],
      secretCiphertext: 'not-used-here',
      createdAt: new Date().toISOString(),
    },
    10,
  );
}

/** The events stored for the account, oldest first. */
async function storedEvents(accountId: string): Promise<Record<string, unknown>[]> {
  const { Items } = await dynamoDocumentClient().send(
    new QueryCommand({
      TableName: process.env.WEBHOOKS_TABLE,
      KeyConditionExpression: 'accountId = :accountId AND begins_with(itemKey, :prefix)',
      ExpressionAttributeValues: { ':accountId': accountId, ':prefix': 'event#' },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)));
}

/** The types of the events stored for the account, oldest first. */
async function storedEventTypes(accountId: string): Promise<string[]> {
  return (await storedEvents(accountId)).map((item) => String(item.type));
}

async function flaggedWebsite(): Promise<Website> {
  const uuid = crypto.randomUUID();
  const website: Website = {
    accountId: `health-${uuid}`,
    websiteUuid: uuid,
    url: `https://${uuid}.example.com`,
    login: 'inkpress',
    passwordCiphertext: 'not-used-here',
    loginIsUnauthorized: true,
    isUnreachable: false,
    totalCreditsUsed: 0,
    articlesCount: 0,
    categoriesCount: 0,
    createdAt: new Date().toISOString(),
  };
  await deps.websiteStore().create(website, `${uuid}.example.com`);
  return website;
}

const times = <T>(count: number, run: () => Promise<T>) => Promise.all(Array.from({ length: count }, run));

describe('health events under concurrent writes', () => {
  it('stores one website.recovered when eight writes clear the flags at once, and one website.unhealthy when eight set one', async () => {
    const site = await flaggedWebsite();
    await subscribe(site.accountId);
    const websites = deps.websitesWithEvents();

    await times(8, () =>
      websites.recordHealth(site.accountId, site.websiteUuid, {
        loginIsUnauthorized: false,
        isUnreachable: false,
      }),
    );
    expect(await storedEventTypes(site.accountId)).toEqual(['website.recovered']);

    await times(8, () => websites.recordHealth(site.accountId, site.websiteUuid, { isUnreachable: true }));
    expect(await storedEventTypes(site.accountId)).toEqual(['website.recovered', 'website.unhealthy']);
    expect(await websites.get(site.accountId, site.websiteUuid)).toMatchObject({
      loginIsUnauthorized: false,
      isUnreachable: true,
    });
  });

  it('stores one website.unhealthy when what is wrong changes (login refused, then unreachable), however many writes say so', async () => {
    const site = await flaggedWebsite();
    await subscribe(site.accountId);
    const websites = deps.websitesWithEvents();
    await times(8, () =>
      websites.recordHealth(site.accountId, site.websiteUuid, {
        loginIsUnauthorized: false,
        isUnreachable: true,
      }),
    );
    expect(await storedEventTypes(site.accountId)).toEqual(['website.unhealthy']);
    // The same flags written again report nothing.
    await websites.recordHealth(site.accountId, site.websiteUuid, { isUnreachable: true });
    expect(await storedEventTypes(site.accountId)).toEqual(['website.unhealthy']);
  });

  it('carries the website as show presents it, its site index fields included', async () => {
    const site = await flaggedWebsite();
    await subscribe(site.accountId);
    const indexedAt = '2026-11-28T05:00:00.000Z';
    await deps.siteIndexStore().putState({
      websiteUuid: site.websiteUuid,
      supported: true,
      postsIndexed: 3,
      indexedAt,
    });
    await deps.websitesWithEvents().recordHealth(site.accountId, site.websiteUuid, {
      loginIsUnauthorized: false,
    });
    const [event] = await storedEvents(site.accountId);
    const body = JSON.parse(String(event?.payload));
    expect(body.type).toBe('website.recovered');
    expect(body.data).toEqual({
      data: {
        uuid: site.websiteUuid,
        url: site.url,
        total_credits_used: 0,
        articles_count: 0,
        categories_count: 0,
        created_at: expect.any(String),
        posts_indexed: 3,
        indexed_at: '2026-11-28 05:00:00',
        index_supported: 1,
        timezone: null,
      },
      status: { login_is_unauthorized: 0, is_unreachable: 0 },
    });
  });

  it('writes a change that cannot move the health in one UpdateItem (no read, no transaction)', async () => {
    const site = await flaggedWebsite();
    await subscribe(site.accountId);
    const websites = deps.websitesWithEvents();
    const client = dynamoDocumentClient();
    const commands: string[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        // The website's own writes and reads (the event's after the commit are not counted).
        const input = args.input as { TableName?: string; TransactItems?: unknown };
        const website = input.TableName === process.env.WEBSITES_TABLE || input.TransactItems !== undefined;
        if (website && JSON.stringify(input).includes(site.websiteUuid))
          commands.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'countWebsiteCommands' },
    );
    try {
      // Flagged unauthorized: setting it again, or clearing the other flag, changes nothing of its health.
      await websites.recordHealth(site.accountId, site.websiteUuid, { loginIsUnauthorized: true });
      await websites.recordHealth(site.accountId, site.websiteUuid, { isUnreachable: false, checkedAt: 'y' });
      expect(commands).toEqual(['UpdateItemCommand', 'UpdateItemCommand']);
      commands.length = 0;
      // Clearing the last flag does: refused, read, the write with its event (body included).
      await websites.recordHealth(site.accountId, site.websiteUuid, { loginIsUnauthorized: false });
      expect(commands).toEqual(['UpdateItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
    } finally {
      client.middlewareStack.remove('countWebsiteCommands');
    }
    expect(await storedEventTypes(site.accountId)).toEqual(['website.recovered']);
  });

  it.each([
    ['without events', () => deps.websiteStore()],
    ['with events', () => deps.websitesWithEvents()],
  ])(
    'reports the website before and after each write, and nothing for a deleted one (%s)',
    async (_case, store) => {
      const site = await flaggedWebsite();
      await subscribe(site.accountId);
      const write = await store().recordHealth(site.accountId, site.websiteUuid, {
        loginIsUnauthorized: false,
        checkedAt: 'x',
      });
      expect(write?.before).toMatchObject({ loginIsUnauthorized: true });
      expect(write?.after).toMatchObject({ loginIsUnauthorized: false, checkedAt: 'x' });
      expect(await deps.websiteStore().get(site.accountId, site.websiteUuid)).toEqual(write?.after);

      await deps.websiteStore().delete(site.accountId, site.websiteUuid);
      expect(await store().recordHealth(site.accountId, site.websiteUuid, { isUnreachable: true })).toBe(
        undefined,
      );
    },
  );
});
