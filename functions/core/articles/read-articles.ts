/** Show one article, list generated articles, list the queue. */
import { NotFoundError } from '../errors';
import { type Page, PER_PAGE } from '../pagination';
import type { Article } from './article';
import {
  type Linked,
  presentArticle,
  presentGeneratedArticle,
  presentQueuedArticle,
} from './article-presenter';
import type { ArticleStore, CategoryLookup, WebsiteLookup } from './ports';

export interface ReadArticlesDeps {
  articles: ArticleStore;
  websites: WebsiteLookup;
  categories: CategoryLookup;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function showArticle(deps: ReadArticlesDeps, accountId: string, articleUuid: string) {
  if (!UUID_PATTERN.test(articleUuid)) throw new NotFoundError('Article');
  const article = await deps.articles.get(accountId, articleUuid.toLowerCase());
  if (!article) throw new NotFoundError('Article');
  const [linked] = await linkAll(deps, [article]);
  return presentArticle(article, linked ?? {});
}

export async function listGeneratedArticles(deps: ReadArticlesDeps, accountId: string, page: number) {
  const { items, total } = await deps.articles.listGenerated(accountId, page, PER_PAGE);
  const linked = await linkAll(deps, items);
  return pageOf(
    items.map((article, index) => presentGeneratedArticle(article, linked[index] ?? {})),
    page,
    total,
  );
}

export async function listQueuedArticles(deps: ReadArticlesDeps, accountId: string, page: number) {
  const { items, total } = await deps.articles.listQueued(accountId, page, PER_PAGE);
  const linked = await linkAll(deps, items);
  return pageOf(
    items.map((article, index) => presentQueuedArticle(article, linked[index] ?? {}, 'pending')),
    page,
    total,
  );
}

function pageOf<T>(items: T[], page: number, total: number | undefined): Page<T> {
  return total === undefined ? { items, page } : { items, page, total };
}

/** Websites and categories of the articles, each read once per page. */
async function linkAll(deps: ReadArticlesDeps, articles: Article[]): Promise<Linked[]> {
  const websites = new Map<string, Promise<Linked['website']>>();
  const categories = new Map<string, Promise<Linked['category']>>();
  return Promise.all(
    articles.map(async (article) => {
      const { websiteUuid, categoryUuid } = article;
      if (!websiteUuid) return {};
      if (!websites.has(websiteUuid))
        websites.set(websiteUuid, deps.websites.get(article.accountId, websiteUuid));
      const website = await websites.get(websiteUuid);
      if (!website) return {};
      if (!categoryUuid) return { website };
      const categoryKey = `${websiteUuid}/${categoryUuid}`;
      if (!categories.has(categoryKey))
        categories.set(categoryKey, deps.categories.get(websiteUuid, categoryUuid));
      const category = await categories.get(categoryKey);
      return category ? { website, category } : { website };
    }),
  );
}
