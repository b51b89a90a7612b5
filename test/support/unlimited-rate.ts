/**
 * A per-account rate limit so high that no test's burst of requests meets it (rate-limit.test.ts
 * sets its own): every handler still takes its token, one UpdateItem, from the real RateLimits
 * table. The integration global set-up exports it to every worker and every process they start
 * (local runtimes, `npm start`): with `npm start`'s 10 requests a second (burst 20), a file that
 * walks every route on a fast machine got a 429 (openapi.test.ts, in band). provisionTestResources
 * sets it too, for the end-to-end tests, which have no such set-up.
 */
export const UNLIMITED_RATE = {
  INKPRESS_RATE_LIMIT_PER_SECOND: '1000000',
  INKPRESS_RATE_LIMIT_BURST: '1000000',
};
