/**
 * The JSON schemas the worker sends as `response_format` are written out ahead; they must stay
 * what openai's `zodResponseFormat` would build from the schemas the answers are parsed with.
 */
import { toStrictJsonSchema } from 'openai/lib/transform';
import * as z from 'zod/mini';
import {
  META_JSON_SCHEMA,
  metaSchema,
  OUTLINE_JSON_SCHEMA,
  outlineSchema,
} from '../../../functions/adapters/model/structured-answers';

const compiled = (schema: z.ZodMiniType) =>
  toStrictJsonSchema(
    z.toJSONSchema(schema, { target: 'draft-7' }) as Parameters<typeof toStrictJsonSchema>[0],
  );

describe('structured answers', () => {
  it.each([
    ['outline', outlineSchema, OUTLINE_JSON_SCHEMA],
    ['article meta', metaSchema, META_JSON_SCHEMA],
  ])('the %s JSON schema is the one its zod schema compiles to', (_name, schema, written) => {
    expect(written).toEqual(compiled(schema));
  });

  it('answers that break the written schema do not parse', () => {
    expect(outlineSchema.safeParse({ title: 'A title', headings: ['One'] }).success).toBe(true);
    expect(outlineSchema.safeParse({ title: 'A title' }).success).toBe(false);
    expect(
      metaSchema.safeParse({ meta_description: '', excerpt: '', faq: [{ question: 'Q' }], tags: [] }).success,
    ).toBe(false);
  });
});
