/**
 * The structured answers the model is asked for: the zod/mini schema each answer is parsed with,
 * and the strict JSON schema sent as its `response_format`, written out ahead (what
 * `toStrictJsonSchema(z.toJSONSchema(schema))` gives; test/unit/model/structured-answers.test.ts
 * keeps the two in step). Written out, the worker carries neither zod's JSON-schema generator nor
 * its run at every cold start.
 */
import * as z from 'zod/mini';

export const outlineSchema = z.object({
  title: z.string().check(z.describe('SEO title of the article')),
  headings: z.array(z.string()).check(z.describe('The H2 headings, in order')),
});

export const metaSchema = z.object({
  meta_description: z.string().check(z.describe('Meta description, 120-160 characters')),
  excerpt: z.string().check(z.describe('One or two sentences summarising the article')),
  faq: z.array(z.object({ question: z.string(), answer: z.string() })).check(z.describe('FAQ pairs')),
  tags: z.array(z.string()).check(z.describe('Short tags (1-3 words each)')),
});

const DRAFT_7 = 'http://json-schema.org/draft-07/schema#';

export const OUTLINE_JSON_SCHEMA = {
  $schema: DRAFT_7,
  type: 'object',
  properties: {
    title: { type: 'string', description: 'SEO title of the article' },
    headings: { type: 'array', items: { type: 'string' }, description: 'The H2 headings, in order' },
  },
  required: ['title', 'headings'],
  additionalProperties: false,
};

export const META_JSON_SCHEMA = {
  $schema: DRAFT_7,
  type: 'object',
  properties: {
    meta_description: { type: 'string', description: 'Meta description, 120-160 characters' },
    excerpt: { type: 'string', description: 'One or two sentences summarising the article' },
    faq: {
      type: 'array',
      items: {
        type: 'object',
        properties: { question: { type: 'string' }, answer: { type: 'string' } },
        required: ['question', 'answer'],
        additionalProperties: false,
      },
      description: 'FAQ pairs',
    },
    tags: { type: 'array', items: { type: 'string' }, description: 'Short tags (1-3 words each)' },
  },
  required: ['meta_description', 'excerpt', 'faq', 'tags'],
  additionalProperties: false,
};
