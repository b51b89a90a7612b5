/**
 * Health events from concurrent writes, against DynamoDB Local: publications and checks that
 * clear (or set) a website's flags at the same time record one `website.recovered` (or
 * `website.unhealthy`) between them, because each write reports the website as it found it.
 */
import { withHealthEvents } from '../../functions/adapters/webhooks/event-hooks';
import type { WebhookEvents } from '../../functions/core/webhooks/ports';
import type { Website } from '../../functions/core/websites/website';
import * as deps from '../support/deps';
import { provisionTestResources } from '../support/test-resources';

beforeAll(async () => {
  await provisionTestResources();
});

function recordedEvents() {
  const types: string[] = [];
  const events: WebhookEvents = {
    emit: async (_accountId, type, data) => {
      await data();
      types.push(type);
    },
  };
  return { events, types };
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
  it('records one website.recovered when eight writes clear the flags at once, and one website.unhealthy when eight set one', async () => {
    const site = await flaggedWebsite();
    const { events, types } = recordedEvents();
    const websites = withHealthEvents(deps.websiteStore(), events, {
      website: async (_accountId, websiteUuid) => ({ websiteUuid }),
    });

    await times(8, () =>
      websites.recordHealth(site.accountId, site.websiteUuid, {
        loginIsUnauthorized: false,
        isUnreachable: false,
      }),
    );
    expect(types).toEqual(['website.recovered']);

    await times(8, () => websites.recordHealth(site.accountId, site.websiteUuid, { isUnreachable: true }));
    expect(types).toEqual(['website.recovered', 'website.unhealthy']);
  });

  it('reports the website before and after each write, and nothing for a deleted one', async () => {
    const site = await flaggedWebsite();
    const write = await deps
      .websiteStore()
      .recordHealth(site.accountId, site.websiteUuid, { loginIsUnauthorized: false, checkedAt: 'x' });
    expect(write?.before).toMatchObject({ loginIsUnauthorized: true });
    expect(write?.after).toMatchObject({ loginIsUnauthorized: false, checkedAt: 'x' });
    expect(await deps.websiteStore().get(site.accountId, site.websiteUuid)).toEqual(write?.after);

    await deps.websiteStore().delete(site.accountId, site.websiteUuid);
    expect(
      await deps.websiteStore().recordHealth(site.accountId, site.websiteUuid, { isUnreachable: true }),
    ).toBe(undefined);
  });
});
