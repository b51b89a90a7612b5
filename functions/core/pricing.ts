/** The one pricing table: credits = model base + per-H2 price x h2_count + bold surcharge. */
export const AI_MODELS = ['gpt-3.5-turbo', 'gpt-4'] as const;
export type AiModel = (typeof AI_MODELS)[number];

const priceTable: Record<AiModel, { base: number; perH2: number }> = {
  'gpt-3.5-turbo': { base: 1, perH2: 1 },
  'gpt-4': { base: 4, perH2: 2 },
};

export const BOLD_SURCHARGE = 1;

export function priceOf(request: { aiModel: AiModel; h2Count: number; needBold: boolean }): number {
  const { base, perH2 } = priceTable[request.aiModel];
  return base + perH2 * request.h2Count + (request.needBold ? BOLD_SURCHARGE : 0);
}
