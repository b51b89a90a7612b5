/** Lengths the sites' plugins and search engines hold text to; repeated paragraphs. */
import fc from 'fast-check';
import {
  dropRepeatedParagraphs,
  dropRepeatedParagraphsOfParts,
  EXCERPT_MAX,
  fitExcerpt,
  fitMetaDescription,
  META_DESCRIPTION_MAX,
} from '../../../functions/core/articles/quality-gates';

const characters = (text: string) => [...text].length;

describe('excerpt', () => {
  it('keeps two sentences that fit as they are', () => {
    expect(fitExcerpt('First sentence. Second sentence. Third sentence.')).toBe(
      'First sentence. Second sentence.',
    );
  });

  it(`cuts one endless sentence to at most ${EXCERPT_MAX} characters, at a word, marked with …`, () => {
    const endless = `${'word '.repeat(400)}end.`;
    const excerpt = fitExcerpt(endless);
    expect(characters(excerpt)).toBeLessThanOrEqual(EXCERPT_MAX);
    expect(excerpt).toMatch(/^word( word)*…$/);
  });

  it('never goes over the limit nor splits a character, whatever the model writes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 2_000 }), (text) => {
        const excerpt = fitExcerpt(text);
        expect(characters(excerpt)).toBeLessThanOrEqual(EXCERPT_MAX);
        expect(excerpt.isWellFormed()).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('meta description', () => {
  it(`cuts at a word to at most ${META_DESCRIPTION_MAX} characters`, () => {
    const { text } = fitMetaDescription(`${'espresso '.repeat(30)}grinders`);
    expect(characters(text)).toBeLessThanOrEqual(META_DESCRIPTION_MAX);
    expect(text).toMatch(/^espresso( espresso)*$/);
  });
});

describe('repeated paragraphs', () => {
  it('drops a paragraph said earlier, but never leaves an H2 section with nothing under its heading', () => {
    const html = [
      '<p>Alpine lakes are cold.</p><p>Swim early.</p>',
      '<h2>Swimming</h2>\n<p>Alpine lakes are cold.</p><p>Bring a towel.</p>',
      '<h2>Fishing</h2>\n<p>Alpine lakes are cold.</p><p>Swim early.</p>',
      '<h2>Hiking</h2>\n<ul><li>Boots</li></ul><p>Swim early.</p>',
    ].join('\n');
    expect(dropRepeatedParagraphs(html)).toBe(
      [
        '<p>Alpine lakes are cold.</p><p>Swim early.</p>',
        '<h2>Swimming</h2>\n<p>Bring a towel.</p>',
        // Every paragraph of it was said before: kept whole rather than an empty section.
        '<h2>Fishing</h2>\n<p>Alpine lakes are cold.</p><p>Swim early.</p>',
        '<h2>Hiking</h2>\n<ul><li>Boots</li></ul>',
      ].join('\n'),
    );
  });

  it('drops the same paragraphs from the parts (before links are placed) as from the joined article', () => {
    const parts = [
      '<p>Alpine lakes are cold.</p><p>Swim early.</p>',
      '<p>Alpine lakes are cold.</p><p>Bring a towel.</p>',
      '<p>Alpine lakes are cold.</p><p>Swim early.</p>',
      '<ul><li>Boots</li></ul><p>Swim early.</p>',
    ];
    const kept = dropRepeatedParagraphsOfParts(parts);
    expect(kept).toEqual([
      '<p>Alpine lakes are cold.</p><p>Swim early.</p>',
      '<p>Bring a towel.</p>',
      '<p>Alpine lakes are cold.</p><p>Swim early.</p>',
      '<ul><li>Boots</li></ul>',
    ]);
    const joined = (bodies: string[]) =>
      bodies.map((body, index) => (index === 0 ? body : `<h2>S${index}</h2>${body}`)).join('');
    expect(dropRepeatedParagraphs(joined(parts))).toBe(joined(kept));
  });
});
