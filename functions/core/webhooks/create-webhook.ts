/**
 * `POST /v1/webhooks/create`: a receiver URL that passes the SSRF guard and the event types it
 * receives; the signing secret is shown once, in this response. A module of its own so that the
 * other webhook routes do not build its body schema at their cold start.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { ConflictError, ValidationError } from '../errors';
import { formText, parseOrThrow, preprocess } from '../schema-helpers';
import { UndecodableText } from '../undecodable-text';
import type { ReceiverUrlPolicy, SecretCipher, WebhookStore } from './ports';
import { newSecret } from './secrets';
import {
  MAX_WEBHOOKS_PER_ACCOUNT,
  presentWebhook,
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpoint,
} from './webhook';

export interface CreateWebhookDeps {
  webhooks: WebhookStore;
  cipher: SecretCipher;
  urls: ReceiverUrlPolicy;
  clock: () => Date;
}

const MAX_URL_LENGTH = 2_000;

/**
 * Absent, null, blank, or only blank items (empty form fields count as absent): every event. Blank
 * items among others are dropped. An explicit empty JSON list is refused: it would receive nothing.
 */
const eventList = preprocess(
  (value) => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' && (!Array.isArray(value) || value.length === 0)) return value;
    const items = (typeof value === 'string' ? value.split(',') : value)
      .map((item: unknown) => (typeof item === 'string' ? item.trim() : item))
      .filter((item) => item !== '');
    return items.length === 0 ? undefined : items;
  },
  z.optional(
    z
      .array(
        z.enum(WEBHOOK_EVENT_TYPES, {
          error: (issue) =>
            issue.input instanceof UndecodableText
              ? 'The events must be valid UTF-8 text.'
              : `The events must be some of ${WEBHOOK_EVENT_TYPES.join(', ')}; ${JSON.stringify(issue.input) ?? String(issue.input)} is not one.`,
        }),
        { error: 'The events must be a list of event types (or one comma-separated text).' },
      )
      .check(
        z.minLength(1, { error: 'The events list must not be empty (leave it out to receive every event).' }),
      ),
  ),
);

/** Body of `POST /v1/webhooks/create`. */
export const createWebhookSchema = z.object({
  // Text without control characters or bad Unicode (a 422, never silently percent-encoded).
  url: formText('url')
    .check(
      z.trim(),
      z.minLength(1, { error: 'The url field is required.' }),
      z.maxLength(MAX_URL_LENGTH, { error: `The url may not be longer than ${MAX_URL_LENGTH} characters.` }),
    )
    .check(
      z.meta({ description: 'Where events are POSTed: https (http only in local mode), a public address.' }),
    ),
  events: eventList.check(
    z.meta({
      description: `Event types to receive (a list, repeated form fields or one comma-separated text); all when left out: ${WEBHOOK_EVENT_TYPES.join(', ')}.`,
    }),
  ),
});

export async function createWebhook(
  deps: CreateWebhookDeps,
  accountId: string,
  fields: Record<string, unknown>,
) {
  const input = parseOrThrow(createWebhookSchema, fields);
  const url = await receiverUrl(deps.urls, input.url);
  const webhookUuid = randomUUID();
  const secret = newSecret();
  const endpoint: WebhookEndpoint = {
    accountId,
    webhookUuid,
    url,
    events: input.events ? [...new Set(input.events)] : [...WEBHOOK_EVENT_TYPES],
    secretCiphertext: await deps.cipher.encrypt(secret, { accountId, webhookUuid }),
    createdAt: deps.clock().toISOString(),
  };
  if (!(await deps.webhooks.createEndpoint(endpoint, MAX_WEBHOOKS_PER_ACCOUNT))) {
    throw new ConflictError(
      `An account may have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks: delete one before creating another.`,
    );
  }
  return { data: { ...presentWebhook(endpoint), secret } };
}

async function receiverUrl(policy: ReceiverUrlPolicy, text: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw ValidationError.forField('url', 'The url must be a valid URL (https://...).');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw ValidationError.forField('url', 'The url must be an https:// address.');
  }
  // A fragment is never sent to the receiver (refused so that nobody relies on it); nothing
  // listens on port 0.
  if (url.hash !== '' || text.includes('#')) {
    throw ValidationError.forField(
      'url',
      'The url may not contain a fragment (#): it is never sent to the receiver.',
    );
  }
  if (url.port === '0') throw ValidationError.forField('url', 'The url may not use port 0.');
  // Credentials in the URL would be shown by every list and show answer: events are authenticated
  // by their signature instead.
  if (url.username !== '' || url.password !== '') {
    throw ValidationError.forField(
      'url',
      'The url may not contain a user name or password; verify the webhook-signature header instead.',
    );
  }
  switch (await policy.check(url)) {
    case 'https_required':
      throw ValidationError.forField('url', 'The url must be an https:// address on port 443 (the default).');
    case 'blocked':
      throw ValidationError.forField(
        'url',
        'The url points to a private, loopback, link-local or reserved network address, which is not allowed.',
      );
    case 'unresolvable':
      throw ValidationError.forField('url', `The host ${url.hostname} could not be resolved.`);
    case 'ok':
      return url.toString();
  }
}
