import { accountDeps } from '../adapters/dependencies';
import { showAccount } from '../core/usage';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId }) => ok(await showAccount(accountDeps(), accountId)));
