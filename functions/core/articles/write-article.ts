/**
 * Writes an article with a language model: an outline (title + exactly h2_count headings), then
 * the introduction, the sections, the conclusion and the meta (description, excerpt, FAQ, tags)
 * in parallel with bounded concurrency, then assembly: markdown turned into HTML, sanitising to
 * an allow-list of tags, and the quality gates (quality-gates.ts). A part that misses the focus
 * keyword is regenerated once; if it still misses, the article is kept with a quality warning.
 */
import pLimit from 'p-limit';
import { htmlSanitizer, sanitizeArticleHtml, textToHtml } from '../html-safety';
import { supportedLanguages } from '../languages';
import {
  ArticleSources,
  gatherSources,
  type SourceDeps,
  SourcesUnavailableError,
  wantsSources,
} from '../sources/article-sources';
import { escapeHtml, safeText } from '../text';
import type { ArticleRequest } from './article';
import {
  type ArticleBrief,
  type ArticleMeta,
  type ArticleModel,
  MalformedModelOutputError,
  type Outline,
  type SectionPart,
  type TokenUsage,
} from './article-model';
import { type ArticleSeo, type FaqItem, focusKeywordOf, type QualityWarning, sameTag } from './article-seo';
import { faqHtml } from './faq';
import {
  type InternalLink,
  linkParts,
  linksShortWarning,
  planSiteLinks,
  type SiteForLinks,
} from './internal-links';
import { markdownRenderer, markdownToHtml, plainTextFromMarkdown, scrubMarkdown } from './markdown-cleanup';
import {
  containsKeyword,
  countH2,
  dropRepeatedParagraphs,
  dropRepeatedParagraphsOfParts,
  firstParagraphText,
  fitExcerpt,
  fitMetaDescription,
  metaDescriptionPasses,
  sentenceSegmenter,
} from './quality-gates';

export const SECTION_CONCURRENCY = 6;
export const MAX_AUTO_TAGS = 5;
const MAX_TAG_LENGTH = 50;

export interface WrittenArticle {
  title: string;
  content: string;
  totalWords: number;
  usage: TokenUsage;
  seo: ArticleSeo;
}

/**
 * Where sources come from, and the article's website (links there are internal: not judged here);
 * `site`: its site index (read meanwhile, beside the outline), for the internal links and the
 * topic check (internal-links.ts).
 */
export interface WriteOptions {
  sources?: SourceDeps;
  siteHost?: string;
  site?: Promise<SiteForLinks | undefined>;
  /** Work started beside the sections once the outline is final (images, link choice). */
  onOutline?: (outline: Outline, brief: ArticleBrief) => void;
}

export async function writeArticle(
  model: ArticleModel,
  request: ArticleRequest,
  options: WriteOptions = {},
): Promise<WrittenArticle> {
  const brief = articleBrief(request);
  const focusKeyword = brief.focusKeyword;
  const usage = new UsageTotal();
  const warnings: QualityWarning[] = [];
  const hasKeyword = (text: string) => containsKeyword(text, focusKeyword);

  // Sources are fetched while the outline is written (research=web searches its headings then).
  let gathering: ReturnType<typeof gatherSources> | undefined;
  const planned = await planOutline(model, brief, request, usage, (firstOutline) => {
    gathering = wantsSources(request) ? gatherSources(options.sources, request, firstOutline) : undefined;
    gathering?.catch(() => undefined);
  });
  const outline = planned.outline;
  warnings.push(...planned.warnings);
  options.onOutline?.(outline, brief);

  const sources = new ArticleSources(gathering ? await gathering : [], focusKeyword);
  if (gathering && sources.fetchedCount === 0) {
    if (request.requireSources)
      throw new SourcesUnavailableError('None of the sources could be fetched.', sources.report(new Set()));
    warnings.push('no_source_fetched');
  }
  const linkPlan = planSiteLinks(
    await options.site?.catch(() => undefined),
    request,
    { focusKeyword, title: outline.title },
    [`${outline.title} ${request.keyword}`, ...outline.headings, outline.title],
  );
  const related = (index: number) => {
    const titles = linkPlan?.related[index] ?? [];
    return titles.length > 0 ? { related: titles } : {};
  };
  const parts: SectionPart[] = [
    { kind: 'introduction' as const, outline, ...related(0) },
    ...outline.headings.map((heading, index) => ({
      kind: 'section' as const,
      outline,
      heading,
      index,
      ...related(index + 1),
    })),
    { kind: 'conclusion' as const, outline, ...related(outline.headings.length + 1) },
  ].map((part) => {
    const passages = sources.passagesFor(part);
    return passages.length > 0 ? { ...part, passages } : part;
  });
  const writePart = async (part: SectionPart, feedback?: string) => {
    const written = await model.write(brief, part, feedback);
    usage.add(written.usage);
    return cleanPartHtml(written.html, brief.needBold);
  };
  const writeMeta = async (feedback?: string) => {
    const written = await model.meta(brief, outline, feedback);
    usage.add(written.usage);
    return cleanMeta(written.meta, brief);
  };
  const limit = pLimit(SECTION_CONCURRENCY);
  const [metaResult, ...written] = await Promise.all<string | ArticleMeta>([
    limit(() => writeMeta()),
    ...parts.map((part) => limit(() => writePart(part))),
  ]);
  const bodies = written as string[];
  let meta = metaResult as ArticleMeta;

  // First paragraph: the introduction once more when it misses the keyword.
  const introduction = parts[0] as SectionPart;
  if (!hasKeyword(firstParagraphText(bodies[0] ?? ''))) {
    const retry = await writePart(introduction, keywordFeedback(focusKeyword, ['the first paragraph']));
    if (hasKeyword(firstParagraphText(retry)) || firstParagraphText(bodies[0] ?? '') === '')
      bodies[0] = retry;
  }
  if (!hasKeyword(firstParagraphText(bodies[0] ?? ''))) warnings.push('keyword_missing_in_first_paragraph');

  // Meta: once more when the description misses the keyword or the length, or the FAQ is short.
  const metaIsShort = (candidate: ArticleMeta) => candidate.faq.length < brief.faqCount;
  const descriptionFails = (candidate: ArticleMeta) =>
    !brief.metaDescription && !metaDescriptionPasses(candidate.metaDescription, focusKeyword);
  if (metaIsShort(meta) || descriptionFails(meta)) {
    const retry = await writeMeta(metaFeedback(focusKeyword, brief.faqCount));
    meta = {
      ...meta,
      ...(descriptionFails(meta) && !descriptionFails(retry)
        ? { metaDescription: retry.metaDescription }
        : {}),
      ...(metaIsShort(meta) ? { faq: retry.faq } : {}),
      ...(meta.tags.length === 0 ? { tags: retry.tags } : {}),
      ...(meta.excerpt === '' ? { excerpt: retry.excerpt } : {}),
    };
  }
  if (metaIsShort(meta)) {
    throw new MalformedModelOutputError(
      `Expected ${brief.faqCount} FAQ pairs, the model gave ${meta.faq.length}.`,
    );
  }
  const description = fitMetaDescription(meta.metaDescription || firstParagraphText(bodies[0] ?? ''));
  if (!hasKeyword(description.text)) warnings.push('keyword_missing_in_meta_description');
  if (description.tooShort) warnings.push('meta_description_too_short');

  // Links: only to fetched sources (or the website); a part written from passages cites one.
  const cited = sources.enforce(
    bodies,
    parts.map((part) => part.passages ?? []),
    { language: brief.language, ...(options.siteHost ? { siteHost: options.siteHost } : {}) },
  );
  // Paragraphs said before are dropped first, so that links go only where the text stays.
  const unrepeated = dropRepeatedParagraphsOfParts(cited.bodies);
  // Internal links last: the model's links to the site removed, the index's placed (internal-links.ts).
  let internalLinks: InternalLink[] = [];
  let linkedBodies = unrepeated;
  if (linkPlan) {
    const linked = linkParts(linkPlan, unrepeated, request, focusKeyword);
    linkedBodies = linked.parts;
    internalLinks = linked.links;
    warnings.push(...linked.warnings);
  }
  const sourcesSection = sources.sectionHtml(brief.language, cited.used);
  const faq = meta.faq.slice(0, brief.faqCount);
  const sections = linkedBodies.map((body, index) => {
    const part = parts[index];
    return part?.kind === 'section' ? `<h2>${textToHtml(part.heading)}</h2>\n${body}` : body;
  });
  const html = dropRepeatedParagraphs(
    [
      ...sections,
      ...(faq.length > 0 ? [faqHtml(brief.language, faq)] : []),
      ...(sourcesSection ? [sourcesSection] : []),
    ].join('\n'),
  );
  // Only links the final text still holds, counted there (whatever step removed one).
  const finalLinks = internalLinks.filter((link) => html.includes(`href="${escapeHtml(link.url)}"`));
  if (linkPlan) warnings.push(...linksShortWarning(linkPlan, request, finalLinks.length));
  const expectedH2 = brief.h2Count + (faq.length > 0 ? 1 : 0) + (sourcesSection ? 1 : 0);
  if (countH2(html) !== expectedH2) {
    throw new MalformedModelOutputError(
      `Expected ${expectedH2} H2 headings, the article has ${countH2(html)}.`,
    );
  }

  return {
    title: outline.title,
    content: html,
    totalWords: countWords(html),
    usage: usage.total,
    seo: {
      metaDescription: description.text,
      excerpt: meta.excerpt || fitExcerpt(firstParagraphText(bodies[0] ?? '')),
      focusKeyword,
      faq,
      tags: mergeTags(request.tags ?? [], brief.autoTags ? meta.tags.slice(0, MAX_AUTO_TAGS) : []),
      qualityWarnings: warnings,
      ...(gathering ? { sources: sources.report(cited.used) } : {}),
      ...(cited.removed > 0 ? { externalLinksRemoved: cited.removed } : {}),
      ...(linkPlan ? { internalLinks: finalLinks } : {}),
    },
  };
}

/** What every model call of the article is told: the request as the model port takes it. */
export function articleBrief(request: ArticleRequest): ArticleBrief {
  return {
    keyword: request.keyword,
    language: request.language,
    languageName: supportedLanguages[request.language] ?? request.language,
    h2Count: request.h2Count,
    needBold: request.needBold,
    ...(request.title ? { title: request.title } : {}),
    focusKeyword: focusKeywordOf(request.keyword),
    faqCount: request.faqCount ?? 0,
    autoTags: request.autoTags ?? false,
    ...(request.metaDescription ? { metaDescription: request.metaDescription } : {}),
    ...(request.siteProfile ? { siteProfile: request.siteProfile } : {}),
  };
}

/**
 * The outline (title and exactly `h2Count` headings): once more when the keyword is in neither
 * the (generated) title nor any H2; with the warnings of what it still misses. The same step
 * as `writeArticle`'s outline (which also starts the sources meanwhile): all an outline held for
 * review (outline-review.ts) needs.
 */
/**
 * The outline: asked once more when the keyword is in neither the (generated) title nor any H2,
 * with a warning for what is still missing. `whileWriting` gets the first outline's promise, for
 * work that runs beside it.
 */
export async function planOutline(
  model: ArticleModel,
  brief: ArticleBrief,
  request: ArticleRequest,
  usage: UsageTotal,
  whileWriting?: (firstOutline: Promise<Outline>) => void,
): Promise<{ outline: Outline; warnings: QualityWarning[] }> {
  const hasKeyword = (text: string) => containsKeyword(text, brief.focusKeyword);
  const warnings: QualityWarning[] = [];
  const outlineMisses = (outline: Outline) =>
    [
      !request.title && !hasKeyword(outline.title) ? 'the title' : undefined,
      outline.headings.some(hasKeyword) ? undefined : 'any H2 heading',
    ].filter((miss) => miss !== undefined);
  const firstOutline = writeOutline(model, brief, request, usage);
  whileWriting?.(firstOutline);
  setUpArticleToolsMeanwhile();
  let outline = await firstOutline;
  const firstMisses = outlineMisses(outline);
  if (firstMisses.length > 0) {
    const retry = await writeOutline(
      model,
      brief,
      request,
      usage,
      keywordFeedback(brief.focusKeyword, firstMisses),
    ).catch((error) => {
      if (error instanceof MalformedModelOutputError) return undefined;
      throw error;
    });
    if (retry && outlineMisses(retry).length <= firstMisses.length) outline = retry;
  }
  if (!hasKeyword(outline.title)) warnings.push('keyword_missing_in_title');
  if (!outline.headings.some(hasKeyword)) warnings.push('keyword_missing_in_h2');
  return { outline, warnings };
}

/** The outline with plain-text title and headings, exactly `h2Count` of them. */
async function writeOutline(
  model: ArticleModel,
  brief: ArticleBrief,
  request: ArticleRequest,
  usage: UsageTotal,
  feedback?: string,
): Promise<Outline> {
  const { outline, usage: outlineUsage } = await model.outline(brief, feedback);
  usage.add(outlineUsage);
  const headings = outline.headings.map(plainTextFromMarkdown).filter((heading) => heading !== '');
  if (headings.length !== brief.h2Count) {
    throw new MalformedModelOutputError(
      `Expected ${brief.h2Count} headings, the model gave ${headings.length}.`,
    );
  }
  // A given title is plain text already (articles queued before it was made safe get `safeText`).
  const title = request.title !== undefined ? safeText(request.title) : plainTextFromMarkdown(outline.title);
  if (title === '') throw new MalformedModelOutputError('The model gave an empty title.');
  return { title, headings };
}

/** Markdown to HTML, the allow-list (shortcodes neutralised), then no markdown marker left. */
function cleanPartHtml(html: string, needBold: boolean): string {
  return scrubMarkdown(sanitizeArticleHtml(markdownToHtml(html), { needBold })).trim();
}

/** Plain text everywhere, the excerpt cut to two sentences (and EXCERPT_MAX), tags short and distinct. */
function cleanMeta(meta: ArticleMeta, brief: ArticleBrief): ArticleMeta {
  const faq: FaqItem[] = meta.faq
    .map((item) => ({
      question: plainTextFromMarkdown(item.question),
      answer: plainTextFromMarkdown(item.answer),
    }))
    .filter((item) => item.question !== '' && item.answer !== '');
  return {
    metaDescription: brief.metaDescription ?? plainTextFromMarkdown(meta.metaDescription),
    excerpt: fitExcerpt(plainTextFromMarkdown(meta.excerpt)),
    faq,
    tags: mergeTags(
      [],
      meta.tags.map(plainTextFromMarkdown).filter((tag) => tag.length <= MAX_TAG_LENGTH),
    ),
  };
}

/** The given tags, then the proposed ones that are new (in any case). */
function mergeTags(given: string[], proposed: string[]): string[] {
  const tags: string[] = [];
  for (const tag of [...given, ...proposed]) {
    if (tag !== '' && !tags.some((kept) => sameTag(kept, tag))) tags.push(tag);
  }
  return tags;
}

function keywordFeedback(keyword: string, misses: string[]): string {
  return `Your previous answer did not contain the exact phrase "${keyword}" in ${misses.join(' or ')}. Use the phrase "${keyword}" there, word for word.`;
}

function metaFeedback(keyword: string, faqCount: number): string {
  return `Your previous answer did not meet the rules. The meta description must be 120 to 160 characters long and contain the exact phrase "${keyword}". Give exactly ${faqCount} FAQ pairs.`;
}

/** Tokens of every model call of one article, added up. */
export class UsageTotal {
  total: TokenUsage = { promptTokens: 0, completionTokens: 0 };

  add(usage: TokenUsage): void {
    this.total = {
      promptTokens: this.total.promptTokens + usage.promptTokens,
      completionTokens: this.total.completionTokens + usage.completionTokens,
    };
  }
}

let words: Intl.Segmenter | undefined;
function wordSegmenter(): Intl.Segmenter {
  words ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  return words;
}

/** Words of the text of an HTML fragment, in any script. */
export function countWords(html: string): number {
  const text = htmlSanitizer()(html, { allowedTags: [], allowedAttributes: {}, parseStyleAttributes: false });
  let count = 0;
  for (const segment of wordSegmenter().segment(text)) if (segment.isWordLike) count++;
  return count;
}

/**
 * What assembling an article sets up once per process, each on first use: markdown-it,
 * sanitize-html (with htmlparser2) and ICU's word and sentence segmenters (~12 ms together).
 */
const articleToolSetups: readonly (() => unknown)[] = [
  markdownRenderer,
  htmlSanitizer,
  wordSegmenter,
  sentenceSegmenter,
];
let articleToolsScheduled = false;
/**
 * How long after the first outline request the tools start: time for the request to go out
 * (a cold connection's TLS handshake included) before they take the CPU; a model's answer takes
 * far longer. Measured end to end (docs/decisions.md), starting at once delayed the request.
 */
const TOOLS_START_AFTER_MS = 50;

/**
 * Sets the article tools up while the model writes the first outline of the process, instead of
 * at a cold start's init: one tool per turn of the event loop, so an answer that arrives meanwhile
 * waits for one tool at most (whatever has not run by then is set up on first use).
 */
function setUpArticleToolsMeanwhile(): void {
  if (articleToolsScheduled) return;
  articleToolsScheduled = true;
  let settle = () => {};
  // Where a test runner's afterAll can wait for it (its modules must not load after the test file).
  (globalThis as Record<symbol, unknown>)[ARTICLE_TOOLS_SETTLED] = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const setUp = (index: number) => {
    // A tool that fails here is set up again on first use, where its failure counts.
    try {
      articleToolSetups[index]?.();
    } catch {}
    if (index + 1 < articleToolSetups.length) setImmediate(setUp, index + 1);
    else settle();
  };
  setTimeout(setUp, TOOLS_START_AFTER_MS, 0).unref();
}

/** The global a settled promise of the article tools' set-up is kept under, once scheduled. */
export const ARTICLE_TOOLS_SETTLED = Symbol.for('inkpress.articleToolsSettled');
