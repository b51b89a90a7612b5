import { batchStore } from '../composition/batches';
import { showBatch } from '../core/articles/read-batches';
import { parsePage } from '../core/page-query';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'ShowBatch',
  (config) => ({ batches: batchStore(config) }),
  async ({ accountId, baseUrl, pathParameters, query }, deps) =>
    ok(await showBatch(deps, accountId, pathParameters.batch_uuid ?? '', parsePage(query), baseUrl)),
);
