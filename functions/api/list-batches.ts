import { batchStore } from '../composition/batches';
import { listBatches } from '../core/articles/read-batches';
import { parsePage } from '../core/page-query';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'ListBatches',
  (config) => ({ batches: batchStore(config) }),
  async ({ accountId, baseUrl, query }, deps) =>
    ok(await listBatches(deps, accountId, parsePage(query), baseUrl)),
);
