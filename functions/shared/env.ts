/**
 * Boolean settings read where they are used (Powertools' own variables, the local runtime's
 * options). A function's configuration is read once by `loadConfig` (config.ts).
 */

/** `1`/`true`/`yes`/`on` and `0`/`false`/`no`/`off`, any case; undefined when unset. */
export function parseFlag(raw: string | undefined): boolean | undefined | 'invalid' {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === '') return undefined;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  return 'invalid';
}

/** The flag `name` of this process's environment; the fallback when unset or not a flag. */
export function envFlag(name: string, fallback: boolean): boolean {
  const value = parseFlag(process.env[name]);
  return typeof value === 'boolean' ? value : fallback;
}
