/**
 * The request schemas are written with zod/mini, which loads no locale: a check without its
 * own message would answer a client with zod's bare "Invalid input". Whatever a client sends,
 * every message names its field in our words.
 */
import fc from 'fast-check';
import * as z from 'zod/mini';
import { createArticleSchema } from '../../../functions/core/articles/create-article-input';
import { ValidationError } from '../../../functions/core/errors';
import { pageSchema } from '../../../functions/core/page-query';
import { parseOrThrow } from '../../../functions/core/schema-helpers';
import { usageQuerySchema } from '../../../functions/core/usage';
import { createWebhookSchema } from '../../../functions/core/webhooks/create-webhook';
import { createWebsiteSchema } from '../../../functions/core/websites/create-website';
import { updateWebsiteSchema } from '../../../functions/core/websites/update-website';

// As in a function that loads nothing but zod/mini (another module may have set a locale here).
z.config({ localeError: undefined });

const schemas: [string, z.ZodMiniType, string[]][] = [
  [
    'article',
    createArticleSchema(),
    [
      'keyword',
      'h2_count',
      'ai_model',
      'language',
      'title',
      'need_bold',
      'website_uuid',
      'category_uuid',
      'publish_at',
      'draft',
      'faq_count',
      'tags',
      'auto_tags',
      'meta_description',
    ],
  ],
  ['website', createWebsiteSchema, ['url', 'login', 'password']],
  ['website update', updateWebsiteSchema, ['login', 'password']],
  ['webhook', createWebhookSchema, ['url', 'events']],
  ['usage query', usageQuerySchema, ['from', 'to']],
  ['page', pageSchema, ['page']],
];

/** Field values: anything JSON or a form can carry, biased to near misses. */
const value = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom('', ' ', '1', '0', 'true', 'gpt-4', 'en', '2026-01-01', 'https://example.com'),
  fc.string({ unit: 'grapheme', maxLength: 120 }),
  fc.array(fc.string(), { maxLength: 12 }),
);

describe.each(schemas)('the %s schema', (_name, schema, fields) => {
  it('answers any input with our own message, keyed by field', () => {
    fc.assert(
      fc.property(
        fc.record(Object.fromEntries(fields.map((field) => [field, value])), { requiredKeys: [] }),
        (input) => {
          try {
            parseOrThrow(schema, input);
          } catch (error) {
            expect(error).toBeInstanceOf(ValidationError);
            for (const [field, messages] of Object.entries((error as ValidationError).fieldErrors)) {
              // A list's item is keyed by its index (`events.0`).
              expect(fields).toContain(field.split('.')[0]);
              for (const message of messages) expect(message).toMatch(/^(The|Each) /);
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
