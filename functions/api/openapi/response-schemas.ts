/**
 * The shapes of every response body, as zod schemas, for the OpenAPI document. The presenters
 * are pinned to them at compile time (test/unit/api/openapi-shapes.test.ts) and real responses
 * are validated against the generated document (test/integration/openapi.test.ts).
 */
import { z } from 'zod';
import { BATCH_ITEM_STATUSES, type BatchItemStatus } from '../../core/articles/batch';
import { AI_MODELS } from '../../core/pricing';
import { WEBHOOK_EVENT_TYPES } from '../../core/webhooks/webhook';
import { PROBLEM_CODES } from '../../core/websites/diagnose-connection';

const bit = z.literal([0, 1]).meta({ description: 'A boolean written as 0 or 1.' });
const wireTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
  .meta({ description: 'UTC time, `YYYY-MM-DD HH:MM:SS`.', example: '2026-11-22 10:00:00' });
/** The time an article is to go live on its website (create's publish_at, or its batch's calendar). */
const PUBLISH_AT = wireTime.nullable().meta({
  description:
    "When it is to go live on its website: the create's `publish_at` or its batch's calendar; null without one (live once generated) or without a website.",
});
const uuid = z.string().meta({ format: 'uuid', example: '6f1c2a9e-8b3d-4c5e-9a7f-1e2d3c4b5a69' });

export const errorSchema = z
  .object({
    message: z.string(),
    hint: z
      .string()
      .optional()
      .meta({ description: 'Only on 401: what is wrong with the Authorization header.' }),
    request_id: z
      .string()
      .optional()
      .meta({ description: 'Only on 500: quote it when reporting the problem.' }),
  })
  .meta({ id: 'Error', description: 'Every error is JSON with a message.' });

export const problemSchema = z
  .object({
    code: z.enum(PROBLEM_CODES),
    message: z.string().meta({ description: 'What the probe saw.' }),
    fix: z.string().meta({ description: 'One sentence the site owner can act on.' }),
  })
  .meta({
    id: 'ConnectionProblem',
    description:
      'One thing the connection doctor found wrong with a site (docs/api-contract.md lists the codes).',
  });

export const connectionReportSchema = z
  .object({
    data: z.object({
      url: z.string().meta({ description: 'The address as Inkpress would register it.' }),
      connected: bit.meta({
        description:
          '1 when Inkpress logged in through the plugin and read the categories: a create with these credentials would work.',
      }),
      plugin_version: z
        .string()
        .nullable()
        .meta({ description: "The plugin's version, when the site told it." }),
      problems: z.array(problemSchema),
    }),
  })
  .meta({ id: 'ConnectionReport' });

const rejectedRowSchema = z
  .object({
    row: z.int().meta({
      description:
        'The row as in the file: in a CSV the header is row 1; in JSON the index in `items`, from 0.',
    }),
    errors: z.record(z.string(), z.array(z.string())).meta({ description: 'Messages by create field.' }),
  })
  .meta({ id: 'RejectedRow' });

export const validationErrorSchema = z
  .object({
    message: z.string().meta({ description: 'The first field message.' }),
    errors: z.record(z.string(), z.array(z.string())).meta({ description: 'Messages by field name.' }),
    problems: z.array(problemSchema).optional().meta({
      description: 'Website create and update, when the site check failed: what the connection doctor found.',
    }),
    rows: z.array(rejectedRowSchema).optional().meta({
      description: 'A batch: each bad row, named as in the file, with its messages by field.',
    }),
  })
  .meta({ id: 'ValidationError', description: 'Invalid input; nothing was stored or charged.' });

export const messageSchema = z.object({ message: z.string() }).meta({ id: 'Message' });

export const websiteDataSchema = z
  .object({
    uuid,
    url: z.string(),
    total_credits_used: z.int(),
    articles_count: z.int(),
    categories_count: z.int(),
    created_at: wireTime.nullable(),
    timezone: z.string().nullable().meta({
      description:
        "The site's time zone as its plugin reports it (an IANA name like Europe/Paris, or a UTC offset like +02:00 for a site set to a manual offset), read at registration, update and each health check; null when the site reported none or an invalid one. A batch schedule without a timezone uses it.",
    }),
  })
  .meta({ id: 'WebsiteData' });

export const websiteRecordSchema = z
  .object({
    data: websiteDataSchema,
    status: z.object({ login_is_unauthorized: bit, is_unreachable: bit }),
  })
  .meta({ id: 'Website' });

export const siteProfileSchema = z
  .object({
    data: z.object({
      website_uuid: uuid,
      voice: z.string(),
      audience: z.string(),
      facts: z.string(),
      banned_phrases: z.array(z.string()),
      defaults: z.record(z.string(), z.unknown()).meta({
        description:
          'Create options (as the create parses them; booleans 0/1) that a create of this website takes when it omits them.',
      }),
      updated_at: wireTime.nullable(),
    }),
  })
  .meta({ id: 'SiteProfile' });

export const indexedWebsiteSchema = z
  .object({
    data: websiteDataSchema.extend({
      posts_indexed: z.int().meta({ description: "Published posts and pages in the website's site index." }),
      indexed_at: wireTime
        .nullable()
        .meta({ description: 'Last refresh of the site index; null before the first.' }),
      index_supported: bit.meta({
        description:
          "0 when the site's plugin is older than 1.5 (no index): internal links and the topic check are skipped.",
      }),
    }),
    status: z.object({ login_is_unauthorized: bit, is_unreachable: bit }),
  })
  .meta({
    id: 'IndexedWebsite',
    description:
      'The website record with its site index (show, create, update, index refresh, website events).',
  });

export const refreshedIndexSchema = z
  .object({
    data: indexedWebsiteSchema.shape.data.extend({
      index_complete: bit.meta({
        description:
          "0 when a large site's first build took the request's time: the next refresh or generation goes on.",
      }),
    }),
    status: z.object({ login_is_unauthorized: bit, is_unreachable: bit }),
  })
  .meta({ id: 'RefreshedIndex' });

export const categorySchema = z
  .object({ uuid, name: z.string(), slug: z.string(), cms_id: z.string() })
  .meta({ id: 'Category' });

const publicationSiteSchema = z
  .object({
    post_id: z.string(),
    link: z.string(),
    status: z.string(),
    blocks: z.int(),
    freeform_blocks: z.int(),
    tags: z.array(z.string()),
    excerpt: bit,
    seo: z.object({
      adapter: z.string(),
      meta_description: bit,
      focus_keyword: bit,
      title: bit.meta({
        description:
          'The SEO plugin kept the SEO title Inkpress sent (the article title, at most 60 characters); 0 with no SEO plugin (WordPress prints the post title) or a plugin before 1.5.1.',
      }),
    }),
    schema: z.object({ printed_by: z.string().nullable(), types: z.array(z.string()) }),
    faq_questions: z.int(),
    external_links_kept: z.int().meta({
      description: 'External links that answered when the post was sent (checked through the SSRF guard).',
    }),
    external_links_dropped: z.int().meta({
      description: 'External links that answered 4xx/5xx or not at all: the link removed, its text kept.',
    }),
    internal_links_kept: z
      .int()
      .meta({ description: 'Internal links the plugin (1.5) kept when it wrote the post.' }),
    internal_links_dropped: z.int().meta({
      description: 'Internal links to posts no longer published, removed by the plugin (text kept).',
    }),
    featured_media_id: z.string().nullable().meta({
      description: "The post's featured image in the Media Library (attachment id); null without one.",
    }),
    images_uploaded: z.int().meta({ description: "The article's images in the site's Media Library." }),
  })
  .nullable()
  .meta({ id: 'PublicationSite', description: 'What the site kept of the post; null until published.' });

const publicationSchema = z
  .object({
    state: z.enum(['waiting', 'scheduled', 'published', 'failed']),
    attempts: z.int().meta({
      description:
        'Failed attempts so far: 0 for a post published at the first try; a retry starts again at 0.',
    }),
    last_error: z.string().nullable(),
    next_attempt_at: wireTime.nullable(),
    site: publicationSiteSchema,
  })
  .nullable()
  .meta({
    id: 'Publication',
    description: 'Where the post stands on its website; null without a website or once cancelled.',
  });

const sourceSchema = z
  .object({
    url: z.string(),
    title: z.string().nullable(),
    used: bit.meta({ description: '1 when the article cites it (it is in the sources section).' }),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why the source could not be fetched; null when it was.' }),
  })
  .meta({ id: 'ArticleSource' });
const storedImage = {
  url: z.string().nullable().meta({
    description:
      'A presigned link to the stored image, valid one hour; the Media Library URL once published.',
  }),
  alt: z.string().meta({ description: "Alt text in the article's language, at most 125 characters." }),
  width: z.int(),
  height: z.int(),
  mime_type: z.enum(['image/webp', 'image/jpeg']),
  bytes: z.int(),
  source: z.enum(['generated', 'placeholder', 'url']).meta({
    description: '`generated` by the Images API, `placeholder` by the offline writer, `url` from yours.',
  }),
};

const featuredImageSchema = z
  .object(storedImage)
  .nullable()
  .meta({ id: 'FeaturedImage', description: 'null without one (none asked, or it could not be had).' });

const inlineImageSchema = z
  .object({
    ...storedImage,
    after_section: z.int().meta({ description: 'The H2 section (1-based) the image follows.' }),
  })
  .meta({ id: 'InlineImage' });

const linked = {
  website: websiteDataSchema.nullable(),
  category: categorySchema.nullable(),
  publication: publicationSchema,
};

export const generatedArticleSchema = z
  .object({
    data: z.object({
      uuid,
      title: z.string(),
      content: z.string().meta({
        description:
          'HTML. Once published, without the internal links the site dropped (their text kept; plugin 1.5.2+).',
      }),
      language: z.string(),
      slug: z.string().nullable(),
      status: bit.meta({ description: '1: (to be) published live on its website; 0: draft or no website.' }),
      cms_id: z.string().nullable(),
      cms_permalink: z.string().nullable(),
      credits_used: z.int(),
      ai_model: z.enum(AI_MODELS),
      total_words: z.int(),
      created_at: wireTime.nullable(),
      published_at: wireTime.nullable(),
      publish_at: PUBLISH_AT,
      meta_description: z.string().nullable(),
      excerpt: z.string().nullable(),
      focus_keyword: z.string(),
      faq: z.array(z.object({ question: z.string(), answer: z.string() })),
      tags: z.array(z.string()),
      internal_links: z.array(z.object({ url: z.string(), post_id: z.string(), anchor: z.string() })).meta({
        description:
          "Links placed to the website's own posts, in reading order: exactly the links of `content`. Once published, those the site dropped (target no longer published) are left out (plugin 1.5.2+, which names them; with 1.5.0-1.5.1 only `publication.site.internal_links_dropped` counts them).",
      }),
      quality_warnings: z.array(
        z.union([
          z.enum([
            'keyword_missing_in_title',
            'keyword_missing_in_first_paragraph',
            'keyword_missing_in_meta_description',
            'keyword_missing_in_h2',
            'meta_description_too_short',
            'no_source_fetched',
            'site_index_unavailable',
            'same_topic_exists',
            'internal_links_fewer_than_requested',
            'featured_image_unavailable',
            'inline_image_unavailable',
          ]),
          z.templateLiteral(['banned_phrase_removed:', z.string()]).meta({
            description:
              "A banned phrase of the website's profile the model used even when asked again: rewritten out of its sentence; the text after the colon is the phrase.",
          }),
        ]),
      ),
      sources: z.array(sourceSchema).meta({
        description:
          'The sources given or found (`research=web`), fetched or not, and whether the article cites them.',
      }),
      external_links_removed: z.int().meta({
        description: 'Links the model wrote to no fetched source: removed, their text kept.',
      }),
      featured_image: featuredImageSchema,
      images: z.array(inlineImageSchema),
      ...linked,
    }),
    status: z.literal('generated'),
  })
  .meta({ id: 'GeneratedArticle' });

export const queuedArticleSchema = z
  .object({
    data: z.object({
      uuid,
      keyword: z.string(),
      title: z.string().nullable(),
      language: z.string(),
      slug: z.string().nullable(),
      status: bit,
      h2_count: z.int(),
      need_bold: bit,
      estimated_credits: z.int(),
      not_enough_credits: bit,
      generation_error: bit,
      daily_limit_reached: bit,
      start_generation_at: wireTime.nullable(),
      publish_at: PUBLISH_AT,
      faq_count: z.int(),
      tags: z.array(z.string()),
      auto_tags: bit,
      meta_description: z.string().nullable(),
      sources: z.array(sourceSchema),
      research: z.enum(['none', 'web']),
      require_sources: bit,
      outline_review: bit.meta({
        description: 'Created with `outline_review`: generation stops after the outline.',
      }),
      outline: z
        .object({
          title: z.string(),
          headings: z.array(z.string()),
          approved: bit,
          expires_at: wireTime.nullable().meta({
            description: 'While `outline_ready`: when the outline, not approved, is cancelled and refunded.',
          }),
        })
        .nullable()
        .meta({
          id: 'Outline',
          description:
            'With `outline_review`: the outline to approve (status `outline_ready`), then the approved one; null before.',
        }),
      featured_image: z.string().meta({ description: '`none`, `generate` or the URL given.' }),
      inline_images: z.int(),
      ...linked,
    }),
    status: z
      .enum([
        'pending',
        'in_progress',
        'not_enough_credits',
        'daily_limit_reached',
        'error',
        'cancelled',
        'outline_ready',
      ])
      .meta({ description: '`pending` in the queue listing; the generation status in `show`.' }),
  })
  .meta({ id: 'QueuedArticle' });

export const articleRecordSchema = z
  .union([generatedArticleSchema, queuedArticleSchema])
  .meta({ id: 'Article', description: 'A generated article, or one not generated yet.' });

/** SPEC.md's list envelope around `item`. */
export function paginated<T extends z.ZodType>(item: T, id: string) {
  const link = z.string().nullable();
  return z
    .object({
      data: z.array(item),
      links: z.object({ first: z.string(), last: link, prev: link, next: link }),
      meta: z.object({
        current_page: z.int(),
        from: z.int().nullable(),
        path: z.string(),
        per_page: z.int(),
        to: z.int().nullable(),
        last_page: z.int().optional(),
        total: z.int().optional(),
      }),
    })
    .meta({ id });
}

export const languagesSchema = z
  .object({ data: z.array(z.object({ code: z.string(), name: z.string() })) })
  .meta({ id: 'Languages' });

export const articleQueuedSchema = z
  .object({
    article_uuid: uuid,
    article_url: z.string().meta({ description: 'The show URL of the article.' }),
    info: z.string(),
  })
  .meta({ id: 'ArticleQueued' });

export const accountSchema = z
  .object({
    data: z.object({
      name: z.string(),
      credits: z.int().meta({ description: 'Credit balance.' }),
      daily_limit: z.int(),
      articles_started_today: z
        .int()
        .meta({ description: 'Generations started today (UTC), counted against the daily limit.' }),
      daily_remaining: z.int(),
      day_resets_at: wireTime
        .nullable()
        .meta({ description: 'Next UTC midnight, when the daily count restarts.' }),
    }),
  })
  .meta({ id: 'Account' });

const usageFigures = { articles_generated: z.int(), credits_used: z.int() };

export const usageSchema = z
  .object({
    data: z.object({
      from: z.string().meta({ format: 'date' }),
      to: z.string().meta({ format: 'date' }),
      ...usageFigures,
      days: z.array(
        z.object({
          date: z.string().meta({ format: 'date' }),
          ...usageFigures,
          websites: z.array(z.object({ website_uuid: uuid, ...usageFigures })),
        }),
      ),
    }),
  })
  .meta({ id: 'Usage', description: 'Articles generated and credits used per UTC day of generation.' });

const webhookFields = {
  uuid,
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  status: z.enum(['enabled', 'disabled']).meta({
    description:
      'disabled: nothing is sent (the receiver answered 410, or every attempt failed for 5 days); `enable` resumes.',
  }),
  disabled_reason: z.string().nullable(),
  disabled_at: wireTime.nullable().meta({ description: 'When it was disabled; null while enabled.' }),
  created_at: wireTime.nullable(),
};

export const webhookSchema = z.object(webhookFields).meta({ id: 'Webhook' });
export const webhookRecordSchema = z.object({ data: webhookSchema }).meta({ id: 'WebhookRecord' });
export const webhookListSchema = z.object({ data: z.array(webhookSchema) }).meta({ id: 'WebhookList' });
export const webhookCreatedSchema = z
  .object({
    data: z.object({
      ...webhookFields,
      secret: z
        .string()
        .regex(/^whsec_/)
        .meta({ description: 'The signing secret, shown only here: keep it to verify the signatures.' }),
    }),
  })
  .meta({ id: 'WebhookCreated' });
export const webhookSecretRotatedSchema = z
  .object({
    data: z.object({
      ...webhookFields,
      secret: z
        .string()
        .regex(/^whsec_/)
        .meta({ description: 'The new signing secret, shown only here.' }),
      previous_secret_expires_at: wireTime.nullable().meta({
        description:
          'Until then deliveries carry a signature with each secret (space-separated in `webhook-signature`); then with the new one only.',
      }),
    }),
  })
  .meta({ id: 'WebhookSecretRotated' });

export const deliveryAttemptSchema = z
  .object({
    webhook_id: z.string().meta({ description: 'The `webhook-id` header: the same on every retry.' }),
    event: z.enum(WEBHOOK_EVENT_TYPES),
    attempt: z.int(),
    status_code: z.int().nullable(),
    error: z.string().nullable(),
    result: z.enum(['succeeded', 'retrying', 'failed']),
    attempted_at: wireTime.nullable(),
    next_attempt_at: wireTime.nullable(),
  })
  .meta({ id: 'DeliveryAttempt' });

const batchItemStatus = z.enum(BATCH_ITEM_STATUSES as [BatchItemStatus, ...BatchItemStatus[]]).meta({
  description:
    "The item's article: its generation state, and for a generated article with a website its publication (`publishing`, `published` (live, scheduled or a draft), `publish_failed`).",
});

const batchScheduleSchema = z
  .object({
    start: z.string(),
    every: z.string(),
    at: z.string(),
    timezone: z.string().meta({
      description: "The time zone the calendar was computed in: the schedule's, or else the website's.",
    }),
    weekdays: z.array(z.string()).nullable(),
  })
  .nullable();

const batchFields = {
  uuid,
  status: z.enum(['in_progress', 'completed']).meta({
    description: '`completed` once every item is final (`batch.completed` was sent).',
  }),
  created_at: wireTime,
  completed_at: wireTime.nullable(),
  items_count: z.int().meta({ description: 'Items accepted (rejected rows not counted).' }),
  credits_reserved: z.int().meta({ description: 'Credits reserved at acceptance, in one step.' }),
  schedule: batchScheduleSchema,
  rejected: z.array(rejectedRowSchema).meta({ description: 'Rows refused (with `partial=1`).' }),
};

export const batchSchema = z.object(batchFields).meta({ id: 'Batch' });

export const batchItemSchema = z
  .object({
    row: z.int(),
    article_uuid: uuid,
    article_url: z.string(),
    status: batchItemStatus,
    publish_at: wireTime.nullable().meta({ description: 'When the post goes live (UTC), if set.' }),
  })
  .meta({ id: 'BatchItem' });

const batchCountsSchema = z
  .object(
    Object.fromEntries(BATCH_ITEM_STATUSES.map((status) => [status, z.int()])) as Record<
      BatchItemStatus,
      z.ZodInt
    >,
  )
  .meta({ id: 'BatchCounts', description: 'Items per status.' });

/** The batch with its counts: `batch.completed`'s `data`. */
export const batchWithCountsSchema = z
  .object({ ...batchFields, counts: batchCountsSchema })
  .meta({ id: 'BatchWithCounts' });

export const batchShowSchema = z
  .object({
    data: z.object({ ...batchFields, counts: batchCountsSchema, items: z.array(batchItemSchema) }),
    links: z.object({
      first: z.string(),
      last: z.string().nullable(),
      prev: z.string().nullable(),
      next: z.string().nullable(),
    }),
    meta: z.object({
      current_page: z.int(),
      from: z.int().nullable(),
      path: z.string(),
      per_page: z.int(),
      to: z.int().nullable(),
      last_page: z.int().optional(),
      total: z.int().optional(),
    }),
  })
  .meta({ id: 'BatchShow', description: '`links` and `meta` page through `data.items`, 20 per page.' });

export const batchAcceptedSchema = z
  .object({
    batch_uuid: uuid,
    batch_url: z.string().meta({ description: 'GET it for counts and items.' }),
    info: z.string(),
    items_count: z.int(),
    credits_reserved: z.int(),
    schedule: batchScheduleSchema,
    rejected: z.array(rejectedRowSchema),
    items: z.array(batchItemSchema).meta({ description: 'Every accepted item, in order.' }),
  })
  .meta({ id: 'BatchAccepted' });
