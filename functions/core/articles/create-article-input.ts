/** The input of `POST /v1/articles/create`, with every rule of docs/api-contract.md. */
import * as z from 'zod/mini';
import { isSupportedLanguage } from '../languages';
import { AI_MODELS } from '../pricing';
import {
  formBoolean,
  formInteger,
  formPlainText,
  formText,
  optionalField,
  preprocess,
} from '../schema-helpers';
import { sourcesField } from '../sources/source-urls';
import { safeText } from '../text';
import { UndecodableText } from '../undecodable-text';
import { featuredImageField, inlineImagesField } from './article-image-input';
import { sameTag } from './article-seo';

export const MAX_KEYWORDS = 5;
export const MAX_H2_COUNT = 10;
export const MAX_KEYWORD_LENGTH = 100;
export const MAX_TITLE_LENGTH = 200;
export const MAX_FAQ_COUNT = 10;
export const MAX_TAGS = 10;
export const MAX_TAG_LENGTH = 50;
export const MAX_META_DESCRIPTION_LENGTH = 160;
export const MAX_INTERNAL_LINKS = 10;
/** publish_at must be before it (WordPress stores local dates of years up to 9999): a create's and a calendar's. */
export const LATEST_PUBLISH_AT = '9999-12-31T00:00:00Z';
const LATEST_PUBLISH_AT_MS = Date.parse(LATEST_PUBLISH_AT);

/** Characters as readers (and JSON Schema's `maxLength`) count them: code points, an emoji is one. */
const characterCount = (text: string) => [...text].length;

/** Plain text (markup dropped, entities decoded once; see `formPlainText`), not empty. */
const requiredText = (label: string, options: { lineBreaks?: boolean } = {}) =>
  z.pipe(
    formPlainText(label, options),
    z.string().check(z.minLength(1, { error: `The ${label} field is required.`, abort: true })),
  );

const uuidField = (label: string) =>
  z.pipe(
    formText(label).check(z.trim(), z.toLowerCase()),
    z.uuid({ error: `The ${label} must be a valid UUID.` }),
  );

/** Publishing options mean nothing without a website: they are ignored, not validated. */
const WEBSITE_ONLY_FIELDS = ['category_uuid', 'publish_at', 'draft', 'allow_same_topic'] as const;

function dropWebsiteOnlyFieldsWithoutWebsite(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const fields = input as Record<string, unknown>;
  const website = fields.website_uuid;
  if (website !== undefined && website !== null && website !== '') return fields;
  const kept = { ...fields };
  for (const field of WEBSITE_ONLY_FIELDS) delete kept[field];
  return kept;
}

/**
 * The schema, built on first use rather than when the module loads (170 zod/mini objects, ~3.5 ms
 * of a cold start here): the create handler builds it while its first request's rate-limit call
 * is on the network (apiHandler's `warmUp`).
 */
let built: ReturnType<typeof buildCreateArticleSchema> | undefined;

export function createArticleSchema() {
  built ??= buildCreateArticleSchema();
  return built.schema;
}

/**
 * The create schema's fields, each with its own rules (before the whole-request preprocessing):
 * what a site profile's `defaults` are checked with (site-profile.ts), so a new option is a
 * possible default as soon as it is a create field.
 */
export function createArticleFieldSchemas() {
  built ??= buildCreateArticleSchema();
  return built.fields;
}

function buildCreateArticleSchema() {
  /**
   * The tags as sent: one comma-separated text, or a JSON list of texts (a refused value gets the
   * message of the text or list check).
   */
  const tagTexts = z.pipe(
    z.union([formText('tags'), z.array(formText('tags'))], {
      error: (issue) => {
        const [asText, asList] = (issue as { errors?: { message: string }[][] }).errors ?? [];
        const input = issue.input;
        const failed = Array.isArray(input)
          ? asList
          : typeof input === 'string' || input instanceof UndecodableText
            ? asText
            : undefined;
        return failed?.[0]?.message ?? 'The tags must be comma-separated text.';
      },
    }),
    z.transform((value: string | string[]) => (Array.isArray(value) ? value : value.split(','))),
  );

  /** Each tag checked as every text field is: plain-text tags, duplicates (any case) dropped. */
  const tagsField = z
    .pipe(
      z.pipe(tagTexts, z.array(formPlainText('tags'))),
      z.transform((tags: string[]) =>
        tags.filter(
          (tag, index, all) => tag !== '' && all.findIndex((other) => sameTag(other, tag)) === index,
        ),
      ),
    )
    .check(
      z.superRefine((tags: string[], context) => {
        if (tags.length > MAX_TAGS) {
          context.addIssue({
            code: 'custom',
            message: `The tags field may contain at most ${MAX_TAGS} tags.`,
          });
        }
        if (tags.some((tag) => characterCount(tag) > MAX_TAG_LENGTH)) {
          context.addIssue({
            code: 'custom',
            message: `Each tag may be at most ${MAX_TAG_LENGTH} characters long.`,
          });
        }
      }),
    );

  const createArticleFields = z.object({
    keyword: requiredText('keyword', { lineBreaks: true }).check(
      z.superRefine((value: string, context) => {
        const keywords = value.split(',').map((keyword) => keyword.trim());
        // A keyword of nothing visible (`bread,\u200B`) is as empty as `bread,`.
        if (keywords.some((keyword) => safeText(keyword) === '')) {
          context.addIssue({ code: 'custom', message: 'The keyword field may not contain empty keywords.' });
        } else if (keywords.length > MAX_KEYWORDS) {
          context.addIssue({
            code: 'custom',
            message: `The keyword field may contain at most ${MAX_KEYWORDS} keywords.`,
          });
        } else if (keywords.some((keyword) => characterCount(keyword) > MAX_KEYWORD_LENGTH)) {
          context.addIssue({
            code: 'custom',
            message: `Each keyword may be at most ${MAX_KEYWORD_LENGTH} characters long.`,
          });
        }
      }),
    ),
    h2_count: preprocess(
      (value) => (value === '' ? undefined : value),
      formInteger(1, MAX_H2_COUNT, 'h2_count'),
    ),
    ai_model: z.pipe(
      requiredText('ai_model'),
      z.enum(AI_MODELS, { error: `The ai_model must be one of: ${AI_MODELS.join(', ')}.` }),
    ),
    language: z
      .pipe(
        requiredText('language'),
        z.transform((value: string) => value.toLowerCase()),
      )
      .check(
        z.refine(isSupportedLanguage, { error: 'The language is not supported; see GET /v1/languages.' }),
      ),
    title: optionalField(
      z.pipe(
        formPlainText('title', { lineBreaks: true }),
        z.string().check(
          z.refine((title: string) => characterCount(title) <= MAX_TITLE_LENGTH, {
            error: `The title may not be longer than ${MAX_TITLE_LENGTH} characters.`,
          }),
        ),
      ),
    ),
    need_bold: z._default(optionalField(formBoolean('need_bold')), false),
    website_uuid: optionalField(uuidField('website_uuid')),
    category_uuid: optionalField(uuidField('category_uuid')),
    publish_at: optionalField(
      z
        .pipe(
          formText('publish_at').check(z.trim()),
          z.iso.datetime({
            offset: true,
            local: false,
            error: 'The publish_at must be an ISO 8601 date-time, like 2026-12-01T09:30:00.000Z.',
          }),
        )
        .check(
          // WordPress stores local dates of years up to 9999; a site 14 h ahead of UTC needs the margin.
          // (A value that is no date at all has the message above alone.)
          z.refine((value: string) => !(Date.parse(value) >= LATEST_PUBLISH_AT_MS), {
            error: `The publish_at must be before ${LATEST_PUBLISH_AT}.`,
          }),
        ),
    ),
    draft: z._default(optionalField(formBoolean('draft')), false),
    faq_count: optionalField(formInteger(0, MAX_FAQ_COUNT, 'faq_count')),
    tags: optionalField(tagsField),
    auto_tags: optionalField(formBoolean('auto_tags')),
    internal_links: optionalField(formInteger(0, MAX_INTERNAL_LINKS, 'internal_links')),
    allow_same_topic: optionalField(formBoolean('allow_same_topic')),
    outline_review: optionalField(formBoolean('outline_review')),
    meta_description: optionalField(
      z.pipe(
        formPlainText('meta_description', { lineBreaks: true }),
        z.string().check(
          z.refine((description: string) => characterCount(description) <= MAX_META_DESCRIPTION_LENGTH, {
            error: `The meta_description may not be longer than ${MAX_META_DESCRIPTION_LENGTH} characters.`,
          }),
        ),
      ),
    ),
    sources: optionalField(sourcesField()),
    research: optionalField(
      z.pipe(
        requiredText('research'),
        z.enum(['none', 'web'], { error: 'The research must be none or web.' }),
      ),
    ),
    require_sources: optionalField(formBoolean('require_sources')),
    featured_image: optionalField(featuredImageField()),
    inline_images: optionalField(inlineImagesField()),
  });

  return {
    schema: preprocess(dropWebsiteOnlyFieldsWithoutWebsite, createArticleFields),
    fields: createArticleFields,
  };
}

export type CreateArticleInput = z.infer<ReturnType<typeof createArticleSchema>>;
