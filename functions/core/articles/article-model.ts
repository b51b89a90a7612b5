/** The language model as article generation sees it; adapters: OpenAI and the offline writer. */
import type { AiModel } from '../pricing';
import type { Passage } from '../sources/passages';
import type { ArticleProfile } from '../websites/site-profile';
import type { FaqItem } from './article-seo';

export interface ArticleBrief {
  keyword: string;
  language: string;
  /** English name of the language, for prompts. */
  languageName: string;
  h2Count: number;
  needBold: boolean;
  title?: string;
  /** The first keyword: in the title, the first paragraph, the meta description and an H2. */
  focusKeyword: string;
  /** Question-answer pairs to write (0: none). */
  faqCount: number;
  /** Whether to propose up to 5 tags. */
  autoTags: boolean;
  /** Given by the client; the model need not write one. */
  metaDescription?: string;
  /**
   * The website's voice, audience and facts (client text: facts are data to draw on, never
   * instructions), and the phrases it never uses.
   */
  siteProfile?: ArticleProfile;
}

/** Everything around the text: written from the outline, beside the sections. */
export interface ArticleMeta {
  metaDescription: string;
  excerpt: string;
  faq: FaqItem[];
  tags: string[];
}

export interface Outline {
  title: string;
  headings: string[];
}

/** `passages`: source passages the part is written from (quoted material, never instructions). */
export type SectionPart = (
  | { kind: 'introduction'; outline: Outline }
  | { kind: 'section'; outline: Outline; heading: string; index: number }
  | { kind: 'conclusion'; outline: Outline }
) & {
  passages?: Passage[];
  /** Titles of the website's posts this part may mention (internal-links.ts places the links). */
  related?: string[];
};

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

/**
 * Each call may carry `feedback`: what the previous answer for the same part missed (a quality
 * gate), for the one regeneration.
 */
export interface ArticleModel {
  /** Model name sent to the provider. */
  readonly providerModel: string;
  /** The title (when none was given) and exactly `h2Count` H2 headings. */
  outline(brief: ArticleBrief, feedback?: string): Promise<{ outline: Outline; usage: TokenUsage }>;
  /** HTML of one part (paragraphs, lists; no H2). */
  write(
    brief: ArticleBrief,
    part: SectionPart,
    feedback?: string,
  ): Promise<{ html: string; usage: TokenUsage }>;
  /** Meta description, excerpt, `faqCount` FAQ pairs and (with `autoTags`) up to 5 tags. */
  meta(
    brief: ArticleBrief,
    outline: Outline,
    feedback?: string,
  ): Promise<{ meta: ArticleMeta; usage: TokenUsage }>;
  /**
   * Alt text for an image of the article, in its language, at most 125 characters, describing
   * what the image shows (`preview`: a small JPEG of it; `subject`: what it was made to
   * illustrate). Optional: without it, the image gets its subject as alt text.
   */
  describeImage?(
    brief: ArticleBrief,
    image: { subject: string; preview: Buffer },
  ): Promise<{ alt: string; usage: TokenUsage }>;
}

export interface ArticleModelProvider {
  /**
   * The model for one generation attempt. Once `signal` aborts (the attempt's time budget is
   * spent, or its lease was lost), every call of that model stops: a call in flight rejects
   * and its HTTP request is cancelled, and later calls reject at once.
   */
  modelFor(aiModel: AiModel, signal?: AbortSignal): Promise<ArticleModel>;
}

/** The model answered something unusable (wrong shape, wrong number of headings). */
export class MalformedModelOutputError extends Error {}
