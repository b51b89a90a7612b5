/**
 * A deterministic writer for local use without a language-model key. Its text says that it is
 * offline filler; it is never used when deployed.
 */
import type {
  ArticleBrief,
  ArticleMeta,
  ArticleModel,
  ArticleModelProvider,
  Outline,
  SectionPart,
  TokenUsage,
} from '../../core/articles/article-model';
import { textToHtml } from '../../core/html-safety';

const NO_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0 };
const ASPECTS = [
  'what it is',
  'why it matters',
  'how to get started',
  'common mistakes',
  'best practices',
  'tools that help',
  'costs and budget',
  'measuring results',
  'advanced tips',
  'frequently asked questions',
];

export const OFFLINE_NOTICE =
  'Offline draft: written by the Inkpress offline writer, not by a language model.';

export class OfflineArticleModel implements ArticleModel {
  readonly providerModel = 'inkpress-offline-writer';

  async outline(brief: ArticleBrief): Promise<{ outline: Outline; usage: TokenUsage }> {
    const topic = primaryKeyword(brief);
    const headings = Array.from(
      { length: brief.h2Count },
      (_, index) => `${capitalize(topic)}: ${ASPECTS[index % ASPECTS.length]}`,
    );
    return {
      outline: { title: brief.title ?? `${capitalize(topic)}: a practical guide`, headings },
      usage: NO_USAGE,
    };
  }

  async write(brief: ArticleBrief, part: SectionPart): Promise<{ html: string; usage: TokenUsage }> {
    const written = this.writePart(brief, part);
    // A sentence for each post of the site the part may mention: where the internal links go.
    const related = (part.related ?? [])
      .map((title) => `<p>[${brief.language}] On this site, see also: ${textToHtml(title)}.</p>`)
      .join('');
    return { ...written, html: written.html + related };
  }

  private writePart(brief: ArticleBrief, part: SectionPart): { html: string; usage: TokenUsage } {
    const topic = primaryKeyword(brief);
    const key = brief.needBold ? `<strong>${topic}</strong>` : topic;
    const note = `[${brief.language}] `;
    switch (part.kind) {
      case 'introduction':
        return {
          html: `<p>${note}This article covers ${key} in ${part.outline.headings.length} sections${audienceOf(brief)}.</p><p><em>${OFFLINE_NOTICE}${voiceOf(brief)}</em></p>`,
          usage: NO_USAGE,
        };
      case 'conclusion':
        return {
          html: `<p>${note}That is the essential about ${key}. Set OPENAI_API_KEY for real text.</p>${factOf(brief)}`,
          usage: NO_USAGE,
        };
      case 'section':
        return {
          html: `<p>${note}Section ${part.index + 1} explains ${part.heading.toLowerCase()} for ${key}.</p><ul><li>One point about ${topic}.</li><li>Another point about ${topic}.</li></ul>`,
          usage: NO_USAGE,
        };
    }
  }

  async meta(brief: ArticleBrief, outline: Outline): Promise<{ meta: ArticleMeta; usage: TokenUsage }> {
    const topic = primaryKeyword(brief);
    const description = `${capitalize(topic)} in ${outline.headings.length} short sections: ${ASPECTS.slice(0, 4).join(', ')}. An offline draft by the Inkpress offline writer.`;
    return {
      meta: {
        metaDescription: fitOfflineDescription(description),
        excerpt: `[${brief.language}] A practical guide to ${topic} in ${outline.headings.length} sections.`,
        faq: Array.from({ length: brief.faqCount }, (_, index) => ({
          question: `${capitalize(topic)}: offline question ${index + 1}?`,
          answer: `[${brief.language}] Offline answer ${index + 1} about ${topic}. Set OPENAI_API_KEY for real answers.`,
        })),
        tags: brief.autoTags
          ? [
              ...new Set([
                topic,
                ...brief.keyword.split(',').map((keyword) => keyword.trim()),
                'offline draft',
              ]),
            ]
              .filter((tag) => tag !== '' && tag.length <= 50)
              .slice(0, 5)
          : [],
      },
      usage: NO_USAGE,
    };
  }
}

/** 120-160 characters: padded with a filler sentence, cut at a word. */
function fitOfflineDescription(text: string): string {
  const padded =
    text.length < 120 ? `${text} Set OPENAI_API_KEY for a description written by a model.` : text;
  if (padded.length <= 160) return padded;
  return padded.slice(0, padded.lastIndexOf(' ', 160));
}

export class OfflineModelProvider implements ArticleModelProvider {
  private readonly model = new OfflineArticleModel();

  /** The writer, stopped by the attempt's `signal` like a model on the network: no call once it aborted. */
  async modelFor(_aiModel?: string, signal?: AbortSignal): Promise<ArticleModel> {
    return signal ? abortable(this.model, signal) : this.model;
  }
}

/** The website profile, as far as filler can follow it: its audience named, its voice noted, its first fact quoted. */
function audienceOf(brief: ArticleBrief): string {
  const audience = brief.siteProfile?.audience;
  return audience ? `, for ${textToHtml(audience)}` : '';
}

function voiceOf(brief: ArticleBrief): string {
  const voice = brief.siteProfile?.voice;
  return voice ? ` Voice asked for: ${textToHtml(voice)}` : '';
}

function factOf(brief: ArticleBrief): string {
  const fact = brief.siteProfile?.facts?.split('\n')[0];
  return fact ? `<p>${textToHtml(fact)}</p>` : '';
}

/** `model` whose every call rejects with the signal's reason once `signal` aborted. */
export function abortable(model: ArticleModel, signal: AbortSignal): ArticleModel {
  return {
    providerModel: model.providerModel,
    outline: async (...args) => {
      signal.throwIfAborted();
      return model.outline(...args);
    },
    write: async (...args) => {
      signal.throwIfAborted();
      return model.write(...args);
    },
    meta: async (...args) => {
      signal.throwIfAborted();
      return model.meta(...args);
    },
  };
}

function primaryKeyword(brief: ArticleBrief): string {
  return (brief.keyword.split(',')[0] ?? brief.keyword).trim();
}

function capitalize(value: string): string {
  return value.charAt(0).toUpperCase() + value.slice(1);
}
