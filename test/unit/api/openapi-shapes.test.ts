/**
 * The presenters' return types are pinned to the response schemas of the OpenAPI document at
 * compile time (`npm run typecheck` fails when a presenter adds, drops or retypes a field the
 * document does not say), and at run time a sample of each fits its schema.
 */
import type { z } from 'zod';
import {
  type accountSchema,
  type deliveryAttemptSchema,
  type generatedArticleSchema,
  type indexedWebsiteSchema,
  type queuedArticleSchema,
  type refreshedIndexSchema,
  type siteProfileSchema,
  type usageSchema,
  webhookSchema,
  websiteRecordSchema,
} from '../../../functions/api/openapi/response-schemas';
import type {
  presentGeneratedArticle,
  presentQueuedArticle,
} from '../../../functions/core/articles/article-presenter';
import type { accountUsage, showAccount } from '../../../functions/core/usage';
import { type presentAttempt, presentWebhook } from '../../../functions/core/webhooks/webhook';
import type { presentIndexedWebsite, refreshWebsiteIndex } from '../../../functions/core/websites/site-index';
import type { presentProfile } from '../../../functions/core/websites/site-profile';
import { presentWebsite } from '../../../functions/core/websites/website';

/** True only when A and B are assignable both ways (the same shape). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <T extends true>(value: T) => value;

same<Same<ReturnType<typeof presentWebsite>, z.infer<typeof websiteRecordSchema>>>(true);
same<Same<ReturnType<typeof presentIndexedWebsite>, z.infer<typeof indexedWebsiteSchema>>>(true);
same<Same<Awaited<ReturnType<typeof refreshWebsiteIndex>>, z.infer<typeof refreshedIndexSchema>>>(true);
// Its `status` is typed `string` by the presenter ('generated' at run time): the data must match.
same<
  Same<ReturnType<typeof presentGeneratedArticle>['data'], z.infer<typeof generatedArticleSchema>['data']>
>(true);
// The queued record's outer status is a string the presenter is given; the schema lists its values.
same<
  Same<
    Omit<ReturnType<typeof presentQueuedArticle>, 'status'>,
    Omit<z.infer<typeof queuedArticleSchema>, 'status'>
  >
>(true);
same<Same<Awaited<ReturnType<typeof showAccount>>, z.infer<typeof accountSchema>>>(true);
same<Same<Awaited<ReturnType<typeof accountUsage>>, z.infer<typeof usageSchema>>>(true);
same<Same<ReturnType<typeof presentWebhook>, z.infer<typeof webhookSchema>>>(true);
same<Same<ReturnType<typeof presentProfile>, z.infer<typeof siteProfileSchema>>>(true);
same<Same<ReturnType<typeof presentAttempt>, z.infer<typeof deliveryAttemptSchema>>>(true);

describe('response shapes', () => {
  it('a website record and a webhook fit their schemas', () => {
    const website = presentWebsite({
      accountId: 'a',
      websiteUuid: '6f1c2a9e-8b3d-4c5e-9a7f-1e2d3c4b5a69',
      url: 'https://blog.example.com',
      login: 'editor',
      passwordCiphertext: 'c2VjcmV0',
      loginIsUnauthorized: true,
      isUnreachable: false,
      totalCreditsUsed: 4,
      articlesCount: 1,
      categoriesCount: 3,
      createdAt: '2026-11-22T10:00:00.000Z',
    });
    expect(websiteRecordSchema.parse(website)).toEqual(website);
    const webhook = presentWebhook({
      accountId: 'a',
      webhookUuid: '0b7e4c1d-2f3a-4b5c-8d6e-7f8091a2b3c4',
      url: 'https://hooks.example.com/x',
      events: ['article.generated'],
      secretCiphertext: 'c2VjcmV0',
      createdAt: '2026-11-22T10:00:00.000Z',
    });
    expect(webhookSchema.parse(webhook)).toEqual(webhook);
    expect(JSON.stringify(webhook)).not.toContain('c2VjcmV0');
    expect(() =>
      websiteRecordSchema.parse({ ...website, status: { ...website.status, is_unreachable: 2 } }),
    ).toThrow();
  });
});
