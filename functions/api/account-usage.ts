import { systemClock, usageStore } from '../adapters/dependencies';
import { accountUsage } from '../core/usage';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId, query }) =>
  ok(await accountUsage({ usage: usageStore(), clock: systemClock }, accountId, query)),
);
