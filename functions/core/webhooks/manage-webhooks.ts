/**
 * The webhook endpoints of an account: list, show, delete, and the recent delivery attempts of
 * one endpoint (creating one, with its body schema, is `create-webhook.ts`).
 */
import { NotFoundError } from '../errors';
import { type Page, PER_PAGE } from '../pagination';
import type { WebhookStore } from './ports';
import { presentAttempt, presentWebhook, type WebhookEndpoint } from './webhook';

/** What listing, showing and deleting webhooks need: their store. */
export interface WebhookReadDeps {
  webhooks: WebhookStore;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Attempts listed at most (the newest); older ones are still kept until they expire. */
export const MAX_LISTED_PAGES = 50;

export async function listWebhooks(deps: WebhookReadDeps, accountId: string) {
  const endpoints = await deps.webhooks.listEndpoints(accountId);
  return {
    data: endpoints
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.webhookUuid.localeCompare(b.webhookUuid))
      .map(presentWebhook),
  };
}

export async function showWebhook(deps: WebhookReadDeps, accountId: string, webhookUuid: string | undefined) {
  return { data: presentWebhook(await findWebhook(deps.webhooks, accountId, webhookUuid)) };
}

export async function deleteWebhook(
  deps: WebhookReadDeps,
  accountId: string,
  webhookUuid: string | undefined,
) {
  const endpoint = await findWebhook(deps.webhooks, accountId, webhookUuid);
  const removed = await deps.webhooks.deleteEndpoint(accountId, endpoint.webhookUuid);
  if (!removed) throw new NotFoundError('Webhook');
  return { message: `The webhook ${removed.url} was deleted; nothing more is sent to it.` };
}

export async function listDeliveries(
  deps: WebhookReadDeps,
  accountId: string,
  webhookUuid: string | undefined,
  page: number,
): Promise<Page<ReturnType<typeof presentAttempt>>> {
  const endpoint = await findWebhook(deps.webhooks, accountId, webhookUuid);
  if (page > MAX_LISTED_PAGES) return { items: [], page };
  const attempts = await deps.webhooks.listAttempts(accountId, endpoint.webhookUuid, page * PER_PAGE);
  return { items: attempts.slice((page - 1) * PER_PAGE).map(presentAttempt), page };
}

async function findWebhook(
  webhooks: WebhookStore,
  accountId: string,
  webhookUuid: string | undefined,
): Promise<WebhookEndpoint> {
  if (webhookUuid === undefined || !UUID_PATTERN.test(webhookUuid)) throw new NotFoundError('Webhook');
  const endpoint = await webhooks.getEndpoint(accountId, webhookUuid.toLowerCase());
  if (!endpoint) throw new NotFoundError('Webhook');
  return endpoint;
}
