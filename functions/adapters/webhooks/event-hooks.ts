/**
 * Where webhook events come from, without touching the lifecycle code: the stores the worker,
 * the sweeper and the website routes use are wrapped so that a state change that succeeded
 * (the store said so) records its event. Recording never fails the caller: an error is logged
 * and the change stands.
 *
 * - ArticleStore.completeGeneration -> `article.generated`; failGeneration -> `article.failed`
 * - PublicationStore.markPublished -> `article.published`; markFailed -> `article.publish_failed`
 * - WebsiteStore.recordHealth / updateCredentials: a write that sets a flag on a healthy website ->
 *   `website.unhealthy`, one that clears the last flag -> `website.recovered`
 */
import type { ArticleStore } from '../../core/articles/ports';
import type { ArticleRef, PublicationStore } from '../../core/publishing/ports';
import type { WebhookEvents } from '../../core/webhooks/ports';
import type { WebhookEventType } from '../../core/webhooks/webhook';
import type { WebsiteStore, WebsiteWrite } from '../../core/websites/ports';
import type { Website } from '../../core/websites/website';
import { logger } from '../../shared/logger';

export interface EventReaders {
  /** The article record as `show` returns it. */
  article(accountId: string, articleUuid: string): Promise<unknown>;
  /** The website record as `show` returns it. */
  website(accountId: string, websiteUuid: string): Promise<unknown>;
}

/** Records one event; logs instead of throwing. */
async function record(
  events: WebhookEvents,
  accountId: string,
  type: WebhookEventType,
  data: () => Promise<unknown>,
): Promise<void> {
  try {
    await events.emit(accountId, type, data);
  } catch (error) {
    logger.error('Could not record a webhook event', {
      type,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** Calls `after` once the wrapped method resolved; other methods pass through. */
function afterCalls<T extends object>(
  target: T,
  hooks: { [K in keyof T]?: (result: unknown, ...args: never[]) => Promise<void> },
): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      const hook = hooks[property as keyof T];
      if (!hook) return value.bind(object);
      return async (...args: unknown[]) => {
        const result = await value.apply(object, args);
        await (hook as (result: unknown, ...rest: unknown[]) => Promise<void>)(result, ...args);
        return result;
      };
    },
  });
}

export function withArticleEvents(
  store: ArticleStore,
  events: WebhookEvents,
  read: Pick<EventReaders, 'article'>,
): ArticleStore {
  const emit = (type: WebhookEventType, ref: Pick<ArticleRef, 'accountId' | 'articleUuid'>) =>
    record(events, ref.accountId, type, () => read.article(ref.accountId, ref.articleUuid));
  return afterCalls(store, {
    completeGeneration: async (completed: unknown, article: ArticleRef) => {
      if (completed === true) await emit('article.generated', article);
    },
    failGeneration: async (failed: unknown, article: ArticleRef) => {
      if (failed === true) await emit('article.failed', article);
    },
  });
}

export function withPublicationEvents(
  store: PublicationStore,
  events: WebhookEvents,
  read: Pick<EventReaders, 'article'>,
): PublicationStore {
  const emit = (type: WebhookEventType, ref: ArticleRef) =>
    record(events, ref.accountId, type, () => read.article(ref.accountId, ref.articleUuid));
  return afterCalls(store, {
    markPublished: async (published: unknown, ref: ArticleRef) => {
      if (published === true) await emit('article.published', ref);
    },
    markFailed: async (failed: unknown, ref: ArticleRef) => {
      if (failed === true) await emit('article.publish_failed', ref);
    },
  });
}

const isHealthy = (website: Pick<Website, 'loginIsUnauthorized' | 'isUnreachable'>) =>
  !website.loginIsUnauthorized && !website.isUnreachable;

export function withHealthEvents(
  store: WebsiteStore,
  events: WebhookEvents,
  read: Pick<EventReaders, 'website'>,
): WebsiteStore {
  // Each write reports the website as it found it, so of two concurrent writes that clear (or
  // set) the flags only the one that changed them records the event.
  const emitOnChange = async (write: unknown, accountId: string, websiteUuid: string) => {
    const { before, after } = (write ?? {}) as Partial<WebsiteWrite>;
    if (!before || !after || isHealthy(before) === isHealthy(after)) return;
    await record(events, accountId, isHealthy(after) ? 'website.recovered' : 'website.unhealthy', () =>
      read.website(accountId, websiteUuid),
    );
  };
  return afterCalls(store, { recordHealth: emitOnChange, updateCredentials: emitOnChange });
}
