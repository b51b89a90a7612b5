/**
 * An article's images: the featured image (`generate`, or the client's https URL) and up to 3
 * generated inline images after chosen H2 sections. They are made beside the sections (the
 * generation starts them once the outline is known), each one stored as WebP or JPEG (1200 px
 * wide at most, 200 KB at most) with alt text in the article's language. An image that cannot be
 * had leaves the article without it: its credits go back in the transaction that completes the
 * article (exactly once), and a quality warning says which.
 */

import {
  type ImageFetcher,
  type ImageGenerator,
  type ImageProcessor,
  type ImageStore,
  ImageUnavailableError,
  type PreparedImage,
  type StoredImageType,
} from '../images/ports';
import { IMAGE_PRICES, imagePriceOf } from '../pricing';
import type { ArticleBrief, ArticleModel, Outline, TokenUsage } from './article-model';
import { plainTextFromMarkdown } from './markdown-cleanup';

export const MAX_INLINE_IMAGES = 3;
export const MAX_ALT_LENGTH = 125;
export const FEATURED_IMAGE_CHOICES = ['none', 'generate'] as const;

export type ImageSlot = 'featured' | `inline-${number}`;

export interface ArticleImage {
  slot: ImageSlot;
  /** Where the bytes are kept (ImageStore). */
  key: string;
  alt: string;
  width: number;
  height: number;
  mimeType: StoredImageType;
  bytes: number;
  /** `generated` (Images API), `placeholder` (the offline writer's), `url` (the client's). */
  source: 'generated' | 'placeholder' | 'url';
  /** Inline images: the H2 section (0-based) it follows. */
  afterSection?: number;
}

export type ImageWarning = 'featured_image_unavailable' | 'inline_image_unavailable';

/** What an article asks for, one entry per slot, with the price each one carries. */
export interface WantedImage {
  slot: ImageSlot;
  /** `generate`, or the client's URL (featured only). */
  from: 'generate' | { url: string };
  price: number;
  afterSection?: number;
  /** Plain text the image illustrates (the section heading for inline ones). */
  subject?: string;
}

export interface ImageRequest {
  accountId: string;
  articleUuid: string;
  h2Count: number;
  featuredImage?: string;
  inlineImages?: number;
}

/** Whether a `featured_image` value is a keyword or an absolute http(s) URL. */
export function isFeaturedImageChoice(value: string): boolean {
  if ((FEATURED_IMAGE_CHOICES as readonly string[]).includes(value)) return true;
  return imageUrlOf(value) !== undefined;
}

/** The URL a `featured_image` names; undefined for a keyword or anything that is no http(s) URL. */
export function imageUrlOf(value: string): URL | undefined {
  if (!/^https?:\/\//i.test(value)) return undefined;
  try {
    const url = new URL(value);
    if (url.username !== '' || url.password !== '' || url.hostname === '') return undefined;
    return url;
  } catch {
    return undefined;
  }
}

/** The H2 sections (0-based) inline images follow: spread evenly, never after the same one twice. */
export function inlineSections(h2Count: number, inlineImages: number): number[] {
  const count = Math.min(inlineImages, h2Count);
  return Array.from({ length: count }, (_, index) =>
    Math.min(h2Count - 1, Math.floor(((index + 1) * h2Count) / (count + 1))),
  ).map((section, index, all) => (index > 0 && section <= (all[index - 1] ?? -1) ? index : section));
}

export function imageKey(article: Pick<ImageRequest, 'accountId' | 'articleUuid'>, slot: ImageSlot): string {
  return `articles/${article.accountId}/${article.articleUuid}/${slot}`;
}

/** The images an article asks for, in slot order. */
export function wantedImages(article: ImageRequest, headings: string[] = []): WantedImage[] {
  const wanted: WantedImage[] = [];
  const featured = article.featuredImage;
  if (featured && featured !== 'none') {
    wanted.push({
      slot: 'featured',
      from: featured === 'generate' ? 'generate' : { url: featured },
      price: imagePriceOf(featured),
    });
  }
  inlineSections(article.h2Count, article.inlineImages ?? 0).forEach((section, index) => {
    const heading = headings[section];
    wanted.push({
      slot: `inline-${index + 1}`,
      from: 'generate',
      price: IMAGE_PRICES.generated,
      afterSection: section,
      ...(heading ? { subject: heading } : {}),
    });
  });
  return wanted;
}

/** The prompt of a generated image: the title, keyword (and section), and no text in the image. */
export function imagePrompt(title: string, keyword: string, subject?: string): string {
  const about = subject
    ? `the section "${subject}" of an article titled "${title}" about ${keyword}`
    : `an article titled "${title}" about ${keyword}`;
  return `A high-quality editorial photograph illustrating ${about}. Natural light, realistic detail. No text, letters, numbers, words, captions, logos or watermarks anywhere in the image.`;
}

/**
 * Plain text as any model text (markdown and tags dropped, entities decoded once, control
 * characters removed, a leftover `<` `>` as ‹ ›), without quotes, at most MAX_ALT_LENGTH
 * characters (cut at a word where it can be).
 */
export function fitAltText(text: string): string {
  const clean = plainTextFromMarkdown(text)
    .replace(/["\u201c\u201d]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const characters = [...clean];
  if (characters.length <= MAX_ALT_LENGTH) return clean;
  const cut = characters.slice(0, MAX_ALT_LENGTH).join('');
  const lastSpace = cut.lastIndexOf(' ');
  return (lastSpace > MAX_ALT_LENGTH / 2 ? cut.slice(0, lastSpace) : cut).replace(/[\s,;:.-]+$/, '');
}

export interface ArticleImageDeps {
  generator: ImageGenerator;
  fetcher: ImageFetcher;
  processor: ImageProcessor;
  store: ImageStore;
}

/**
 * The storing of one attempt's images. Once the attempt ends in failure it is closed: no image
 * is stored after that, and closing waits for those being stored, so that deleting the article's
 * images afterwards leaves none behind (an image made meanwhile would land after the clean-up).
 */
export class ImageStoring {
  private closed = false;
  private readonly inFlight = new Set<Promise<void>>();

  async put(store: ImageStore, key: string, image: PreparedImage): Promise<void> {
    if (this.closed) throw new ImageUnavailableError('The attempt ended before the image was stored.');
    const put = store.put(key, image);
    this.inFlight.add(put);
    try {
      await put;
    } finally {
      this.inFlight.delete(put);
    }
  }

  /** No image is stored after this; resolves once those being stored are (stored or failed). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
  }
}

export interface ImagesOutcome {
  images: ArticleImage[];
  warnings: ImageWarning[];
  /** Credits of the images that could not be had. */
  refund: number;
  /** Why each missing image is missing (for the log). */
  failures: { slot: ImageSlot; reason: string }[];
  usage: TokenUsage;
}

/**
 * Makes, describes and stores every image the article asks for, all at once. Never throws for
 * an image that cannot be had: it is left out, with its price in `refund` and a warning.
 */
export async function produceArticleImages(
  deps: ArticleImageDeps,
  model: Pick<ArticleModel, 'describeImage'>,
  brief: ArticleBrief,
  article: ImageRequest,
  outline: Outline,
  storing: ImageStoring = new ImageStoring(),
): Promise<ImagesOutcome> {
  const wanted = wantedImages(article, outline.headings);
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  const results = await Promise.all(
    wanted.map(async (image) => {
      try {
        return {
          image,
          stored: await produceOne(deps, model, brief, article, outline, image, usage, storing),
        };
      } catch (error) {
        return { image, reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
      }
    }),
  );
  const outcome: ImagesOutcome = { images: [], warnings: [], refund: 0, failures: [], usage };
  for (const result of results) {
    if ('stored' in result && result.stored) {
      outcome.images.push(result.stored);
      continue;
    }
    const { image } = result;
    outcome.refund += image.price;
    outcome.failures.push({ slot: image.slot, reason: 'reason' in result ? result.reason : 'unknown' });
    const warning = warningOf(image.slot);
    if (!outcome.warnings.includes(warning)) outcome.warnings.push(warning);
  }
  return outcome;
}

async function produceOne(
  deps: ArticleImageDeps,
  model: Pick<ArticleModel, 'describeImage'>,
  brief: ArticleBrief,
  article: ImageRequest,
  outline: Outline,
  image: WantedImage,
  usage: TokenUsage,
  storing: ImageStoring,
): Promise<ArticleImage> {
  const raw =
    image.from === 'generate'
      ? await deps.generator.generate(imagePrompt(outline.title, brief.focusKeyword, image.subject))
      : await deps.fetcher.fetch(image.from.url);
  // The description (from a small preview of the bytes) runs beside the conversion, which takes
  // a few hundred ms of CPU per image: neither waits for the other.
  const [prepared, alt] = await Promise.all([
    deps.processor.prepare(raw),
    altTextFor(deps, model, brief, outline, image, raw, usage),
  ]);
  const key = imageKey(article, image.slot);
  await storing.put(deps.store, key, prepared);
  return {
    slot: image.slot,
    key,
    alt,
    width: prepared.width,
    height: prepared.height,
    mimeType: prepared.mimeType,
    bytes: prepared.bytes.length,
    source: image.from === 'generate' ? deps.generator.source : 'url',
    ...(image.afterSection !== undefined ? { afterSection: image.afterSection } : {}),
  };
}

/**
 * The model's description of the image in the article's language; without one (no such call, a
 * failure, an empty answer) the deterministic fallback: the section heading or the title, which
 * the image was made to illustrate and which is in the article's language.
 */
async function altTextFor(
  deps: ArticleImageDeps,
  model: Pick<ArticleModel, 'describeImage'>,
  brief: ArticleBrief,
  outline: Outline,
  image: WantedImage,
  bytes: Buffer,
  usage: TokenUsage,
): Promise<string> {
  const subject = image.subject ?? outline.title;
  const fallback = fitAltText(subject);
  if (!model.describeImage) return fallback;
  try {
    const preview = await deps.processor.preview(bytes);
    const described = await model.describeImage(brief, { subject, preview });
    usage.promptTokens += described.usage.promptTokens;
    usage.completionTokens += described.usage.completionTokens;
    const alt = fitAltText(described.alt);
    return alt === '' ? fallback : alt;
  } catch {
    return fallback;
  }
}

export { ImageUnavailableError };

/**
 * The images of an article, started beside its sections; undefined when it asks for none. Without
 * image deps (a function that cannot make images) every image is unavailable, and refunded.
 */
export function imagesBeside(
  deps: ArticleImageDeps | undefined,
  model: Pick<ArticleModel, 'describeImage'>,
  brief: ArticleBrief,
  article: ImageRequest,
  outline: Outline,
  storing?: ImageStoring,
): Promise<ImagesOutcome> | undefined {
  const wanted = wantedImages(article);
  if (wanted.length === 0) return undefined;
  if (!deps) {
    const outcome: ImagesOutcome = {
      images: [],
      warnings: [],
      refund: 0,
      failures: [],
      usage: { promptTokens: 0, completionTokens: 0 },
    };
    for (const image of wanted) {
      outcome.refund += image.price;
      outcome.failures.push({ slot: image.slot, reason: 'Images cannot be made here.' });
      const warning = warningOf(image.slot);
      if (!outcome.warnings.includes(warning)) outcome.warnings.push(warning);
    }
    return Promise.resolve(outcome);
  }
  const outcome = produceArticleImages(deps, model, brief, article, outline, storing);
  outcome.catch(() => undefined);
  return outcome;
}

function warningOf(slot: ImageSlot): ImageWarning {
  return slot === 'featured' ? 'featured_image_unavailable' : 'inline_image_unavailable';
}

/** The storage keys an article's images may have (for clean-up). */
export function imageKeysOf(article: ImageRequest): string[] {
  return wantedImages(article).map((image) => imageKey(article, image.slot));
}
