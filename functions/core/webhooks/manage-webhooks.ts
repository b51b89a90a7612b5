/**
 * The webhook endpoints of an account: list, show, delete, enable, rotate the secret, and the
 * recent delivery attempts of one endpoint (creating one, with its body schema, is
 * `create-webhook.ts`).
 */
import { ConflictError, NotFoundError } from '../errors';
import { type Page, PER_PAGE } from '../pagination';
import { toWireTime } from '../wire';
import type { SecretCipher, WebhookStore } from './ports';
import { newSecret } from './secrets';
import { PREVIOUS_SECRET_MS, presentAttempt, presentWebhook, type WebhookEndpoint } from './webhook';

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

/**
 * Sends events to a disabled endpoint again, from now on: events of the pause are not replayed.
 * An enabled endpoint stays as it is.
 */
export async function enableWebhook(
  deps: WebhookReadDeps,
  accountId: string,
  webhookUuid: string | undefined,
) {
  const endpoint = await findWebhook(deps.webhooks, accountId, webhookUuid);
  if (endpoint.disabledAt === undefined) return { data: presentWebhook(endpoint) };
  const enabled = await deps.webhooks.enableEndpoint(accountId, endpoint.webhookUuid);
  if (!enabled) throw new NotFoundError('Webhook');
  return { data: presentWebhook(enabled) };
}

export interface RotateSecretDeps extends WebhookReadDeps {
  cipher: SecretCipher;
  clock: () => Date;
}

/**
 * A new signing secret, shown once in this answer. For 24 hours deliveries carry a signature
 * with each secret (the previous one too), then with the new one only.
 */
export async function rotateWebhookSecret(
  deps: RotateSecretDeps,
  accountId: string,
  webhookUuid: string | undefined,
) {
  const endpoint = await findWebhook(deps.webhooks, accountId, webhookUuid);
  const secret = newSecret();
  const context = { accountId, webhookUuid: endpoint.webhookUuid };
  const until = new Date(deps.clock().getTime() + PREVIOUS_SECRET_MS).toISOString();
  const rotated = await deps.webhooks.rotateSecret(
    accountId,
    endpoint.webhookUuid,
    await deps.cipher.encrypt(secret, context),
    { ciphertext: endpoint.secretCiphertext, until },
  );
  if (!rotated)
    throw new ConflictError('The secret was rotated by another request at the same time; try again.');
  return {
    data: {
      ...presentWebhook(endpoint),
      secret,
      previous_secret_expires_at: toWireTime(until),
    },
  };
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
