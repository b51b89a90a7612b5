import { accountStore } from '../composition/accounts';
import { readArticleDeps } from '../composition/articles';
import { systemClock } from '../composition/clock';
import { generationQueue } from '../composition/generation-queue';
import { publicationStore } from '../composition/publications';
import { retryArticle } from '../core/articles/article-actions';
import { apiHandler } from './http/api-handler';
import { accepted } from './http/responses';

export const handler = apiHandler(
  'RetryArticle',
  (config) => ({
    ...readArticleDeps(config),
    accounts: accountStore(config),
    publications: publicationStore(config),
    queue: generationQueue(config),
    clock: systemClock,
  }),
  async ({ accountId, pathParameters }, deps) =>
    accepted(await retryArticle(deps, accountId, pathParameters.article_uuid ?? '')),
);
