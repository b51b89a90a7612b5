import { listLanguages } from '../core/languages';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'ListLanguages',
  () => ({}),
  async () => ok({ data: listLanguages() }),
);
