/** The webhook rules that need no storage: the retry schedule and the create input. */
import { UndecodableText } from '../../../functions/core/undecodable-text';
import { createWebhookSchema } from '../../../functions/core/webhooks/create-webhook';
import {
  MAX_DELIVERY_ATTEMPTS,
  MAX_QUEUE_DELAY_SECONDS,
  RETRY_SCHEDULE_SECONDS,
  retryDelaySeconds,
} from '../../../functions/core/webhooks/webhook';

describe('the retry schedule (Standard Webhooks)', () => {
  it('is immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 8 attempts', () => {
    expect(Array.from({ length: MAX_DELIVERY_ATTEMPTS }, (_, index) => retryDelaySeconds(index + 1))).toEqual(
      [0, 5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600],
    );
  });

  it('sends the first two retries as delayed messages and the rest through the sweeper', () => {
    expect(RETRY_SCHEDULE_SECONDS.filter((delay) => delay > 0 && delay <= MAX_QUEUE_DELAY_SECONDS)).toEqual([
      5, 300,
    ]);
  });
});

describe('the create input', () => {
  it.each([
    [{ url: 'https://a.example/x' }, undefined],
    [
      { url: 'https://a.example/x', events: 'article.generated, website.recovered' },
      ['article.generated', 'website.recovered'],
    ],
    [
      { url: 'https://a.example/x', events: ['article.failed', 'article.failed'] },
      ['article.failed', 'article.failed'],
    ],
    [{ url: 'https://a.example/x', events: '' }, undefined],
  ])('takes %j', (input, events) => {
    expect(createWebhookSchema.parse(input).events).toEqual(events);
  });

  it('says an event type of bytes that were not UTF-8 is not text, not that "{}" is no event', () => {
    const result = createWebhookSchema.safeParse({
      url: 'https://a.example/x',
      events: [new UndecodableText()],
    });
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      'The events must be valid UTF-8 text.',
    ]);
  });

  it.each([
    [{ url: 'https://a.example/x', events: 'article.generated,nope' }, 'events.1'],
    [{ url: 'https://a.example/x', events: 42 }, 'events'],
    [{ url: ['https://a', 'https://b'] }, 'url'],
    [{ url: `https://a.example/${'x'.repeat(2_000)}` }, 'url'],
  ])('refuses %j on its field', (input, field) => {
    const result = createWebhookSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain(field);
  });
});
