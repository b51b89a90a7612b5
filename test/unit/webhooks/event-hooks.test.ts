/**
 * Where webhook events come from (functions/adapters/webhooks/event-hooks.ts), with in-memory
 * stores: only a change that the store made records an event, a website's flags record one per
 * transition, and a failure to record never fails the caller.
 */
import {
  type EventReaders,
  withArticleEvents,
  withHealthEvents,
  withPublicationEvents,
} from '../../../functions/adapters/webhooks/event-hooks';
import type { ArticleStore } from '../../../functions/core/articles/ports';
import type { PublicationStore } from '../../../functions/core/publishing/ports';
import type { WebhookEvents } from '../../../functions/core/webhooks/ports';
import type { WebsiteHealth, WebsiteStore } from '../../../functions/core/websites/ports';
import type { Website } from '../../../functions/core/websites/website';

function recorder(fail = false) {
  const recorded: { accountId: string; type: string; data: unknown }[] = [];
  const events: WebhookEvents = {
    emit: async (accountId, type, data) => {
      if (fail) throw new Error('queue down');
      recorded.push({ accountId, type, data: await data() });
    },
  };
  return { events, recorded };
}

const readers: EventReaders = {
  article: async (_accountId, articleUuid) => ({ article: articleUuid }),
  website: async (_accountId, websiteUuid) => ({ website: websiteUuid }),
};

const ref = { accountId: 'a', articleUuid: 'art-1' };

describe('article events', () => {
  it('records article.generated and article.failed only when the store made the change', async () => {
    let answer = true;
    const store = {
      completeGeneration: async () => answer,
      failGeneration: async () => answer,
      get: async () => undefined,
    } as unknown as ArticleStore;
    const { events, recorded } = recorder();
    const wrapped = withArticleEvents(store, events, readers);
    const article = { ...ref } as Parameters<ArticleStore['completeGeneration']>[0];
    expect(await wrapped.completeGeneration(article, {} as never)).toBe(true);
    expect(await wrapped.failGeneration(article, 'x', 'now')).toBe(true);
    answer = false;
    expect(await wrapped.completeGeneration(article, {} as never)).toBe(false);
    expect(await wrapped.failGeneration(article, 'x', 'now')).toBe(false);
    expect(await wrapped.get('a', 'art-1')).toBeUndefined();
    expect(recorded).toEqual([
      { accountId: 'a', type: 'article.generated', data: { article: 'art-1' } },
      { accountId: 'a', type: 'article.failed', data: { article: 'art-1' } },
    ]);
  });

  it('records article.published and article.publish_failed, and a failed recording changes nothing', async () => {
    const store = {
      markPublished: async () => true,
      markFailed: async () => true,
    } as unknown as PublicationStore;
    const { events, recorded } = recorder();
    const wrapped = withPublicationEvents(store, events, readers);
    await wrapped.markPublished(ref, { cmsId: '1', cmsPermalink: 'https://x' });
    await wrapped.markFailed(ref, { attempts: 1, lastError: 'no', failedAt: 'now' });
    expect(recorded.map((event) => event.type)).toEqual(['article.published', 'article.publish_failed']);

    const broken = withPublicationEvents(store, recorder(true).events, readers);
    await expect(broken.markPublished(ref, { cmsId: '1', cmsPermalink: 'https://x' })).resolves.toBe(true);
  });
});

describe('website events', () => {
  function sites(initial: Pick<Website, 'loginIsUnauthorized' | 'isUnreachable'>) {
    let website = { accountId: 'a', websiteUuid: 'w-1', ...initial } as Website;
    const store = {
      get: async () => website,
      recordHealth: async (_accountId: string, _websiteUuid: string, health: WebsiteHealth) => {
        const before = website;
        website = { ...website, ...health };
        return { before, after: website };
      },
      updateCredentials: async () => {
        const before = website;
        website = { ...website, loginIsUnauthorized: false, isUnreachable: false };
        return { before, after: website };
      },
    } as unknown as WebsiteStore;
    return store;
  }

  it('records website.unhealthy when a flag is set, website.recovered when both clear, nothing otherwise', async () => {
    const { events, recorded } = recorder();
    const store = withHealthEvents(
      sites({ loginIsUnauthorized: false, isUnreachable: false }),
      events,
      readers,
    );
    await store.recordHealth('a', 'w-1', { checkedAt: 'now' });
    await store.recordHealth('a', 'w-1', { isUnreachable: true });
    await store.recordHealth('a', 'w-1', { loginIsUnauthorized: true });
    await store.recordHealth('a', 'w-1', { isUnreachable: false });
    await store.recordHealth('a', 'w-1', { loginIsUnauthorized: false });
    await store.recordHealth('a', 'w-1', { loginIsUnauthorized: false, isUnreachable: false });
    expect(recorded).toEqual([
      { accountId: 'a', type: 'website.unhealthy', data: { website: 'w-1' } },
      { accountId: 'a', type: 'website.recovered', data: { website: 'w-1' } },
    ]);
  });

  it('records website.recovered when new credentials clear the flags', async () => {
    const { events, recorded } = recorder();
    const store = withHealthEvents(
      sites({ loginIsUnauthorized: true, isUnreachable: false }),
      events,
      readers,
    );
    await store.updateCredentials('a', 'w-1', { login: 'l', passwordCiphertext: 'c' } as never, {});
    expect(recorded.map((event) => event.type)).toEqual(['website.recovered']);
  });

  it('goes by what each write found, not by a read beside it: a write that found the website healthy records nothing', async () => {
    const { events, recorded } = recorder();
    // A concurrent write cleared the flags first: this one finds the website healthy already,
    // although a read before it would have seen it flagged.
    const flagged = { loginIsUnauthorized: true, isUnreachable: false } as Website;
    const healthy = { loginIsUnauthorized: false, isUnreachable: false } as Website;
    const store = {
      get: async () => flagged,
      recordHealth: async () => ({ before: healthy, after: healthy }),
    } as unknown as WebsiteStore;
    await withHealthEvents(store, events, readers).recordHealth('a', 'w-1', {});
    expect(recorded).toEqual([]);
  });

  it('records nothing for a website deleted meanwhile', async () => {
    const { events, recorded } = recorder();
    const store = { recordHealth: async () => undefined } as unknown as WebsiteStore;
    await withHealthEvents(store, events, readers).recordHealth('a', 'w-1', { isUnreachable: true });
    expect(recorded).toEqual([]);
  });
});
