/**
 * The one pricing table: credits = model base + per-H2 price x h2_count + bold surcharge + the
 * FAQ price (per started block of 5 question-answer pairs) + the images (IMAGE_PRICES: a featured
 * image generated or taken from the client's URL, and each inline image, generated). Tags, auto
 * tags and the meta description, excerpt and focus keyword are free: they come with the same
 * model calls. An image that cannot be had gives its own price back (article-images.ts).
 */
export const AI_MODELS = ['gpt-3.5-turbo', 'gpt-4'] as const;
export type AiModel = (typeof AI_MODELS)[number];

const priceTable: Record<AiModel, { base: number; perH2: number; perFaqBlock: number }> = {
  'gpt-3.5-turbo': { base: 1, perH2: 1, perFaqBlock: 1 },
  'gpt-4': { base: 4, perH2: 2, perFaqBlock: 2 },
};

export const BOLD_SURCHARGE = 1;
export const FAQ_PAIRS_PER_BLOCK = 5;

/** Credits per image, whatever the text model: generating one costs more than converting the client's. */
export const IMAGE_PRICES = { generated: 2, fromUrl: 1 } as const;

/** The price of one image slot: `generate` or the client's URL. */
export function imagePriceOf(featuredImage: string): number {
  return featuredImage === 'generate' ? IMAGE_PRICES.generated : IMAGE_PRICES.fromUrl;
}

export function priceOf(request: {
  aiModel: AiModel;
  h2Count: number;
  needBold: boolean;
  faqCount?: number;
  /** `generate` or the client's image URL; absent: no featured image. */
  featuredImage?: string;
  inlineImages?: number;
}): number {
  const { base, perH2, perFaqBlock } = priceTable[request.aiModel];
  const faqBlocks = Math.ceil((request.faqCount ?? 0) / FAQ_PAIRS_PER_BLOCK);
  const images =
    (request.featuredImage ? imagePriceOf(request.featuredImage) : 0) +
    IMAGE_PRICES.generated * (request.inlineImages ?? 0);
  return (
    base +
    perH2 * request.h2Count +
    (request.needBold ? BOLD_SURCHARGE : 0) +
    perFaqBlock * faqBlocks +
    images
  );
}
