/** Show one article, list generated articles, list the queue. */
import { NotFoundError } from '../errors';
import type { ImageLinks } from '../images/ports';
import { type Page, PER_PAGE } from '../pagination';
import type { Article } from './article';
import {
  type Linked,
  presentArticle,
  presentGeneratedArticle,
  presentQueuedArticle,
} from './article-presenter';
import { imageUrlsOf } from './image-presenter';
import type { ArticleReads, CategoryLookup, WebsiteLookup } from './ports';

export interface ReadArticlesDeps {
  articles: ArticleReads;
  websites: WebsiteLookup;
  categories: CategoryLookup;
  /** Presigned links to stored images (functions with the image bucket). */
  imageLinks?: ImageLinks;
}

/** What linking an article to its website, category and images needs. */
type LinkDeps = Pick<ReadArticlesDeps, 'websites' | 'categories' | 'imageLinks'>;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The account's article with this uuid (any case); NotFoundError for anything else. */
export async function findArticle(
  deps: { articles: Pick<ArticleReads, 'get'> },
  accountId: string,
  articleUuid: string,
): Promise<Article> {
  const article = UUID_PATTERN.test(articleUuid)
    ? await deps.articles.get(accountId, articleUuid.toLowerCase())
    : undefined;
  if (!article) throw new NotFoundError('Article');
  return article;
}

export async function showArticle(deps: ReadArticlesDeps, accountId: string, articleUuid: string) {
  return presentAsShown(deps, await findArticle(deps, accountId, articleUuid));
}

/** `article` as `show` answers it (its website and category as stored now). */
export async function presentAsShown(deps: LinkDeps, article: Article) {
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

/** Websites, categories and image links of the articles. */
async function linkAll(deps: LinkDeps, articles: Article[]): Promise<Linked[]> {
  const [linked, imageUrls] = await Promise.all([
    linkRecords(deps, articles),
    Promise.all(articles.map((article) => imageUrlsOf(article, deps.imageLinks))),
  ]);
  return linked.map((link, index) => {
    const urls = imageUrls[index] ?? {};
    return Object.keys(urls).length > 0 ? { ...link, imageUrls: urls } : link;
  });
}

/** Websites and categories of the articles: one batch read of each per page, whatever the page. */
async function linkRecords(deps: LinkDeps, articles: Article[]): Promise<Linked[]> {
  const accountId = articles[0]?.accountId;
  const websiteUuids = articles.flatMap((article) => (article.websiteUuid ? [article.websiteUuid] : []));
  if (accountId === undefined || websiteUuids.length === 0) return articles.map(() => ({}));
  const categoryKeys = articles.flatMap(({ websiteUuid, categoryUuid }) =>
    websiteUuid && categoryUuid ? [{ websiteUuid, categoryUuid }] : [],
  );
  const [websites, categories] = await Promise.all([
    deps.websites.getMany(accountId, websiteUuids),
    categoryKeys.length > 0 ? deps.categories.getMany(categoryKeys) : Promise.resolve([]),
  ]);
  const websiteByUuid = new Map(websites.map((website) => [website.websiteUuid, website]));
  const categoryByKey = new Map(
    categories.map((category) => [`${category.websiteUuid}/${category.categoryUuid}`, category]),
  );
  return articles.map(({ websiteUuid, categoryUuid }) => {
    const website = websiteUuid ? websiteByUuid.get(websiteUuid) : undefined;
    if (!website) return {};
    const category = categoryUuid ? categoryByKey.get(`${website.websiteUuid}/${categoryUuid}`) : undefined;
    return category ? { website, category } : { website };
  });
}
