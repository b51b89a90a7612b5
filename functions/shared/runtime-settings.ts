/** Settings shared by the stack, the local runtime and the functions. */
export const runtimeSettings = {
  /**
   * Worker Lambda timeout; the queue's visibility timeout is 6x this. One article at a time:
   * 3 rounds of model calls x 40 s x 3 tries stay within it.
   */
  workerTimeoutSeconds: 600,
  /** Deliveries of one generation message before it goes to the dead-letter queue. */
  maxReceiveCount: 5,
  /** Messages handed to one worker invocation (one, so a slow model cannot time out a batch). */
  workerBatchSize: 1,
  /** Worker invocations the queue runs at once: keeps model calls under the provider's rate limits. */
  workerMaxConcurrency: 10,
  /** Minutes between sweeper runs. */
  sweeperIntervalMinutes: 1,
  /**
   * Sweeper timeout: a run that calls slow sites may outlast the interval. Runs never overlap:
   * the sweeper has reserved concurrency 1, and a tick that finds a run going waits for it at
   * most `sweeperTickMaxAgeSeconds` (Lambda retries the throttled event), then is dropped.
   */
  sweeperTimeoutSeconds: 120,
  /** How long a scheduled sweeper tick may wait for the previous run (Lambda's minimum, 60 s). */
  sweeperTickMaxAgeSeconds: 60,
  /** Seconds an authorizer decision is cached by API Gateway (token revocation delay). */
  authorizerCacheSeconds: 60,
  apiTimeoutSeconds: 29,
  /**
   * Request bodies API Gateway passes to the handlers base64-encoded, byte for byte; and the
   * first Accept types for which it sends a handler's base64 body as bytes (the compressed docs
   * page, compressed-page.ts).
   */
  binaryMediaTypes: ['multipart/form-data', 'text/html'],
} as const;

export const visibilityTimeoutSeconds = runtimeSettings.workerTimeoutSeconds * 6;

/** The webhook dispatcher and its queue (stack and local runtime alike). */
export const webhookSettings = {
  /** Records per invocation, attempted in parallel (each attempt waits at most 10 s). */
  batchSize: 10,
  timeoutSeconds: 60,
  visibilityTimeoutSeconds: 360,
  /** Deliveries of one message before it goes to the dead-letter queue (storage errors only: a failed attempt is not one). */
  maxReceiveCount: 5,
} as const;
