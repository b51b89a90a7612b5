/** Recording webhook events from the stores whose changes they report (adapters/webhooks/event-hooks.ts). */
import { withArticleEvents, withHealthEvents, withPublicationEvents } from '../adapters/webhooks/event-hooks';
import type { ArticleStore } from '../core/articles/ports';
import { type ReadArticlesDeps, showArticle } from '../core/articles/read-articles';
import type { PublicationStore } from '../core/publishing/ports';
import { emitEvent } from '../core/webhooks/deliver-webhooks';
import type { WebhookEvents } from '../core/webhooks/ports';
import type { WebsiteStore } from '../core/websites/ports';
import { showWebsite } from '../core/websites/read-websites';
import type { Config } from '../shared/config';
import { articleStore } from './articles';
import { webhookDeliveryDeps } from './webhook-delivery';
import { categoryStore, websiteStore } from './websites';

function webhookEvents(config: Config): WebhookEvents {
  const deps = webhookDeliveryDeps(config);
  return {
    emit: async (accountId, type, data) => {
      await emitEvent(deps, accountId, type, data);
    },
  };
}

/** A website store whose health changes record events (the record carried is what `show` returns). */
export function websitesWithEvents<Store extends WebsiteStore>(config: Config, websites: Store): Store {
  const read = { website: (accountId: string, uuid: string) => showWebsite({ websites }, accountId, uuid) };
  return withHealthEvents(websites, webhookEvents(config), read) as Store;
}

/** The article and publication stores of the worker and the sweeper: their final states record events. */
export function articleEvents(config: Config, read: ReadArticlesDeps) {
  const events = webhookEvents(config);
  const reader = { article: (accountId: string, uuid: string) => showArticle(read, accountId, uuid) };
  return {
    articles: (store: ArticleStore) => withArticleEvents(store, events, reader),
    publications: (store: PublicationStore) => withPublicationEvents(store, events, reader),
  };
}

/** The article store of the worker and the sweeper: generated and failed articles record events. */
export function articlesWithEvents(config: Config): ArticleStore {
  const articles = articleStore(config);
  const read = { articles, websites: websiteStore(config), categories: categoryStore(config) };
  return articleEvents(config, read).articles(articles);
}
