import { parseFlag } from './config';

/**
 * `1`/`true`/`yes`/`on` are true, `0`/`false`/`no`/`off` false, anything else the fallback. For
 * settings read where they are used (Powertools' own variables, the local runtime's options);
 * a function's configuration is read by `loadConfig` (config.ts).
 */
export function envFlag(name: string, fallback: boolean): boolean {
  const value = parseFlag(process.env[name]);
  return typeof value === 'boolean' ? value : fallback;
}
