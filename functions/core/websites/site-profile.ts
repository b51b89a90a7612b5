/**
 * A website's profile: how its articles are written (voice, audience, facts the site stands
 * behind, phrases it never uses) and the create options its articles take when a create omits
 * them (`defaults`). The defaults are checked with the create schema's own field schemas
 * (`createArticleFieldSchemas`), so every create option, including ones added later, can be a
 * default without a second list.
 */
import * as z from 'zod/mini';
import { imageRequestOf } from '../articles/article-image-input';
import { createArticleFieldSchemas, MAX_H2_COUNT } from '../articles/create-article-input';
import { ValidationError } from '../errors';
import { matchablePhrase } from '../matchable-text';
import { formPlainText, formText, preprocess } from '../schema-helpers';
import { type SourcePolicy, sourceOptions } from '../sources/source-policy';
import { decodedText, safeText } from '../text';
import { UndecodableText } from '../undecodable-text';
import { toWireTime } from '../wire';

export const MAX_VOICE_LENGTH = 1_000;
export const MAX_AUDIENCE_LENGTH = 300;
export const MAX_FACTS_LENGTH = 10_000;
export const MAX_BANNED_PHRASES = 100;
export const MAX_BANNED_PHRASE_LENGTH = 100;

/** Create fields that cannot be defaults: the article's own subject and the website itself. */
const NOT_DEFAULTS = { keyword: true, website_uuid: true } as const;

/** What one article carries of its website's profile, copied at create (a later change never reaches it). */
export interface ArticleProfile {
  voice?: string;
  audience?: string;
  facts?: string;
  bannedPhrases?: string[];
}

export interface SiteProfile {
  accountId: string;
  websiteUuid: string;
  voice: string;
  audience: string;
  facts: string;
  bannedPhrases: string[];
  /**
   * Create options as the client gave them (raw values, checked by the create fields' schemas
   * when stored): merged into a create's raw fields, then parsed with them (`withProfileDefaults`).
   */
  defaults: Record<string, unknown>;
  updatedAt: string;
}

/** Characters as readers (and JSON Schema's `maxLength`) count them: code points. */
const characterCount = (text: string) => [...text].length;

const tooLong = (label: string, max: number) =>
  z.refine<string>((value) => characterCount(value) <= max, {
    error: `The ${label} may not be longer than ${max.toLocaleString('en')} characters.`,
  });

/** Plain text, one line (whitespace collapses), at most `max` characters; absent is empty. */
const profileText = (label: string, max: number) =>
  z._default(
    z.optional(z.pipe(formPlainText(label, { lineBreaks: true }), z.string().check(tooLong(label, max)))),
    '',
  );

/** Plain text that keeps its lines (each line made plain text; empty lines dropped). */
const profileLines = (label: string, max: number) =>
  z._default(
    z.optional(
      z.pipe(
        z.pipe(
          formText(label, { lineBreaks: true }),
          z.transform((value: string) =>
            value
              .split(/\r\n|\r|\n/)
              .map((line) => safeText(decodedText(line)))
              .filter((line) => line !== '')
              .join('\n'),
          ),
        ),
        z.string().check(tooLong(label, max)),
      ),
    ),
    '',
  );

const samePhrase = (a: string, b: string) =>
  matchablePhrase(a).toLocaleLowerCase() === matchablePhrase(b).toLocaleLowerCase();

/** A JSON list of phrases, repeated form fields, or one text with a phrase per line. */
const bannedPhrasesField = () =>
  z._default(
    z.optional(
      z.pipe(
        z.pipe(
          z.union([formText('banned_phrases', { lineBreaks: true }), z.array(formText('banned_phrases'))], {
            error: (issue) =>
              issue.input instanceof UndecodableText
                ? 'The banned_phrases must be valid UTF-8 text.'
                : 'The banned_phrases must be a list of texts, or one text with a phrase per line.',
          }),
          z.transform((value: string | string[]) =>
            (Array.isArray(value) ? value : value.split(/\r\n|\r|\n/))
              .map((phrase) => safeText(decodedText(phrase)))
              .filter(
                (phrase, index, all) =>
                  phrase !== '' &&
                  // The same phrase as matched (case, curly apostrophes, fullwidth forms aside): kept once.
                  all.findIndex((other) => samePhrase(other, phrase)) === index,
              ),
          ),
        ),
        z.array(z.string()).check(
          z.superRefine((phrases: string[], context) => {
            if (phrases.length > MAX_BANNED_PHRASES) {
              context.addIssue({
                code: 'custom',
                message: `The banned_phrases may contain at most ${MAX_BANNED_PHRASES} phrases.`,
              });
            }
            if (phrases.some((phrase) => characterCount(phrase) > MAX_BANNED_PHRASE_LENGTH)) {
              context.addIssue({
                code: 'custom',
                message: `Each banned phrase may be at most ${MAX_BANNED_PHRASE_LENGTH} characters long.`,
              });
            }
            if (phrases.some((phrase) => !/[\p{L}\p{N}]/u.test(phrase))) {
              context.addIssue({
                code: 'custom',
                message: 'Each banned phrase must contain a letter or a digit.',
              });
            }
          }),
        ),
      ),
    ),
    [],
  );

let built: ReturnType<typeof buildProfileSchema> | undefined;

/** The body of `PUT /v1/websites/{uuid}/profile` (built on first use: it reads the create schema). */
export function siteProfileSchema() {
  built ??= buildProfileSchema();
  return built;
}

/**
 * A field the profile does not have is refused (a 422 on its name), not dropped: a PUT replaces
 * the whole profile, so a misspelt `banned_phrase` would otherwise answer 200 and empty the list.
 */
const unknownFieldMessage = (name: string) =>
  `The profile has no field ${name}: its fields are voice, audience, facts, banned_phrases and defaults.`;

function buildProfileSchema() {
  return preprocess(
    gatherFormNames,
    z.strictObject({
      voice: profileText('voice', MAX_VOICE_LENGTH),
      audience: profileText('audience', MAX_AUDIENCE_LENGTH),
      facts: profileLines('facts', MAX_FACTS_LENGTH),
      banned_phrases: bannedPhrasesField(),
      defaults: z._default(
        z.optional(
          z.record(z.string(), z.unknown(), {
            error: 'The defaults must be an object of create options (JSON), e.g. {"h2_count": 4}.',
          }),
        ),
        {},
      ),
    }),
  );
}

/** The create fields a default may set, each with its create schema. */
export function defaultFieldSchemas(): Record<string, z.ZodMiniType> {
  const shape = createArticleFieldSchemas().def.shape as Record<string, z.ZodMiniType>;
  return Object.fromEntries(Object.entries(shape).filter(([name]) => !(name in NOT_DEFAULTS)));
}

/**
 * Form bodies name a default `defaults[h2_count]` (or `defaults.h2_count`) and may give the
 * whole `defaults` as JSON text; a list of phrases may come as `banned_phrases[]`.
 */
function gatherFormNames(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const fields: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  if (typeof fields.defaults === 'string') {
    const text = fields.defaults.trim();
    if (text === '') delete fields.defaults;
    else {
      try {
        fields.defaults = JSON.parse(text);
      } catch {
        // Left as text: the schema says what it must be.
      }
    }
  }
  for (const [name, value] of Object.entries(fields)) {
    const option = /^defaults(?:\[([^\]]+)\]|\.(.+))$/.exec(name);
    if (option) {
      const defaults =
        fields.defaults !== null && typeof fields.defaults === 'object' && !Array.isArray(fields.defaults)
          ? (fields.defaults as Record<string, unknown>)
          : {};
      defaults[option[1] ?? option[2] ?? ''] = value;
      fields.defaults = defaults;
      delete fields[name];
    }
  }
  if ('banned_phrases[]' in fields) {
    fields.banned_phrases ??= fields['banned_phrases[]'];
    delete fields['banned_phrases[]'];
  }
  return fields;
}

export type ProfileFields = Pick<SiteProfile, 'voice' | 'audience' | 'facts' | 'bannedPhrases' | 'defaults'>;

/**
 * The profile a PUT stores: every field checked, each default with its create field's schema
 * (errors keyed `defaults.<option>`); an option that is no create field, or cannot be a default,
 * is a 422 too. Defaults are kept as given (empty ones dropped), parsed again with each create.
 */
/** What this deployment allows a create (as the create handler is given it): checked for defaults too. */
export interface DefaultsDeployment {
  /** See `sourceOptions`; without it, https sources and no web search (as a create without it). */
  sourcePolicy?: SourcePolicy;
  /** Plain-http image URLs allowed (local mode and tests). */
  allowPlainHttpImages?: boolean;
}

export function parseProfileFields(fields: unknown, deployment: DefaultsDeployment = {}): ProfileFields {
  const result = siteProfileSchema().safeParse(fields);
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => {
    errors[field] ??= [];
    if (!errors[field].includes(message)) errors[field].push(message);
  };
  if (!result.success) {
    for (const issue of result.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) add(key, unknownFieldMessage(key));
      } else add(issue.path.length > 0 ? String(issue.path[0]) : 'body', issue.message);
    }
    throw new ValidationError(errors);
  }
  const { defaults: given, ...profile } = result.data;
  const schemas = defaultFieldSchemas();
  const defaults: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === '' || value === null || value === undefined) continue;
    const schema = schemas[name];
    if (!schema) {
      add(
        `defaults.${name}`,
        name in NOT_DEFAULTS
          ? `The ${name} cannot be a default; give it with each create.`
          : `The ${name} is not a create option.`,
      );
      continue;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) add(`defaults.${name}`, issue.message);
      continue;
    }
    if (parsed.data !== undefined) defaults[name] = value;
  }
  for (const [field, messages] of Object.entries(defaultsTogetherErrors(defaults, deployment))) {
    if (!errors[field]) for (const message of messages) add(field, message);
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return {
    voice: profile.voice,
    audience: profile.audience,
    facts: profile.facts,
    bannedPhrases: profile.banned_phrases,
    defaults,
  };
}

/**
 * The create's rules that need more than one field or the deployment (`sourceOptions`,
 * `imageRequestOf`), run on the defaults as a whole, keyed `defaults.<field>` with the create's
 * message: a default every create would refuse on a field its client never sent (research=web with
 * no search provider, require_sources with neither sources nor research=web, more inline_images
 * than the defaults' h2_count, an http image URL) is refused when stored. A field a create must
 * give and the profile does not (h2_count has no create default) is taken at its most lenient
 * (10 H2 sections): the client's own value is checked at each create.
 */
function defaultsTogetherErrors(
  defaults: Record<string, unknown>,
  deployment: DefaultsDeployment,
): Record<string, string[]> {
  const schemas = defaultFieldSchemas();
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(defaults)) {
    const parsed = schemas[name]?.safeParse(value);
    if (parsed?.success) input[name] = parsed.data;
  }
  const errors: Record<string, string[]> = {};
  const rules = [
    () => sourceOptions(input, deployment.sourcePolicy),
    () =>
      imageRequestOf(
        { ...input, h2_count: typeof input.h2_count === 'number' ? input.h2_count : MAX_H2_COUNT },
        { allowPlainHttp: deployment.allowPlainHttpImages ?? false },
      ),
  ];
  for (const rule of rules) {
    try {
      rule();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      for (const [field, messages] of Object.entries(error.fieldErrors))
        errors[`defaults.${field}`] = messages;
    }
  }
  return errors;
}

/** The profile of a website that has none yet. */
export function emptyProfile(accountId: string, websiteUuid: string): SiteProfile {
  return {
    accountId,
    websiteUuid,
    voice: '',
    audience: '',
    facts: '',
    bannedPhrases: [],
    defaults: {},
    updatedAt: '',
  };
}

/**
 * A create's raw fields with the profile's defaults for the options it omits (absent, empty or
 * null, as optional fields count them), and the names of those options.
 */
export function withProfileDefaults(
  fields: Record<string, unknown>,
  profile: Pick<SiteProfile, 'defaults'> | undefined,
): { fields: Record<string, unknown>; fromProfile: string[] } {
  if (!profile) return { fields, fromProfile: [] };
  const merged = { ...fields };
  const fromProfile: string[] = [];
  for (const [name, value] of Object.entries(profile.defaults)) {
    if (name in NOT_DEFAULTS) continue;
    const sent = fields[name];
    if (sent === undefined || sent === null || sent === '') {
      merged[name] = value;
      fromProfile.push(name);
    }
  }
  return { fields: merged, fromProfile };
}

/** What an article keeps of the profile (nothing when the profile says nothing). */
export function articleProfileOf(profile: SiteProfile | undefined): ArticleProfile | undefined {
  if (!profile) return undefined;
  const kept: ArticleProfile = {
    ...(profile.voice ? { voice: profile.voice } : {}),
    ...(profile.audience ? { audience: profile.audience } : {}),
    ...(profile.facts ? { facts: profile.facts } : {}),
    ...(profile.bannedPhrases.length > 0 ? { bannedPhrases: [...profile.bannedPhrases] } : {}),
  };
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/** The profile on the wire: defaults as the create parses them (booleans 0/1). */
export function presentProfile(profile: SiteProfile) {
  const schemas = defaultFieldSchemas();
  const defaults: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(profile.defaults)) {
    const parsed = schemas[name]?.safeParse(value);
    const shown = parsed?.success ? parsed.data : value;
    defaults[name] = typeof shown === 'boolean' ? (shown ? 1 : 0) : shown;
  }
  return {
    data: {
      website_uuid: profile.websiteUuid,
      voice: profile.voice,
      audience: profile.audience,
      facts: profile.facts,
      banned_phrases: profile.bannedPhrases,
      defaults,
      updated_at: profile.updatedAt ? toWireTime(profile.updatedAt) : null,
    },
  };
}
