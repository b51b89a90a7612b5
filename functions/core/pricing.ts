/**
 * The one pricing table: credits = model base + per-H2 price x h2_count + bold surcharge + the
 * FAQ price (per started block of 5 question-answer pairs). Tags, auto tags and the meta
 * description, excerpt and focus keyword are free: they come with the same model calls.
 */
export const AI_MODELS = ['gpt-3.5-turbo', 'gpt-4'] as const;
export type AiModel = (typeof AI_MODELS)[number];

const priceTable: Record<AiModel, { base: number; perH2: number; perFaqBlock: number }> = {
  'gpt-3.5-turbo': { base: 1, perH2: 1, perFaqBlock: 1 },
  'gpt-4': { base: 4, perH2: 2, perFaqBlock: 2 },
};

export const BOLD_SURCHARGE = 1;
export const FAQ_PAIRS_PER_BLOCK = 5;

export function priceOf(request: {
  aiModel: AiModel;
  h2Count: number;
  needBold: boolean;
  faqCount?: number;
}): number {
  const { base, perH2, perFaqBlock } = priceTable[request.aiModel];
  const faqBlocks = Math.ceil((request.faqCount ?? 0) / FAQ_PAIRS_PER_BLOCK);
  return base + perH2 * request.h2Count + (request.needBold ? BOLD_SURCHARGE : 0) + perFaqBlock * faqBlocks;
}
