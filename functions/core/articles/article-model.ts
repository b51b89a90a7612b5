/** The language model as article generation sees it; adapters: OpenAI and the offline writer. */
import type { AiModel } from '../pricing';

export interface ArticleBrief {
  keyword: string;
  language: string;
  /** English name of the language, for prompts. */
  languageName: string;
  h2Count: number;
  needBold: boolean;
  title?: string;
}

export interface Outline {
  title: string;
  headings: string[];
}

export type SectionPart =
  | { kind: 'introduction'; outline: Outline }
  | { kind: 'section'; outline: Outline; heading: string; index: number }
  | { kind: 'conclusion'; outline: Outline };

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ArticleModel {
  /** Model name sent to the provider. */
  readonly providerModel: string;
  /** The title (when none was given) and exactly `h2Count` H2 headings. */
  outline(brief: ArticleBrief): Promise<{ outline: Outline; usage: TokenUsage }>;
  /** HTML of one part (paragraphs, lists; no H2). */
  write(brief: ArticleBrief, part: SectionPart): Promise<{ html: string; usage: TokenUsage }>;
}

export interface ArticleModelProvider {
  modelFor(aiModel: AiModel): Promise<ArticleModel>;
}

/** The model answered something unusable (wrong shape, wrong number of headings). */
export class MalformedModelOutputError extends Error {}
