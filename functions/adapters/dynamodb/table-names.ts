import { requireEnv } from '../../shared/env';
import { type TableName, tableDefinitions } from './table-definitions';

/** The deployed (or local) name of a table, from the environment variable of its definition. */
export function tableNameOf(table: TableName): string {
  return requireEnv(tableDefinitions[table].envVar);
}
