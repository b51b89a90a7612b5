/** Slugs WordPress keeps as sent, readable in every supported language. */
import { slugify } from '../../../functions/core/slug';

describe('slugify', () => {
  it.each([
    ['Crème Brûlée: 10 Tips!', 'creme-brulee-10-tips'],
    ['ガイドブック', 'ガイドブック'],
    ['हिन्दी गाइड', 'हिन्दी-गाइड'],
    ['คู่มือ', 'คู่มือ'],
    ['한국어 가이드', '한국어-가이드'],
    ['Йога и здоровье', 'йога-и-здоровье'],
    ['Ｆｕｌｌ ｗｉｄｔｈ ﬁle', 'full-width-file'],
  ])('%s → %s', (title, slug) => {
    expect(slugify(title)).toBe(slug);
    expect(slugify(title)).toBe(slugify(title).normalize('NFC'));
  });

  it('cuts a long title after the last whole word that fits', () => {
    const slug = slugify(`${'ガイド '.repeat(100)}end`, 30);
    expect([...slug].length).toBeLessThanOrEqual(30);
    expect(slug).toMatch(/^ガイド(-ガイド)*$/);
  });
});
