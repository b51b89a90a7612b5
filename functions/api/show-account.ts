import { accountStore, usageStore } from '../composition/accounts';
import { systemClock } from '../composition/clock';
import { showAccount } from '../core/usage';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'ShowAccount',
  (config) => ({ accounts: accountStore(config), usage: usageStore(config), clock: systemClock }),
  async ({ accountId }, deps) => ok(await showAccount(deps, accountId)),
);
