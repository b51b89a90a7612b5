/**
 * Longest files first, also on a fresh clone. Jest orders by the durations it recorded in its
 * cache on the last run; with an empty cache it falls back on file size, which put the three
 * 40-second files (real `npm start`s and emulator restarts, small files) at the end of a fresh
 * clone's run, where they ran alone on two cores. Here a file with no recorded duration takes
 * the one measured below (fresh clone, 2 cores; files of 2 s or more), and any other one runs
 * after those.
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds per file, measured in a fresh clone's `npm test` (2026-11-28, 2 cores). */
const MEASURED_SECONDS = {
  'test/integration/local-supervision-restart.test.ts': 32,
  'test/integration/local-supervision-emulators.test.ts': 45,
  'test/integration/websites-publishing.test.ts': 28,
  'test/integration/admin-cli.test.ts': 22,
  'test/integration/articles.test.ts': 19,
  'test/integration/bundled-functions.test.ts': 19,
  'test/integration/webhooks.test.ts': 17,
  'test/integration/local-runtime.test.ts': 16,
  'test/integration/websites.test.ts': 15,
  'test/infra/bundles.test.ts': 15,
  'test/integration/generation-storage-outage.test.ts': 13,
  'test/infra/lazy-modules.test.ts': 13,
  'test/integration/sam-local.test.ts': 11,
  'test/integration/article-lifecycle.test.ts': 11,
  'test/infra/stack.test.ts': 10,
  'test/integration/webhook-retries.test.ts': 10,
  'test/infra/function-environment.test.ts': 9,
  'test/integration/local-runtime-attach.test.ts': 8,
  'test/integration/hostile-text.test.ts': 8,
  'test/integration/api-clients.test.ts': 7,
  'test/integration/idempotency.test.ts': 6,
  'test/infra/model-settings.test.ts': 6,
  'test/integration/batches.test.ts': 6,
  'test/integration/resend-unfinished.test.ts': 5,
  'test/integration/openapi.test.ts': 5,
  'test/integration/article-images.test.ts': 5,
  'test/checks/typed-client.test.ts': 4,
  'test/checks/php-syntax.test.ts': 4,
  'test/integration/outline-review.test.ts': 4,
  'test/integration/queue-pagination.test.ts': 4,
  'test/integration/website-update.test.ts': 3,
  'test/integration/wordpress-login.test.ts': 3,
  'test/integration/article-sources.test.ts': 3,
  'test/integration/article-list-pagination.test.ts': 3,
  'test/integration/site-profile.test.ts': 3,
  'test/unit/core/hostile-text.test.ts': 3,
  'test/integration/connection-doctor.test.ts': 3,
  'test/infra/bundle-cache.test.ts': 3,
  'test/unit/use-cases/site-index.test.ts': 2,
  'test/integration/sample-events.test.ts': 2,
  'test/integration/final-failure-metrics.test.ts': 2,
  'test/integration/rate-limit.test.ts': 2,
  'test/integration/site-password-context.test.ts': 2,
  'test/unit/core/request-schemas.test.ts': 2,
};

class LongestFirstSequencer extends Sequencer {
  /** Jest's recorded duration (ms), else the measured one, else 0 (after every measured file). */
  time(test) {
    const recorded = super.time(test);
    if (recorded !== undefined) return recorded;
    const file = path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/');
    return (MEASURED_SECONDS[file] ?? 0) * 1000;
  }
}

module.exports = LongestFirstSequencer;
module.exports.MEASURED_SECONDS = MEASURED_SECONDS;
