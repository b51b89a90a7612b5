import { priceOf } from '../../../functions/core/pricing';

describe('pricing', () => {
  it('charges model base + per-H2 price x h2_count + 1 for bold', () => {
    expect(priceOf({ aiModel: 'gpt-3.5-turbo', h2Count: 1, needBold: false })).toBe(2);
    expect(priceOf({ aiModel: 'gpt-3.5-turbo', h2Count: 10, needBold: true })).toBe(12);
    expect(priceOf({ aiModel: 'gpt-4', h2Count: 3, needBold: false })).toBe(10);
    expect(priceOf({ aiModel: 'gpt-4', h2Count: 3, needBold: true })).toBe(11);
  });

  it('costs more with more headings', () => {
    for (const aiModel of ['gpt-3.5-turbo', 'gpt-4'] as const) {
      expect(priceOf({ aiModel, h2Count: 5, needBold: false })).toBeGreaterThan(
        priceOf({ aiModel, h2Count: 4, needBold: false }),
      );
    }
  });

  it('charges the FAQ per started block of 5 pairs, by model', () => {
    const base = { aiModel: 'gpt-3.5-turbo' as const, h2Count: 3, needBold: false };
    expect(priceOf({ ...base, faqCount: 0 })).toBe(4);
    expect(priceOf({ ...base, faqCount: 1 })).toBe(5);
    expect(priceOf({ ...base, faqCount: 5 })).toBe(5);
    expect(priceOf({ ...base, faqCount: 6 })).toBe(6);
    expect(priceOf({ ...base, aiModel: 'gpt-4', faqCount: 10 })).toBe(4 + 6 + 4);
  });
});
