/**
 * The structured post sent to the plugin: the article's HTML cut at its H2 headings into an
 * introduction and sections, the FAQ as data, and the SEO fields. The plugin builds the
 * native blocks from this, so no block markup travels in the request.
 */
import type { Article } from '../articles/article';
import { focusKeywordOf } from '../articles/article-seo';
import { faqHeading } from '../articles/faq';
import { sourceItems } from '../sources/citations';
import { plainText } from '../text';
import type { CmsPost, CmsSection } from '../websites/cms-client';

const H2 = /<h2(?:\s[^>]*)?>([\s\S]*?)<\/h2>/gi;

/** HTML before the first H2, and each H2 with the HTML up to the next one. */
export function splitSections(html: string): { introHtml: string; sections: CmsSection[] } {
  const headings = [...html.matchAll(H2)];
  const first = headings[0];
  const introHtml = (first ? html.slice(0, first.index) : html).trim();
  const sections = headings.map((match, index) => {
    const start = (match.index ?? 0) + match[0].length;
    const end = headings[index + 1]?.index ?? html.length;
    return { heading: plainText(match[1] ?? ''), html: html.slice(start, end).trim() };
  });
  return { introHtml, sections };
}

export type PostStructure = Pick<
  CmsPost,
  | 'introHtml'
  | 'sections'
  | 'faq'
  | 'sources'
  | 'language'
  | 'metaDescription'
  | 'focusKeyword'
  | 'excerpt'
  | 'tags'
  | 'internalLinks'
>;

/**
 * The article's parts as the plugin takes them; the sources section (the last H2 of an article
 * citing sources) and the FAQ (the last H2 before it) go as data.
 */
export function postStructure(article: Article): PostStructure {
  const { introHtml, sections: all } = splitSections(article.content ?? '');
  const citesSources = (article.seo?.sources ?? []).some((source) => source.used) && all.length > 0;
  const sourcesSection = citesSources ? all[all.length - 1] : undefined;
  const sections = citesSources ? all.slice(0, -1) : all;
  const faq = article.seo?.faq ?? [];
  const hasFaq = faq.length > 0 && sections.length > 0;
  const seo = article.seo;
  return {
    introHtml,
    sections: hasFaq ? sections.slice(0, -1) : sections,
    ...(hasFaq ? { faq: { heading: faqHeading(article.language), items: faq } } : {}),
    ...(sourcesSection
      ? { sources: { heading: sourcesSection.heading, items: sourceItems(sourcesSection.html) } }
      : {}),
    language: article.language,
    ...(seo?.metaDescription ? { metaDescription: seo.metaDescription } : {}),
    focusKeyword: seo?.focusKeyword ?? focusKeywordOf(article.keyword),
    ...(seo?.excerpt ? { excerpt: seo.excerpt } : {}),
    tags: seo?.tags ?? [],
    ...(seo?.internalLinks?.length
      ? { internalLinks: seo.internalLinks.map(({ url, postId }) => ({ url, postId })) }
      : {}),
  };
}
