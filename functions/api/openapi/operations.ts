/**
 * What the OpenAPI document says about each route of the route table (by route name): the
 * request schemas are the ones the handlers validate with; the response schemas those of
 * `response-schemas.ts`. A route without an entry here makes the document fail to build.
 */
import { z } from 'zod';
import * as zm from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import { MAX_IMAGE_URL_LENGTH } from '../../core/articles/article-image-input';
import { MAX_INLINE_IMAGES } from '../../core/articles/article-images';
import { MAX_BATCH_ITEMS } from '../../core/articles/batch';
import { scheduleSchema } from '../../core/articles/batch-schedule';
import {
  createArticleFieldSchemas,
  createArticleSchema,
  MAX_INTERNAL_LINKS,
  MAX_KEYWORD_LENGTH,
  MAX_KEYWORDS,
  MAX_META_DESCRIPTION_LENGTH,
  MAX_TAG_LENGTH,
  MAX_TAGS,
  MAX_TITLE_LENGTH,
} from '../../core/articles/create-article-input';
import { approvalSchema, MAX_HEADING_LENGTH } from '../../core/articles/outline-review';
import { listLanguages } from '../../core/languages';
import { pageSchema } from '../../core/page-query';
import { AI_MODELS } from '../../core/pricing';
import { usageQuerySchema } from '../../core/usage';
import { createWebhookSchema } from '../../core/webhooks/create-webhook';
import { createWebsiteSchema } from '../../core/websites/create-website';
import {
  MAX_AUDIENCE_LENGTH,
  MAX_BANNED_PHRASE_LENGTH,
  MAX_BANNED_PHRASES,
  MAX_FACTS_LENGTH,
  MAX_VOICE_LENGTH,
  siteProfileSchema as siteProfileBodySchema,
} from '../../core/websites/site-profile';
import { MAX_SITE_URL_LENGTH } from '../../core/websites/site-url';
import { updateWebsiteSchema } from '../../core/websites/update-website';
import {
  accountSchema,
  articleQueuedSchema,
  articleRecordSchema,
  batchAcceptedSchema,
  batchSchema,
  batchShowSchema,
  categorySchema,
  connectionReportSchema,
  deliveryAttemptSchema,
  generatedArticleSchema,
  indexedWebsiteSchema,
  languagesSchema,
  messageSchema,
  paginated,
  queuedArticleSchema,
  refreshedIndexSchema,
  siteProfileSchema,
  usageSchema,
  webhookCreatedSchema,
  webhookListSchema,
  webhookRecordSchema,
  webhookSecretRotatedSchema,
  websiteRecordSchema,
} from './response-schemas';

export type Tag = 'Websites' | 'Articles' | 'Account' | 'Webhooks' | 'Reference';

export interface OperationSpec {
  summary: string;
  description?: string;
  tag: Tag;
  /** Request schemas: the handlers' own, written with zod/mini (any zod 4 schema works). */
  query?: $ZodType;
  body?: $ZodType;
  /** Takes the `Idempotency-Key` header. */
  idempotent?: boolean;
  /** Success responses: a JSON schema, or an HTML page. */
  responses: Record<number, { description: string; schema?: $ZodType; html?: boolean }>;
  /** Error statuses besides the ones every route of its kind has (401, 404, 422, ...). */
  errors?: Partial<Record<number, string>>;
  /** The body's schema per media type, when not `body` in each of the three form types. */
  bodyMediaTypes?: Partial<Record<'application/json' | 'multipart/form-data', $ZodType>>;
  /**
   * Prose (and value lists) for body fields, merged into what the body schema generates: the
   * schema decides which fields exist and their types, this only explains them.
   */
  fieldDocs?: Record<string, FieldDoc>;
}

export interface FieldDoc {
  description: string;
  enum?: readonly string[];
  format?: string;
  /** Limits the schema checks in code (a refinement) rather than in a form JSON Schema shows. */
  maxLength?: number;
  pattern?: string;
  /** For a field that may be sent as a list: its most items and their longest. */
  list?: { maxItems: number; itemMaxLength: number };
  /** Required by the schema, but a website profile's default may stand in: not required in the document. */
  profileDefault?: true;
}

const FORM_BOOLEAN = 'A boolean: true/false, 1/0, yes/no or on/off.';
const PROFILE_DEFAULT =
  'Required, unless website_uuid names a website whose profile has a default for it (PUT /v1/websites/{website_uuid}/profile).';

const websiteList = paginated(websiteRecordSchema, 'WebsiteList');
const categoryList = paginated(categorySchema, 'CategoryList');
const articleList = paginated(generatedArticleSchema, 'ArticleList');
const queueList = paginated(queuedArticleSchema, 'QueuedArticleList');
const deliveryList = paginated(deliveryAttemptSchema, 'DeliveryAttemptList');

const IDEMPOTENT_COPY_RUNNING =
  'A request with the same `Idempotency-Key` is still running: try again after `Retry-After` seconds.';

const batchList = paginated(batchSchema, 'BatchList');

const BATCH_PARTIAL = `Create the valid rows and list the others in \`rejected\`, instead of refusing the whole batch (also \`?partial=1\`). ${FORM_BOOLEAN}`;

/** A batch's body as JSON: the items (create bodies), batch-wide defaults, the calendar. */
function batchJsonBody() {
  // Strict, as the body is read: an unknown field is a 422 (a typo would otherwise be dropped).
  // A create field beside `items` is a default for every row, as a form part is with a CSV.
  return z.strictObject({
    ...zm.partial(createArticleFieldSchemas()).shape,
    items: z
      // Every field of an item may come from `defaults` (or the website profile's): none is required here.
      .array(zm.partial(createArticleFieldSchemas()))
      .min(1)
      .max(MAX_BATCH_ITEMS)
      .meta({
        description: `1 to ${MAX_BATCH_ITEMS} create bodies, each checked as POST /v1/articles/create checks one, with \`defaults\` (then the website profile's) for the fields it leaves out: no field is required of an item itself. An item's row is its index (from 0). A bare JSON array is this list alone.`,
      }),
    defaults: z.optional(
      z.record(z.string(), z.unknown()).meta({
        description:
          'Create fields for every item that leaves them out or empty (e.g. website_uuid, ai_model); a name that is no create field is a 422.',
      }),
    ),
    schedule: z.optional(scheduleSchema()).meta({
      description:
        'Spread publish_at over the items (each needs a website_uuid), in order: from `start` (YYYY-MM-DD) at `at` (local HH:MM) every `every` (1d, 12h, 2d, 1w...) in `timezone` (an IANA name like Europe/Paris, or a UTC offset like +02:00; left out: the time zone of the website, as its plugin reports it — a 422 when the website has not reported one or the items go to websites in different zones), on `weekdays` only (mon..sun) if given. Items with their own publish_at keep it and take no slot.',
    }),
    partial: z
      .optional(z.union([z.boolean(), z.literal([0, 1]), z.string()]))
      .meta({ description: BATCH_PARTIAL }),
  });
}

function batchMultipartBody() {
  return z.object({
    file: z.string().meta({
      format: 'binary',
      description:
        'A CSV (UTF-8, with or without a byte order mark; RFC 4180 quoting) whose header row names create fields; the header is row 1, the first item row 2.',
    }),
    partial: z.optional(z.string()).meta({ description: BATCH_PARTIAL }),
    'schedule[start]': z.optional(z.string()).meta({ description: 'The calendar, as in the JSON body.' }),
    'schedule[every]': z.optional(z.string()),
    'schedule[at]': z.optional(z.string()),
    'schedule[timezone]': z.optional(z.string()).meta({ description: "Left out: the website's time zone." }),
    'schedule[weekdays]': z.optional(z.string()),
  });
}

const onSite = {
  409: 'The site refused the stored login: `login_is_unauthorized` is set; update the credentials.',
  502: 'The site could not be reached or the plugin failed: `is_unreachable` may be set; try again later.',
};

export const operations: Record<string, OperationSpec> = {
  ListLanguages: {
    summary: 'List the supported languages',
    tag: 'Reference',
    responses: { 200: { description: 'Language codes and names.', schema: languagesSchema } },
  },
  ListWebsites: {
    summary: 'List websites',
    description: 'Newest first, 20 per page.',
    tag: 'Websites',
    query: pageSchema,
    responses: { 200: { description: 'One page of website records.', schema: websiteList } },
  },
  CreateWebsite: {
    summary: 'Register a WordPress website',
    description:
      'The site is checked through the Inkpress Connector plugin before anything is stored: reachable, plugin installed, login working, user with the Inkpress Editor role.',
    tag: 'Websites',
    body: createWebsiteSchema,
    fieldDocs: {
      url: { description: 'The site address (https when deployed).', maxLength: MAX_SITE_URL_LENGTH },
      login: {
        description:
          'Login of the WordPress user with the Inkpress Editor role, without `:` (HTTP Basic ends the login there). Login checks that may have failed are capped at 2 per account, site and user, and 3 per site and user across accounts, in 15 minutes; past that, a 422 on `login` without calling the site.',
      },
      password: {
        description: "That user's password or an application password; stored encrypted, never returned.",
      },
    },
    idempotent: true,
    responses: {
      201: {
        description:
          "The new website record, with its site index (built within the request's time; a large site's goes on at the next refresh).",
        schema: indexedWebsiteSchema,
      },
    },
    errors: { 409: IDEMPOTENT_COPY_RUNNING },
  },
  CheckWebsite: {
    summary: "Check a site's connection (the connection doctor)",
    description:
      'Probes the site as a website create would use it and says what is wrong, each problem with a fix for the site owner: DNS, TLS, timeouts, redirects, firewall challenge pages, a REST API turned off, the plugin missing or outdated, a stripped Authorization header, a refused or paused login (with an application password, a missing role or too much power). Nothing is stored or charged; a refused login counts toward the same cap of failed logins as a create.',
    tag: 'Websites',
    body: createWebsiteSchema,
    fieldDocs: {
      url: { description: 'The site address (https when deployed).', maxLength: MAX_SITE_URL_LENGTH },
      login: { description: 'Login of the WordPress user with the Inkpress Editor role.' },
      password: { description: "That user's password or an application password; never stored." },
    },
    responses: {
      200: {
        description: 'What the doctor found (`problems` is empty when nothing is wrong).',
        schema: connectionReportSchema,
      },
    },
  },
  ShowWebsite: {
    summary: 'Show a website',
    tag: 'Websites',
    responses: {
      200: { description: 'The website record, with its site index.', schema: indexedWebsiteSchema },
    },
  },
  UpdateWebsite: {
    summary: 'Send new credentials for a website',
    description: 'Checked through the plugin first; clears the flags and refreshes the categories.',
    tag: 'Websites',
    body: updateWebsiteSchema,
    responses: {
      200: {
        description: 'The website record, with its site index (as show).',
        schema: indexedWebsiteSchema,
      },
    },
  },
  SiteProfile: {
    summary: "Show (GET) or replace (PUT) a website's profile",
    description:
      "Voice, audience and facts go into the prompts of the website's articles; a banned phrase never reaches a post (asked for once more, then rewritten out, with a `banned_phrase_removed:<phrase>` quality warning); `defaults` are create options a create of this website takes when it omits them (checked as the create checks them; the price follows). A PUT replaces the whole profile. Articles keep the profile they were created with.",
    tag: 'Websites',
    body: siteProfileBodySchema(),
    fieldDocs: {
      voice: {
        description: `How the site writes, at most ${MAX_VOICE_LENGTH} characters.`,
        maxLength: MAX_VOICE_LENGTH,
      },
      audience: {
        description: `Who the site writes for, at most ${MAX_AUDIENCE_LENGTH} characters.`,
        maxLength: MAX_AUDIENCE_LENGTH,
      },
      facts: {
        description: `Product names, prices, claims the site stands behind (at most ${MAX_FACTS_LENGTH} characters; lines kept). Given to the model as data, never as instructions.`,
        maxLength: MAX_FACTS_LENGTH,
      },
      banned_phrases: {
        description: `Up to ${MAX_BANNED_PHRASES} phrases (each at most ${MAX_BANNED_PHRASE_LENGTH} characters): a list, repeated form fields, or one per line. Matched ignoring case, as whole words.`,
        list: { maxItems: MAX_BANNED_PHRASES, itemMaxLength: MAX_BANNED_PHRASE_LENGTH },
      },
      defaults: {
        description:
          'An object of create options (any but keyword and website_uuid), e.g. {"h2_count": 4, "need_bold": 1}; in a form, `defaults[h2_count]=4` fields or the object as JSON text.',
      },
    },
    responses: { 200: { description: 'The profile.', schema: siteProfileSchema } },
  },
  DeleteWebsite: {
    summary: 'Delete a website',
    description: 'Its articles are kept (their `website` becomes null).',
    tag: 'Websites',
    responses: { 200: { description: 'Confirmation naming the URL.', schema: messageSchema } },
  },
  ListCategories: {
    summary: "List a website's categories",
    tag: 'Websites',
    query: pageSchema,
    responses: { 200: { description: 'One page of categories, by name.', schema: categoryList } },
  },
  RefreshCategories: {
    summary: "Read a website's categories from the site now",
    description:
      'Runs the health check: login, role and categories. A failing site is flagged. While the login is flagged as refused, the site is not called (409): send the credentials with the update operation.',
    tag: 'Websites',
    responses: {
      200: {
        description: 'The website record with the new `categories_count`.',
        schema: websiteRecordSchema,
      },
    },
    errors: onSite,
  },
  RefreshSiteIndex: {
    summary: "Refresh a website's site index now",
    description:
      "Reads what changed on the site since the last refresh (the site's published posts and pages, through the plugin's `GET inkpress/v1/index`, plugin 1.5). A generation that needs the index refreshes it itself when it is older than an hour. While the login is flagged as refused, the site is not called (409).",
    tag: 'Websites',
    responses: {
      200: { description: 'The website record with its site index.', schema: refreshedIndexSchema },
    },
    errors: onSite,
  },
  ListArticles: {
    summary: 'List generated articles',
    description: 'Newest first, 20 per page.',
    tag: 'Articles',
    query: pageSchema,
    responses: { 200: { description: 'One page of generated articles.', schema: articleList } },
  },
  ListQueuedArticles: {
    summary: 'List articles not generated yet',
    description:
      'The page may also be sent as form data with POST (in the query string or the body, not both).',
    tag: 'Articles',
    query: pageSchema,
    body: pageSchema,
    responses: { 200: { description: 'One page of queued articles (status `pending`).', schema: queueList } },
  },
  ShowArticle: {
    summary: 'Show an article',
    tag: 'Articles',
    responses: { 200: { description: 'The article, generated or not yet.', schema: articleRecordSchema } },
  },
  CreateArticle: {
    summary: 'Queue an article for generation',
    description:
      'Credits and a slot of the daily limit are reserved now; the article is generated within minutes.',
    tag: 'Articles',
    body: createArticleSchema(),
    fieldDocs: {
      keyword: {
        description: `A keyword, a sentence, or up to ${MAX_KEYWORDS} comma-separated keywords (each at most ${MAX_KEYWORD_LENGTH} characters); plain text.`,
        pattern: `^[^,]*(,[^,]*){0,${MAX_KEYWORDS - 1}}$`,
      },
      h2_count: {
        description: `Number of H2 sections, 1-10; each costs credits. ${PROFILE_DEFAULT}`,
        profileDefault: true,
      },
      ai_model: {
        description: `The model tier; sets the price. ${PROFILE_DEFAULT}`,
        enum: AI_MODELS,
        profileDefault: true,
      },
      language: {
        description: `Language code (GET /v1/languages). ${PROFILE_DEFAULT}`,
        enum: listLanguages().map((language) => language.code),
        profileDefault: true,
      },
      title: {
        description: `At most ${MAX_TITLE_LENGTH} characters; generated when left out.`,
        maxLength: MAX_TITLE_LENGTH,
      },
      need_bold: { description: `Bold the key phrases (1 more credit). ${FORM_BOOLEAN}` },
      website_uuid: { description: 'Publish to this website of yours.', format: 'uuid' },
      category_uuid: { description: 'A category of that website (with website_uuid only).', format: 'uuid' },
      publish_at: {
        description:
          'ISO 8601 date-time to publish at (with website_uuid only), before 9999-12-31T00:00:00Z; in the past: at once.',
        format: 'date-time',
      },
      draft: { description: `Publish as a draft (with website_uuid only). ${FORM_BOOLEAN}` },
      faq_count: { description: 'Questions in an FAQ section, 0-10.' },
      tags: {
        description: `Up to ${MAX_TAGS} tags (each at most ${MAX_TAG_LENGTH} characters), a list or comma-separated text.`,
        list: { maxItems: MAX_TAGS, itemMaxLength: MAX_TAG_LENGTH },
      },
      auto_tags: { description: `Let the model add tags. ${FORM_BOOLEAN}` },
      outline_review: {
        description: `Stop after the outline (status \`outline_ready\`, webhook \`article.outline_ready\`) until it is approved with POST /v1/articles/{uuid}/outline; charged as usual, refunded if cancelled or not approved within 7 days. ${FORM_BOOLEAN}`,
      },
      meta_description: {
        description: `Your own meta description (at most ${MAX_META_DESCRIPTION_LENGTH} characters); written by the model when left out.`,
        maxLength: MAX_META_DESCRIPTION_LENGTH,
      },
      internal_links: {
        description: `Links to the website's own posts to place in the article, 0-${MAX_INTERNAL_LINKS}: 3 by default with website_uuid, 0 without (more than 0 without website_uuid is a 422). Chosen from the website's site index by code; see article show's internal_links.`,
      },
      allow_same_topic: {
        description: `Write the article even though the website already has a post with the same focus keyword or a near-identical title (otherwise a 409 naming it). With website_uuid only. ${FORM_BOOLEAN}`,
      },
      featured_image: {
        description:
          '`none` (default), `generate` (the Images API; 2 credits) or the https:// URL of your image (JPEG, PNG, WebP or GIF, at most 10 MB; 1 credit). An image that cannot be had is left out and its credits come back.',
        maxLength: MAX_IMAGE_URL_LENGTH,
      },
      inline_images: {
        description: `Generated images after chosen H2 sections, 0-${MAX_INLINE_IMAGES} and at most h2_count; 2 credits each.`,
      },
    },
    idempotent: true,
    responses: { 202: { description: 'Queued.', schema: articleQueuedSchema } },
    errors: {
      409: `${IDEMPOTENT_COPY_RUNNING} Or: the website already has a post on this topic (same focus keyword, compared without case or accents, or a near-identical title): the body's \`existing_post\` ({id, url, title}) names it and nothing is charged; send allow_same_topic=1 to write it anyway.`,
    },
  },
  RetryArticle: {
    summary: 'Retry a failed generation or publication',
    tag: 'Articles',
    responses: { 202: { description: 'The article record.', schema: articleRecordSchema } },
    errors: { 409: 'The article is not in a state that can be retried.' },
  },
  ApproveOutline: {
    summary: 'Approve the outline of an article in outline_ready',
    description:
      'The article (created with `outline_review=1`) is generated with exactly this title and these headings: queued again at once. Sending the same approval again answers the article as it is.',
    tag: 'Articles',
    body: approvalSchema(),
    fieldDocs: {
      title: {
        description: `The article's title, plain text, at most ${MAX_TITLE_LENGTH} characters.`,
        maxLength: MAX_TITLE_LENGTH,
      },
      headings: {
        description: `Exactly h2_count headings (plain text, each at most ${MAX_HEADING_LENGTH} characters): a list, repeated form fields, or one per line. None may use a banned phrase of the website's profile.`,
        list: { maxItems: 10, itemMaxLength: MAX_HEADING_LENGTH },
      },
    },
    responses: {
      202: { description: 'The article record (status `in_progress`).', schema: articleRecordSchema },
    },
    errors: { 409: 'The article has no outline waiting for approval (not `outline_ready`).' },
  },
  CancelArticle: {
    summary: 'Cancel an article whose generation has not started',
    tag: 'Articles',
    responses: {
      200: { description: 'The article record (status `cancelled`).', schema: articleRecordSchema },
    },
    description:
      'Also an article in `outline_ready` (its outline waiting for approval). The credits it holds come back once.',
    errors: { 409: 'Generation has started (or the article is done).' },
  },
  ShowAccount: {
    summary: 'Show the account: credits and daily limit',
    tag: 'Account',
    responses: { 200: { description: "Balance, daily limit and today's starts.", schema: accountSchema } },
  },
  AccountUsage: {
    summary: 'Articles generated and credits used per day',
    description: 'At most 366 days; the last 30 days by default.',
    tag: 'Account',
    query: usageQuerySchema,
    responses: { 200: { description: 'Usage per UTC day, in total and per website.', schema: usageSchema } },
  },
  CreateWebhook: {
    summary: 'Create a webhook endpoint',
    description:
      'Events are POSTed as `{"type","timestamp","data"}`, signed by the Standard Webhooks specification with the returned secret. At most 10 per account.',
    tag: 'Webhooks',
    body: createWebhookSchema,
    responses: {
      201: {
        description: 'The endpoint and its signing secret (shown only here).',
        schema: webhookCreatedSchema,
      },
    },
    errors: { 409: 'The account has 10 webhooks already.' },
  },
  ListWebhooks: {
    summary: 'List webhook endpoints',
    tag: 'Webhooks',
    responses: {
      200: { description: 'Every endpoint of the account, newest first.', schema: webhookListSchema },
    },
  },
  ShowWebhook: {
    summary: 'Show a webhook endpoint',
    tag: 'Webhooks',
    responses: { 200: { description: 'The endpoint (without its secret).', schema: webhookRecordSchema } },
  },
  DeleteWebhook: {
    summary: 'Delete a webhook endpoint',
    tag: 'Webhooks',
    responses: { 200: { description: 'Confirmation naming the URL.', schema: messageSchema } },
  },
  EnableWebhook: {
    summary: 'Enable a disabled webhook endpoint',
    description:
      'Events are sent to it again from now on; events that happened while it was disabled are not sent. An enabled endpoint is answered as it is.',
    tag: 'Webhooks',
    responses: { 200: { description: 'The endpoint, enabled.', schema: webhookRecordSchema } },
  },
  RotateWebhookSecret: {
    summary: 'Rotate the signing secret of a webhook endpoint',
    description:
      'A new secret, shown only in this answer. For 24 hours each delivery carries two signatures in `webhook-signature` (space-separated, one per secret), then only the new one.',
    tag: 'Webhooks',
    responses: {
      200: { description: 'The endpoint with its new secret.', schema: webhookSecretRotatedSchema },
    },
  },
  CreateBatch: {
    summary: 'Queue up to 500 articles in one request (JSON or a CSV upload)',
    description:
      'Every row is checked as a single create is; by default one bad row refuses the batch (422 listing each row and field), `partial=1` accepts the valid rows. Credits for every accepted item are reserved in one step; the daily limit defers items as it does single creates. Other form parts of a CSV upload are defaults for every row (create fields only: another name is a 422).',
    tag: 'Articles',
    body: batchJsonBody(),
    bodyMediaTypes: { 'application/json': batchJsonBody(), 'multipart/form-data': batchMultipartBody() },
    idempotent: true,
    responses: { 202: { description: 'The batch and each accepted item.', schema: batchAcceptedSchema } },
    errors: {
      409: IDEMPOTENT_COPY_RUNNING,
      413: 'The body is larger than 2 MiB.',
      415: 'The content type is not application/json or multipart/form-data.',
    },
  },
  ListBatches: {
    summary: 'List batches',
    description: 'Newest first, 20 per page.',
    tag: 'Articles',
    query: pageSchema,
    responses: { 200: { description: 'One page of batches.', schema: batchList } },
  },
  ShowBatch: {
    summary: 'Show a batch: counts per status and its items, page by page',
    description: 'Items in order, 20 per page (`page`), each with its article, status and publish_at.',
    tag: 'Articles',
    query: pageSchema,
    responses: { 200: { description: 'The batch and one page of its items.', schema: batchShowSchema } },
  },
  ListWebhookDeliveries: {
    summary: 'Recent delivery attempts of an endpoint',
    description: 'Newest first, 20 per page, kept 30 days.',
    tag: 'Webhooks',
    query: pageSchema,
    responses: { 200: { description: 'One page of attempts.', schema: deliveryList } },
  },
  OpenApiDocument: {
    summary: 'This OpenAPI document',
    description: 'No token needed.',
    tag: 'Reference',
    responses: {
      200: { description: 'The OpenAPI 3.1 document of the API.', schema: z.record(z.string(), z.unknown()) },
    },
  },
  DocsPage: {
    summary: 'The API reference page',
    description: 'An HTML page rendering this document. No token needed.',
    tag: 'Reference',
    responses: { 200: { description: 'HTML.', html: true } },
  },
};
