import { usageStore } from '../composition/accounts';
import { systemClock } from '../composition/clock';
import { accountUsage } from '../core/usage';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'AccountUsage',
  (config) => ({ usage: usageStore(config), clock: systemClock }),
  async ({ accountId, query }, deps) => ok(await accountUsage(deps, accountId, query)),
);
