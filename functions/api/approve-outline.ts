import { articleBeforeGenerationDeps } from '../composition/articles';
import { systemClock } from '../composition/clock';
import { generationQueue } from '../composition/generation-queue';
import { approveOutline } from '../core/articles/outline-review';
import { apiHandler } from './http/api-handler';
import { accepted } from './http/responses';

export const handler = apiHandler(
  'ApproveOutline',
  (config) => ({
    ...articleBeforeGenerationDeps(config),
    queue: generationQueue(config),
    clock: systemClock,
  }),
  async ({ accountId, pathParameters, fields }, deps) =>
    accepted(await approveOutline(deps, accountId, pathParameters.article_uuid ?? '', fields)),
);
