/** A website profile's fields: limits, the defaults checked by the create fields' own schemas, form names. */
import { ValidationError } from '../../../functions/core/errors';
import {
  articleProfileOf,
  defaultFieldSchemas,
  emptyProfile,
  parseProfileFields,
  presentProfile,
  withProfileDefaults,
} from '../../../functions/core/websites/site-profile';

function fieldErrors(
  fields: Record<string, unknown>,
  deployment?: Parameters<typeof parseProfileFields>[1],
): Record<string, string[]> {
  try {
    parseProfileFields(fields, deployment);
  } catch (error) {
    if (error instanceof ValidationError) return error.fieldErrors;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('parseProfileFields', () => {
  it('keeps voice, audience, facts (with their lines), phrases and defaults', () => {
    const profile = parseProfileFields({
      voice: '  Friendly, <b>direct</b>  ',
      audience: 'Home bakers',
      facts: 'Starter kit: 29 EUR\n\n  Free shipping in the EU  \n',
      banned_phrases: [
        'game changer',
        'Game Changer',
        ' delve ',
        "don't worry",
        'Don’t  worry',
        'Ｄｅｌｖｅ',
      ],
      defaults: { h2_count: '4', need_bold: 'true', tags: 'bread, starter' },
    });
    expect(profile).toEqual({
      voice: 'Friendly, direct',
      audience: 'Home bakers',
      facts: 'Starter kit: 29 EUR\nFree shipping in the EU',
      bannedPhrases: ['game changer', 'delve', "don't worry"],
      // As given: parsed again with each create.
      defaults: { h2_count: '4', need_bold: 'true', tags: 'bread, starter' },
    });
  });

  it('takes phrases one per line, and an empty body as an empty profile', () => {
    expect(parseProfileFields({ banned_phrases: 'game changer\r\nunlock\n\n' }).bannedPhrases).toEqual([
      'game changer',
      'unlock',
    ]);
    expect(parseProfileFields({})).toEqual({
      voice: '',
      audience: '',
      facts: '',
      bannedPhrases: [],
      defaults: {},
    });
  });

  it('refuses each field over its limit, on that field', () => {
    expect(fieldErrors({ voice: 'v'.repeat(1001) })).toEqual({
      voice: ['The voice may not be longer than 1,000 characters.'],
    });
    expect(Object.keys(fieldErrors({ audience: 'a'.repeat(301) }))).toEqual(['audience']);
    expect(Object.keys(fieldErrors({ facts: 'f'.repeat(10_001) }))).toEqual(['facts']);
    // At the limits: accepted (an emoji is one character).
    expect(() =>
      parseProfileFields({ voice: '😀'.repeat(1000), audience: 'a'.repeat(300), facts: 'f'.repeat(10_000) }),
    ).not.toThrow();
    expect(fieldErrors({ banned_phrases: Array.from({ length: 101 }, (_, index) => `p${index}`) })).toEqual({
      banned_phrases: ['The banned_phrases may contain at most 100 phrases.'],
    });
    expect(fieldErrors({ banned_phrases: ['x'.repeat(101)] })).toEqual({
      banned_phrases: ['Each banned phrase may be at most 100 characters long.'],
    });
  });

  it('refuses malformed fields with a 422 on the field, never a crash', () => {
    expect(Object.keys(fieldErrors({ voice: { nested: true } }))).toEqual(['voice']);
    expect(Object.keys(fieldErrors({ banned_phrases: [1, 2] }))).toEqual(['banned_phrases']);
    expect(Object.keys(fieldErrors({ banned_phrases: ['!!!'] }))).toEqual(['banned_phrases']);
    expect(Object.keys(fieldErrors({ facts: 'a\u0000b' }))).toEqual(['facts']);
    expect(Object.keys(fieldErrors({ defaults: ['h2_count'] }))).toEqual(['defaults']);
    expect(Object.keys(fieldErrors({ defaults: '{not json' }))).toEqual(['defaults']);
  });

  it('checks each default with the create field’s own rule, keyed defaults.<option>', () => {
    expect(
      fieldErrors({
        defaults: { h2_count: 11, language: 'xx', need_bold: 'maybe', keyword: 'bread', colour: 'red' },
      }),
    ).toEqual({
      'defaults.h2_count': ['The h2_count may not be greater than 10.'],
      'defaults.language': ['The language is not supported; see GET /v1/languages.'],
      'defaults.need_bold': ['The need_bold must be true or false (1 or 0).'],
      'defaults.keyword': ['The keyword cannot be a default; give it with each create.'],
      'defaults.colour': ['The colour is not a create option.'],
    });
  });

  it('refuses a field the profile does not have, on its name, rather than dropping it (a PUT replaces all)', () => {
    // `banned_phrase` (singular) used to be dropped: a 200 that emptied the banned list.
    expect(fieldErrors({ banned_phrase: ['delve'], voice: 'Warm' })).toEqual({
      banned_phrase: [
        'The profile has no field banned_phrase: its fields are voice, audience, facts, banned_phrases and defaults.',
      ],
    });
    // A form's names too, beside another field's error; the form names of the profile still pass.
    expect(Object.keys(fieldErrors({ audiense: 'Bakers', voice: 'v'.repeat(1001) })).sort()).toEqual([
      'audiense',
      'voice',
    ]);
    expect(() =>
      parseProfileFields({ 'banned_phrases[]': ['delve'], 'defaults[h2_count]': '3', 'defaults.draft': '1' }),
    ).not.toThrow();
  });

  it('checks the defaults together with the create’s cross-field and deployment rules, keyed defaults.<option>', () => {
    // Each of these was stored, then every create of the website was a 422 on a field its client never sent.
    expect(fieldErrors({ defaults: { research: 'web' } })).toEqual({
      'defaults.research': [
        'research=web is not available: no search provider is configured (SEARCH_PROVIDER).',
      ],
    });
    expect(fieldErrors({ defaults: { require_sources: 1 } })).toEqual({
      'defaults.require_sources': ['require_sources needs sources or research=web.'],
    });
    expect(fieldErrors({ defaults: { inline_images: 3, h2_count: 2 } })).toEqual({
      'defaults.inline_images': [
        'The inline_images may not be greater than h2_count (one image at most after each H2 section).',
      ],
    });
    expect(Object.keys(fieldErrors({ defaults: { featured_image: 'http://example.com/a.png' } }))).toEqual([
      'defaults.featured_image',
    ]);
    expect(Object.keys(fieldErrors({ defaults: { sources: ['http://example.com/a'] } }))).toEqual([
      'defaults.sources',
    ]);

    // What the deployment allows, or the defaults make whole, passes.
    const searching = { sourcePolicy: { allowPlainHttp: false, webSearch: true } };
    expect(() =>
      parseProfileFields({ defaults: { research: 'web', require_sources: 1 } }, searching),
    ).not.toThrow();
    expect(() =>
      parseProfileFields({ defaults: { require_sources: '1', sources: ['https://example.com/a'] } }),
    ).not.toThrow();
    expect(() => parseProfileFields({ defaults: { inline_images: 3, h2_count: 3 } })).not.toThrow();
    // Without a default h2_count, each create gives its own (checked then): the image count can fit.
    expect(() => parseProfileFields({ defaults: { inline_images: 3 } })).not.toThrow();
    expect(() =>
      parseProfileFields(
        { defaults: { featured_image: 'http://127.0.0.1/a.png' } },
        { allowPlainHttpImages: true },
      ),
    ).not.toThrow();
    // A default refused on its own is not refused twice.
    expect(fieldErrors({ defaults: { inline_images: 9, h2_count: 2 } })).toEqual({
      'defaults.inline_images': ['The inline_images may not be greater than 3.'],
    });
  });

  it('reads form names: defaults[option], defaults.option, defaults as JSON text, banned_phrases[]', () => {
    expect(
      parseProfileFields({
        'defaults[h2_count]': '3',
        'defaults.faq_count': '2',
        'banned_phrases[]': ['unlock', 'delve'],
      }),
    ).toMatchObject({ defaults: { h2_count: '3', faq_count: '2' }, bannedPhrases: ['unlock', 'delve'] });
    expect(parseProfileFields({ defaults: '{"draft": 1}' }).defaults).toEqual({ draft: 1 });
  });

  it('offers every create option but keyword and website_uuid as a default', () => {
    const options = Object.keys(defaultFieldSchemas());
    expect(options).toEqual(
      expect.arrayContaining(['language', 'h2_count', 'need_bold', 'faq_count', 'tags']),
    );
    expect(options).toEqual(expect.arrayContaining(['draft', 'category_uuid', 'ai_model']));
    expect(options).not.toContain('keyword');
    expect(options).not.toContain('website_uuid');
  });
});

describe('withProfileDefaults', () => {
  const profile = { defaults: { h2_count: 4, need_bold: '1', language: 'de' } };

  it('fills only what the create omitted (absent, empty or null), and says which', () => {
    const { fields, fromProfile } = withProfileDefaults(
      { keyword: 'bread', h2_count: 2, need_bold: '', language: null },
      profile,
    );
    expect(fields).toEqual({ keyword: 'bread', h2_count: 2, need_bold: '1', language: 'de' });
    expect(fromProfile.sort()).toEqual(['language', 'need_bold']);
  });

  it('changes nothing without a profile', () => {
    const fields = { keyword: 'bread' };
    expect(withProfileDefaults(fields, undefined)).toEqual({ fields, fromProfile: [] });
  });
});

describe('presentProfile and articleProfileOf', () => {
  it('shows defaults as the create parses them (booleans as 0/1, tags as a list)', () => {
    const profile = {
      ...emptyProfile('a', 'w'),
      defaults: { need_bold: 'yes', tags: 'bread, starter', h2_count: '4' },
      updatedAt: '2026-11-27T10:00:00.000Z',
    };
    expect(presentProfile(profile).data).toMatchObject({
      defaults: { need_bold: 1, tags: ['bread', 'starter'], h2_count: 4 },
      updated_at: '2026-11-27 10:00:00',
    });
  });

  it('copies only what says something', () => {
    expect(articleProfileOf(emptyProfile('a', 'w'))).toBeUndefined();
    expect(articleProfileOf({ ...emptyProfile('a', 'w'), voice: 'Warm', bannedPhrases: ['delve'] })).toEqual({
      voice: 'Warm',
      bannedPhrases: ['delve'],
    });
  });
});
