/** A post Inkpress published live joins its website's site index at once, with its focus keyword. */
import type { Article } from '../articles/article';
import { focusKeywordOf } from '../articles/article-seo';
import type { CmsPostResult } from '../websites/cms-client';
import type { SiteIndexStore } from '../websites/ports';
import { addPublishedPost } from '../websites/site-index';
import type { Website } from '../websites/website';

/** Never fails the publication: the next refresh of the index lists the post anyway. */
export async function joinSiteIndex(
  store: Pick<SiteIndexStore, 'getState' | 'add' | 'putState'>,
  article: Article,
  website: Website,
  result: CmsPostResult,
  now: Date,
): Promise<void> {
  try {
    await addPublishedPost(
      store,
      website.websiteUuid,
      {
        postId: result.cmsId,
        url: result.permalink,
        title: article.generatedTitle ?? article.title ?? article.keyword,
        excerpt: [...(article.seo?.excerpt ?? '')].slice(0, 300).join(''),
        focusKeyword: article.seo?.focusKeyword ?? focusKeywordOf(article.keyword),
        categories: [],
        modifiedAt: (result.dateGmt ? new Date(result.dateGmt) : now).toISOString(),
        noindex: false,
      },
      now,
    );
  } catch {
    // The index is a help, not part of the publication.
  }
}
