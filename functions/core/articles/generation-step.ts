/**
 * What one generation attempt writes with the model, around `writeArticle`: the website
 * profile's banned phrases enforced (each answer that uses one asked for once more, then the
 * phrase rewritten out of whatever still has it, with a quality warning).
 */
import type { Article } from './article';
import type { ArticleModel } from './article-model';
import { BannedPhrases, scrubBannedPhrases, withBannedPhraseRetry } from './banned-phrases';
import { type WriteOptions, type WrittenArticle, writeArticle } from './write-article';

/** Writes the article; the published text never holds one of its banned phrases. */
export async function writeGeneration(
  model: ArticleModel,
  article: Article,
  options: WriteOptions = {},
): Promise<WrittenArticle> {
  const banned = new BannedPhrases(article.siteProfile?.bannedPhrases ?? [], article.language);
  const written = await writeArticle(withBannedPhraseRetry(model, banned), article, options);
  return withoutBannedPhrases(written, banned);
}

/** The written article with every banned phrase rewritten out, and a warning for each. */
export function withoutBannedPhrases(written: WrittenArticle, banned: BannedPhrases): WrittenArticle {
  if (banned.isEmpty) return written;
  const { text, warnings } = scrubBannedPhrases(
    {
      title: written.title,
      content: written.content,
      metaDescription: written.seo.metaDescription,
      excerpt: written.seo.excerpt,
      faq: written.seo.faq,
      tags: written.seo.tags,
    },
    banned,
  );
  if (warnings.length === 0) return written;
  return {
    ...written,
    // A title that was nothing but the phrase keeps the article's keyword.
    title: text.title || written.seo.focusKeyword,
    content: text.content,
    seo: {
      ...written.seo,
      metaDescription: text.metaDescription,
      excerpt: text.excerpt,
      faq: text.faq,
      tags: text.tags,
      qualityWarnings: [...written.seo.qualityWarnings, ...warnings],
    },
  };
}
