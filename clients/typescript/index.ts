/**
 * A typed client of the Inkpress API: every path, parameter and response body typed from the
 * OpenAPI document (`schema.d.ts`, generated), calls made by openapi-fetch.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';

export type { components, paths, webhooks } from './schema';

export interface InkpressClientOptions {
  /** The API root without a trailing slash, e.g. `https://api.example.com/prod` or `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** An API token (`ink_...`). */
  token: string;
  /** Another fetch implementation (tests, proxies). */
  fetch?: typeof globalThis.fetch;
}

export type InkpressClient = Client<paths>;

export function createInkpressClient(options: InkpressClientOptions): InkpressClient {
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.token}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
