/**
 * The sweeper's run against hanging sites: every step gets its turn in every run (webhook
 * re-sends and scheduled read-backs are not starved by publications and site checks), and the
 * run ends within the sweeper's timeout.
 */
import { createArticle } from '../../../functions/core/articles/create-article';
import { generateQueuedArticle } from '../../../functions/core/articles/generate-article';
import { publishArticle } from '../../../functions/core/publishing/publish-article';
import { PUBLISH_BATCH } from '../../../functions/core/publishing/sweep-publishing';
import {
  runSweep,
  SITE_CALL_MAX_MS,
  SWEEP_WORST_CASE_MS,
  sweepSteps,
} from '../../../functions/core/sweep-run';
import { createWebhook } from '../../../functions/core/webhooks/create-webhook';
import { runtimeSettings } from '../../../functions/shared/runtime-settings';
import { createFakes, FakeDelivery, type Fakes } from '../../support/fakes';
import { recordEvent } from '../../support/webhook-events';
import { articleInput, createDeps, generateDeps, publishDeps, sweepDeps } from './helpers';

const HOUR = 3600_000;
/**
 * How long each call to a hanging site takes before it ends: the longest a site call may take
 * (a publication's call with its category fallback).
 */
const SITE_TIMEOUT_MS = SITE_CALL_MAX_MS;

/** Everything a sweep has to do, on sites that all hang: publications, site checks, a read-back, a webhook. */
async function backlog(fakes: Fakes) {
  const accountId = await fakes.account(1000);
  const websites = [];
  for (let index = 0; index < 12; index++) websites.push(await fakes.website(accountId));
  // A post scheduled an hour ahead: read back after its time.
  const scheduled = await createArticle(
    createDeps(fakes),
    accountId,
    articleInput({
      website_uuid: websites[0]?.websiteUuid,
      publish_at: new Date(fakes.clock().getTime() + HOUR).toISOString(),
    }),
  );
  await generateQueuedArticle(generateDeps(fakes), scheduled, new FakeDelivery());
  expect(await publishArticle(publishDeps(fakes), scheduled)).toBe('published');
  // A full batch of publications to retry.
  for (let index = 0; index < PUBLISH_BATCH; index++) {
    const article = await createArticle(
      createDeps(fakes),
      accountId,
      articleInput({ website_uuid: websites[index % websites.length]?.websiteUuid }),
    );
    await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
  }
  // A webhook event whose message was lost: the sweeper sends it again.
  await createWebhook(
    { webhooks: fakes.webhooks, cipher: fakes.secretCipher, urls: fakes.receiverUrls, clock: fakes.clock },
    accountId,
    { url: 'https://hooks.example.com/inkpress' },
  );
  const deliver = { webhooks: fakes.webhooks, queue: fakes.webhookQueue, clock: fakes.clock };
  await recordEvent(deliver, accountId, 'article.failed', async () => ({}));
  fakes.webhookQueue.sent.length = 0;
  // Two hours later: every site is due for its check, every publication and the read-back are due.
  fakes.time.advance(2 * HOUR);
  return { deliver, scheduled };
}

describe('a sweep when every site hangs', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('re-sends webhooks and reads scheduled posts back, and ends within the sweeper timeout', async () => {
    const fakes = createFakes();
    const { deliver, scheduled } = await backlog(fakes);
    fakes.cms.hangMs = SITE_TIMEOUT_MS;
    const calls = fakes.cms.calls.length;

    let finished = false;
    const run = runSweep(
      sweepSteps({
        articles: sweepDeps(fakes),
        publishing: publishDeps(fakes),
        scheduledPosts: { ...publishDeps(fakes), publications: fakes.publications },
        webhooks: deliver,
      }),
    ).finally(() => {
      finished = true;
    });
    await jest.advanceTimersByTimeAsync(runtimeSettings.sweeperTimeoutSeconds * 1000);

    expect(finished).toBe(true);
    const report = await run;
    expect(report.failed).toEqual([]);
    // The lost webhook event went out again.
    expect(report.results.webhooks).toEqual({ events: 1, deliveries: 0 });
    expect(fakes.webhookQueue.sent).toHaveLength(1);
    // The scheduled post was read (its site hung: read again later).
    const made = fakes.cms.calls.slice(calls);
    expect(made.filter((call) => call.kind === 'readPost')).toHaveLength(1);
    expect(report.results.scheduledPosts).toMatchObject({ still_scheduled: 1 });
    expect(fakes.articles.row(scheduled)?.article.scheduleChecks).toBe(1);
    // Publications and site checks were tried too, as far as their budgets went.
    expect(made.filter((call) => call.kind === 'createPost').length).toBeGreaterThan(0);
    expect(made.filter((call) => call.kind === 'status').length).toBeGreaterThan(0);
  });

  it('is bounded below the sweeper timeout by its budgets', () => {
    expect(SWEEP_WORST_CASE_MS).toBeLessThan(runtimeSettings.sweeperTimeoutSeconds * 1000);
  });
});
