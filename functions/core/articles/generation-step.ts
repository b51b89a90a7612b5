/**
 * What one generation attempt writes with the model, around `writeArticle`: the website
 * profile's banned phrases enforced (each answer that uses one asked for once more, then the
 * phrase rewritten out of whatever still has it, with a quality warning), and outline review
 * (an article created with `outline_review` stops after its outline; once approved, it is
 * written with exactly the approved outline).
 */
import type { Article } from './article';
import type { ArticleModel, Outline, TokenUsage } from './article-model';
import { BannedPhrases, scrubBannedPhrases, withBannedPhraseRetry } from './banned-phrases';
import { awaitsOutline } from './outline-rules';
import {
  articleBrief,
  planOutline,
  UsageTotal,
  type WriteOptions,
  type WrittenArticle,
  writeArticle,
} from './write-article';

export type GenerationStep =
  | { kind: 'written'; written: WrittenArticle }
  /** The outline, to be held for the client's approval. */
  | { kind: 'outline'; outline: Outline; usage: TokenUsage };

/** The attempt's work: the whole article, or only its outline while it awaits a review. */
export async function generationStep(
  model: ArticleModel,
  article: Article,
  options: WriteOptions = {},
): Promise<GenerationStep> {
  const banned = new BannedPhrases(article.siteProfile?.bannedPhrases ?? [], article.language);
  const guarded = withBannedPhraseRetry(model, banned);
  if (awaitsOutline(article)) {
    const usage = new UsageTotal();
    const { outline } = await planOutline(guarded, articleBrief(article), article, usage);
    // The client reads and edits it: no banned phrase in it either.
    const removed = new Set<string>();
    const clean = {
      title: banned.rewrite(outline.title, removed) || outline.title,
      headings: outline.headings.map((heading) => banned.rewrite(heading, removed) || heading),
    };
    return { kind: 'outline', outline: clean, usage: usage.total };
  }
  const approved = article.outlineApproved && article.outline ? article.outline : undefined;
  const written = await writeArticle(
    approved ? withApprovedOutline(guarded, approved) : guarded,
    article,
    options,
  );
  return { kind: 'written', written: withoutBannedPhrases(withOutlineUsage(written, article), banned) };
}

/** Writes the article (no outline review); the published text never holds one of its banned phrases. */
export async function writeGeneration(
  model: ArticleModel,
  article: Article,
  options: WriteOptions = {},
): Promise<WrittenArticle> {
  const step = await generationStep(model, { ...article, outlineReview: false }, options);
  if (step.kind !== 'written') throw new Error('Unreachable: no outline review.');
  return step.written;
}

/** The model, whose outline is the approved one (no call, no tokens): the article is written with exactly it. */
export function withApprovedOutline(model: ArticleModel, outline: Outline): ArticleModel {
  return {
    providerModel: model.providerModel,
    outline: async () => ({
      outline: { title: outline.title, headings: [...outline.headings] },
      usage: { promptTokens: 0, completionTokens: 0 },
    }),
    write: (brief, part, feedback) => model.write(brief, part, feedback),
    meta: (brief, outline, feedback) => model.meta(brief, outline, feedback),
  };
}

/** The outline's tokens (spent before the review) count with the article's. */
function withOutlineUsage(written: WrittenArticle, article: Article): WrittenArticle {
  if (!article.outlineUsage) return written;
  return {
    ...written,
    usage: {
      promptTokens: written.usage.promptTokens + article.outlineUsage.promptTokens,
      completionTokens: written.usage.completionTokens + article.outlineUsage.completionTokens,
    },
  };
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
