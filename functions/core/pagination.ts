/** Page-number pagination and the list envelope of docs/api-contract.md. */
export const PER_PAGE = 20;
/** Highest page number accepted; far beyond any real list, keeps numbers sane. */
export const MAX_PAGE = 1_000_000;

export interface Page<T> {
  items: T[];
  page: number;
  /** Total number of records, when known. */
  total?: number;
}

export interface PaginationEnvelope<T> {
  data: T[];
  links: { first: string; last: string | null; prev: string | null; next: string | null };
  meta: {
    current_page: number;
    from: number | null;
    path: string;
    per_page: number;
    to: number | null;
    last_page?: number;
    total?: number;
  };
}

/** Wraps one page of records; `path` is the absolute URL of the list endpoint. */
export function paginationEnvelope<T>(page: Page<T>, path: string): PaginationEnvelope<T> {
  const { items, total } = page;
  const current = page.page;
  const pageUrl = (n: number) => `${path}?page=${n}`;
  const lastPage = total === undefined ? undefined : Math.max(1, Math.ceil(total / PER_PAGE));
  const from = items.length > 0 ? (current - 1) * PER_PAGE + 1 : null;
  const hasNext = lastPage === undefined ? items.length === PER_PAGE : current < lastPage;
  return {
    data: items,
    links: {
      first: pageUrl(1),
      last: lastPage === undefined ? null : pageUrl(lastPage),
      prev: current > 1 ? pageUrl(current - 1) : null,
      next: hasNext ? pageUrl(current + 1) : null,
    },
    meta: {
      current_page: current,
      from,
      path,
      per_page: PER_PAGE,
      to: from === null ? null : from + items.length - 1,
      ...(lastPage === undefined ? {} : { last_page: lastPage, total }),
    },
  };
}
