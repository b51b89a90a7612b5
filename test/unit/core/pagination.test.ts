import { PER_PAGE, paginationEnvelope } from '../../../functions/core/pagination';

const path = 'https://api.example.com/v1/websites/list';
const items = (count: number) => Array.from({ length: count }, (_, index) => index);

describe('pagination envelope', () => {
  it('describes a middle page with a known total', () => {
    const envelope = paginationEnvelope({ items: items(PER_PAGE), page: 2, total: 45 }, path);
    expect(envelope.links).toEqual({
      first: `${path}?page=1`,
      last: `${path}?page=3`,
      prev: `${path}?page=1`,
      next: `${path}?page=3`,
    });
    expect(envelope.meta).toEqual({
      current_page: 2,
      from: 21,
      path,
      per_page: 20,
      to: 40,
      last_page: 3,
      total: 45,
    });
  });

  it('describes an empty list as one empty page', () => {
    const envelope = paginationEnvelope({ items: [], page: 1, total: 0 }, path);
    expect(envelope.links).toEqual({
      first: `${path}?page=1`,
      last: `${path}?page=1`,
      prev: null,
      next: null,
    });
    expect(envelope.meta).toMatchObject({ from: null, to: null, last_page: 1, total: 0 });
  });

  it('leaves last unknown without a total and offers next only after a full page', () => {
    const full = paginationEnvelope({ items: items(PER_PAGE), page: 3 }, path);
    expect(full.links.last).toBeNull();
    expect(full.links.next).toBe(`${path}?page=4`);
    expect(full.meta).not.toHaveProperty('total');
    expect(paginationEnvelope({ items: items(5), page: 3 }, path).links.next).toBeNull();
  });
});
