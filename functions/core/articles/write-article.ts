/**
 * Writes an article with a language model: an outline (title + exactly h2_count headings), then
 * the introduction, the sections and the conclusion in parallel with bounded concurrency, then
 * assembly and sanitising to an allow-list of tags.
 */
import sanitizeHtml from 'sanitize-html';
import { sanitizeArticleHtml, textToHtml } from '../html-safety';
import { supportedLanguages } from '../languages';
import { plainText, safeText } from '../text';
import type { ArticleRequest } from './article';
import {
  type ArticleBrief,
  type ArticleModel,
  MalformedModelOutputError,
  type SectionPart,
  type TokenUsage,
} from './article-model';

export const SECTION_CONCURRENCY = 6;

export interface WrittenArticle {
  title: string;
  content: string;
  totalWords: number;
  usage: TokenUsage;
}

export async function writeArticle(model: ArticleModel, request: ArticleRequest): Promise<WrittenArticle> {
  const brief: ArticleBrief = {
    keyword: request.keyword,
    language: request.language,
    languageName: supportedLanguages[request.language] ?? request.language,
    h2Count: request.h2Count,
    needBold: request.needBold,
    ...(request.title ? { title: request.title } : {}),
  };
  const { outline, usage: outlineUsage } = await model.outline(brief);
  const headings = outline.headings.map((heading) => plainText(heading)).filter((heading) => heading !== '');
  if (headings.length !== brief.h2Count) {
    throw new MalformedModelOutputError(
      `Expected ${brief.h2Count} headings, the model gave ${headings.length}.`,
    );
  }
  // A given title is plain text already (articles queued before it was made safe get `safeText`).
  const title = request.title !== undefined ? safeText(request.title) : plainText(outline.title);
  if (title === '') throw new MalformedModelOutputError('The model gave an empty title.');
  const cleanOutline = { title, headings };

  const parts: SectionPart[] = [
    { kind: 'introduction', outline: cleanOutline },
    ...headings.map((heading, index) => ({
      kind: 'section' as const,
      outline: cleanOutline,
      heading,
      index,
    })),
    { kind: 'conclusion', outline: cleanOutline },
  ];
  const written = await mapWithConcurrency(parts, SECTION_CONCURRENCY, (part) => model.write(brief, part));

  const html = written
    .map(({ html: partHtml }, index) => {
      const part = parts[index];
      const body = sanitizeArticleHtml(partHtml, { needBold: brief.needBold });
      return part?.kind === 'section' ? `<h2>${textToHtml(part.heading)}</h2>\n${body}` : body;
    })
    .join('\n');

  const usage = [outlineUsage, ...written.map((part) => part.usage)].reduce(
    (sum, part) => ({
      promptTokens: sum.promptTokens + part.promptTokens,
      completionTokens: sum.completionTokens + part.completionTokens,
    }),
    { promptTokens: 0, completionTokens: 0 },
  );
  return { title, content: html, totalWords: countWords(html), usage };
}

const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/** Words of the text of an HTML fragment, in any script. */
export function countWords(html: string): number {
  const text = sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} });
  let words = 0;
  for (const segment of wordSegmenter.segment(text)) if (segment.isWordLike) words++;
  return words;
}

/** Runs `task` over `items` with at most `limit` in flight; results keep the input order. */
async function mapWithConcurrency<T, R>(
  items: T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  });
  await Promise.all(workers);
  return results;
}
