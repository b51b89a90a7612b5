/**
 * The production adapters for tests that seed or inspect data beside the handlers: composed by
 * the same functions the handlers use, from the environment `provisionTestResources` set, with
 * the access of every function. Each call composes anew (cheap: clients are shared).
 */
import * as accounts from '../../functions/composition/accounts';
import * as articles from '../../functions/composition/articles';
import { systemClock } from '../../functions/composition/clock';
import * as events from '../../functions/composition/events';
import * as queue from '../../functions/composition/generation-queue';
import * as publications from '../../functions/composition/publications';
import * as publishing from '../../functions/composition/publishing';
import * as siteAccess from '../../functions/composition/site-access';
import * as siteIndex from '../../functions/composition/site-index';
import * as delivery from '../../functions/composition/webhook-delivery';
import * as sending from '../../functions/composition/webhook-sending';
import * as webhooks from '../../functions/composition/webhooks';
import * as websites from '../../functions/composition/websites';
import { combinedAccess } from '../../functions/routes';
import { type Config, loadConfig } from '../../functions/shared/config';

/** Every function's access but the model's (tests that generate go through the worker's handler). */
const { readsModelSecret: _model, ...access } = combinedAccess();
const config = (): Config => loadConfig(process.env, access);

export const accountStore = () => accounts.accountStore(config());
export const tokenStore = () => accounts.tokenStore(config());
export const websiteStore = () => websites.websiteStore(config());
export const categoryStore = () => websites.categoryStore(config());
export const siteProfileStore = () => websites.siteProfileStore(config());
export const passwordCipher = () => siteAccess.passwordCipher(config());
export const cmsClient = () => siteAccess.cmsClient(config());
export const websiteDeps = () => siteAccess.websiteDeps(config());
export const siteIndexStore = () => siteIndex.siteIndexStore(config());
export const articleStore = () => articles.articleStore(config());
export const generationQueue = () => queue.generationQueue(config());
export const readArticleDeps = () => articles.readArticleDeps(config());
export const publicationStore = () => publications.publicationStore(config());
export const publishDeps = () => publishing.publishDeps(config());
export const webhookStore = () => webhooks.webhookStore(config());
export const webhookDeliveryDeps = () => delivery.webhookDeliveryDeps(config());
export const webhookAttemptDeps = () => sending.webhookAttemptDeps(config());
/** Recording events and the sweeper's re-sends (as the Sweeper composes them). */
export const eventResendDeps = () => events.eventResendDeps(config());
export const websitesWithEvents = () => events.websitesWithEvents(config());
/** The sweeper's batch store: completion records `batch.completed`. */
export const batchesWithEvents = () => events.batchesWithEvents(config());
export const publicationsWithEvents = () => events.publicationsWithEvents(config());

/** What queueing a new article needs (as CreateArticle composes it). */
export function createArticleDeps() {
  const current = config();
  return {
    ...articles.readArticleDeps(current),
    accounts: accounts.accountStore(current),
    queue: queue.generationQueue(current),
    clock: systemClock,
  };
}

/** The article store of the worker and the sweeper: generated and failed articles record events. */
export const articlesWithEvents = () => events.articlesWithEvents(config());

/** What the sweeper's article steps need (as the Sweeper composes them). */
export function sweepDeps() {
  const current = config();
  return {
    articles: articlesWithEvents(),
    accounts: accounts.accountStore(current),
    queue: queue.generationQueue(current),
    clock: systemClock,
  };
}

/** What re-sending the messages of a queue that lost them needs. */
export function resendUnfinishedDeps() {
  const current = config();
  return { articles: articles.articleStore(current), queue: queue.generationQueue(current) };
}
