import { cmsClient, connectionProbes, loginFailureStore } from '../composition/site-access';
import { checkConnection } from '../core/websites/check-connection';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'CheckWebsite',
  (config) => ({
    cms: cmsClient(config),
    probes: connectionProbes(config),
    loginFailures: loginFailureStore(config),
    allowPlainHttp: config.allowPrivateUrls,
  }),
  async ({ accountId, fields }, deps) => ok(await checkConnection(deps, accountId, fields)),
);
