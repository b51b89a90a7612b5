/** Article generation through the `openai` client (OpenAI or any compatible server). */
import OpenAI from 'openai';
import { makeParseableResponseFormat } from 'openai/lib/parser';
import type * as z from 'zod/mini';
import { en as english } from 'zod/v4/locales';
import {
  type ArticleBrief,
  type ArticleMeta,
  type ArticleModel,
  type ArticleModelProvider,
  MalformedModelOutputError,
  type Outline,
  type SectionPart,
  type TokenUsage,
} from '../../core/articles/article-model';
import type { AiModel } from '../../core/pricing';
import { fencedPassages } from '../../core/sources/passages';
import { siteProfileInstructions } from './site-profile-prompt';
import { META_JSON_SCHEMA, metaSchema, OUTLINE_JSON_SCHEMA, outlineSchema } from './structured-answers';

/** English messages for this parse only (zod/mini loads no locale; the global config stays untouched). */
const englishErrors = english().localeError;

/**
 * What `zodResponseFormat` of `openai/helpers/zod` builds (the same strict JSON schema and
 * parser), from a zod/mini schema and its JSON schema written out ahead: that helper pulls full
 * zod and zod v3 into the bundle.
 */
function jsonSchemaResponseFormat<T extends z.ZodMiniType>(
  schema: T,
  jsonSchema: Record<string, unknown>,
  name: string,
) {
  return makeParseableResponseFormat(
    { type: 'json_schema', json_schema: { name, strict: true, schema: jsonSchema } },
    (content): z.infer<T> => schema.parse(JSON.parse(content), { error: englishErrors }),
  );
}

/** A structured answer the model is asked for: its schema, and the response format built from it once. */
function structuredAnswer<T extends z.ZodMiniType>(
  schema: T,
  jsonSchema: Record<string, unknown>,
  name: string,
) {
  return { schema, name, responseFormat: jsonSchemaResponseFormat(schema, jsonSchema, name) };
}
type StructuredAnswer<T extends z.ZodMiniType> = ReturnType<typeof structuredAnswer<T>>;

const outlineAnswer = structuredAnswer(outlineSchema, OUTLINE_JSON_SCHEMA, 'outline');
const metaAnswer = structuredAnswer(metaSchema, META_JSON_SCHEMA, 'article_meta');

function usageOf(usage: OpenAI.CompletionUsage | undefined): TokenUsage {
  return { promptTokens: usage?.prompt_tokens ?? 0, completionTokens: usage?.completion_tokens ?? 0 };
}

const SYSTEM_PROMPT =
  'You are an expert SEO copywriter. You write accurate, helpful, original articles. You answer only with what is asked, no preamble.';

export class OpenAiArticleModel implements ArticleModel {
  constructor(
    private readonly client: OpenAI,
    readonly providerModel: string,
    /** The attempt's signal: aborting it cancels the request in flight (and the client's retries). */
    private readonly signal?: AbortSignal,
  ) {}

  /**
   * Request options of every call: a signal that follows the attempt's. One of its own per call,
   * since the client adds an abort listener to the signal it is given and never removes it (an
   * attempt makes dozens of calls with retries).
   */
  private get requestOptions(): OpenAI.RequestOptions {
    return this.signal ? { signal: AbortSignal.any([this.signal]) } : {};
  }

  async outline(brief: ArticleBrief, feedback?: string): Promise<{ outline: Outline; usage: TokenUsage }> {
    const titleRule = brief.title
      ? `The title is fixed: "${brief.title}". Return it unchanged.`
      : `Write a compelling SEO title (at most 70 characters) that contains the exact phrase "${brief.focusKeyword}".`;
    const { parsed, usage } = await this.structured(
      outlineAnswer,
      [
        `Plan an article in ${brief.languageName} (language code ${brief.language}) for the keyword(s): ${brief.keyword}.`,
        titleRule,
        `Give exactly ${brief.h2Count} H2 headings (plain text, no numbering, no markdown), in ${brief.languageName}.`,
        `At least one heading contains the exact phrase "${brief.focusKeyword}".`,
        ...siteProfileInstructions(brief),
        ...(feedback ? [feedback] : []),
      ].join('\n'),
    );
    return { outline: parsed, usage };
  }

  async meta(
    brief: ArticleBrief,
    outline: Outline,
    feedback?: string,
  ): Promise<{ meta: ArticleMeta; usage: TokenUsage }> {
    const { parsed, usage } = await this.structured(
      metaAnswer,
      [
        `Article title: ${outline.title}`,
        `Keyword(s): ${brief.keyword}`,
        `Sections:\n${outline.headings.map((heading, index) => `${index + 1}. ${heading}`).join('\n')}`,
        `Write in ${brief.languageName} (language code ${brief.language}), plain text without markdown or HTML:`,
        brief.metaDescription
          ? '- meta_description: an empty string (the description is given).'
          : `- meta_description: 120 to 160 characters, containing the exact phrase "${brief.focusKeyword}".`,
        '- excerpt: one or two sentences that make a reader want to read the article.',
        brief.faqCount > 0
          ? `- faq: exactly ${brief.faqCount} questions readers ask about the topic, not answered word for word by the sections, each with a 2-4 sentence answer.`
          : '- faq: an empty list.',
        brief.autoTags
          ? '- tags: up to 5 short tags (1-3 words each) for the article.'
          : '- tags: an empty list.',
        ...siteProfileInstructions(brief),
        ...(feedback ? [feedback] : []),
      ].join('\n'),
    );
    return {
      meta: {
        metaDescription: parsed.meta_description,
        excerpt: parsed.excerpt,
        faq: parsed.faq,
        tags: parsed.tags,
      },
      usage,
    };
  }

  /** One structured-output call; unusable answers are MalformedModelOutputError (retried like errors). */
  private async structured<T extends z.ZodMiniType>(
    { schema, name, responseFormat }: StructuredAnswer<T>,
    prompt: string,
  ): Promise<{ parsed: z.infer<T>; usage: TokenUsage }> {
    let completion: Awaited<ReturnType<OpenAI['chat']['completions']['parse']>>;
    try {
      completion = await this.client.chat.completions.parse(
        {
          model: this.providerModel,
          messages: [
            { role: 'system', content: SYSTEM_PROMPT },
            { role: 'user', content: prompt },
          ],
          response_format: responseFormat,
        },
        this.requestOptions,
      );
    } catch (error) {
      if (error instanceof OpenAI.APIError) throw error;
      throw new MalformedModelOutputError(
        `Unusable ${name}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const parsed = schema.safeParse(completion.choices[0]?.message.parsed);
    if (!parsed.success) throw new MalformedModelOutputError(`The model returned no usable ${name}.`);
    return { parsed: parsed.data, usage: usageOf(completion.usage) };
  }

  async write(
    brief: ArticleBrief,
    part: SectionPart,
    feedback?: string,
  ): Promise<{ html: string; usage: TokenUsage }> {
    const completion = await this.client.chat.completions.create(
      {
        model: this.providerModel,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: [sectionPrompt(brief, part), ...(feedback ? [feedback] : [])].join('\n') },
        ],
      },
      this.requestOptions,
    );
    const html = completion.choices[0]?.message.content;
    if (!html) throw new MalformedModelOutputError(`The model returned no text for the ${part.kind}.`);
    return { html, usage: usageOf(completion.usage) };
  }

  /** Alt text from the image itself (a small JPEG, as a data URL) and what it illustrates. */
  async describeImage(
    brief: ArticleBrief,
    image: { subject: string; preview: Buffer },
  ): Promise<{ alt: string; usage: TokenUsage }> {
    const completion = await this.client.chat.completions.create({
      model: this.providerModel,
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text: [
                `Write the alt text of this image in ${brief.languageName} (language code ${brief.language}).`,
                `It illustrates: "${image.subject}".`,
                `Keyword(s): ${brief.keyword}`,
                'Describe what the image shows, in at most 125 characters, plain text, one sentence, no quotes, not starting with "Image of".',
              ].join('\n'),
            },
            {
              type: 'image_url',
              image_url: { url: `data:image/jpeg;base64,${image.preview.toString('base64')}`, detail: 'low' },
            },
          ],
        },
      ],
    });
    const alt = completion.choices[0]?.message.content ?? '';
    return { alt, usage: usageOf(completion.usage) };
  }
}

function sectionPrompt(brief: ArticleBrief, part: SectionPart): string {
  const headings = part.outline.headings.map((heading, index) => `${index + 1}. ${heading}`).join('\n');
  const task =
    part.kind === 'introduction'
      ? `Write the introduction (2 short paragraphs); its first sentence contains the exact phrase "${brief.focusKeyword}".`
      : part.kind === 'conclusion'
        ? 'Write the conclusion (1-2 paragraphs), without a heading.'
        : `Write the body of the section "${part.heading}" (2-4 paragraphs; a list where it helps), without repeating its heading.`;
  return [
    `Article title: ${part.outline.title}`,
    `Keyword(s): ${brief.keyword}`,
    `Sections:\n${headings}`,
    task,
    `Write in ${brief.languageName} (language code ${brief.language}).`,
    'Answer in HTML using only <p>, <h3>, <ul>, <ol>, <li>, <em>, <blockquote> and <a href="https://...">. No <h1> or <h2>, no markdown, no code fences.',
    ...(part.related?.length
      ? [
          `Other articles of the same website cover these topics; where it fits naturally, mention some of them with their exact words (plain text, no links: links are added later): ${part.related.map((title) => `"${title}"`).join('; ')}.`,
        ]
      : []),
    'Do not repeat sentences or paragraphs of other sections.',
    brief.needBold
      ? 'Wrap the most important key phrases (2-4 per section) in <strong>.'
      : 'Do not use <strong> or <b>.',
    ...siteProfileInstructions(brief),
    ...(part.passages && part.passages.length > 0 ? [fencedPassages(part.passages)] : []),
  ].join('\n');
}

export interface OpenAiSettings {
  apiKey: () => Promise<string>;
  baseURL?: string;
  timeoutMs: number;
  maxRetries: number;
  /** Provider model name for each ai_model value. */
  providerModels: Record<AiModel, string>;
}

export class OpenAiModelProvider implements ArticleModelProvider {
  private client: Promise<OpenAI> | undefined;

  constructor(private readonly settings: OpenAiSettings) {}

  async modelFor(aiModel: AiModel, signal?: AbortSignal): Promise<ArticleModel> {
    this.client ??= this.settings.apiKey().then(
      (apiKey) =>
        new OpenAI({
          apiKey,
          timeout: this.settings.timeoutMs,
          maxRetries: this.settings.maxRetries,
          ...(this.settings.baseURL ? { baseURL: this.settings.baseURL } : {}),
        }),
    );
    return new OpenAiArticleModel(
      await this.client.catch((error) => {
        this.client = undefined;
        throw error;
      }),
      this.settings.providerModels[aiModel],
      signal,
    );
  }
}
