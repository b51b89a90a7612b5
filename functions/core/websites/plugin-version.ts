/** Which Inkpress Connector plugin versions Inkpress works with. */

/**
 * The oldest plugin with every route Inkpress calls: 1.5.0 adds the probe route, without which
 * the connection doctor cannot tell a host that strips the Authorization header from a refused
 * login. Raise it together with the plugin when Inkpress starts calling a newer route.
 */
export const PLUGIN_VERSION_NEEDED = '1.5.0';

/**
 * Whether `version` (`1.4.0`, `1.4`, `1.4.0-beta`) is older than `needed`; a version that is not
 * dotted numbers is not called old (nothing is claimed that was not seen).
 */
export function isOlderThan(version: string, needed: string): boolean {
  const parts = (text: string) => /^\s*(\d+(?:\.\d+)*)/.exec(text)?.[1]?.split('.').map(Number);
  const have = parts(version);
  const want = parts(needed);
  if (!have || !want) return false;
  for (let index = 0; index < Math.max(have.length, want.length); index++) {
    const a = have[index] ?? 0;
    const b = want[index] ?? 0;
    if (a !== b) return a < b;
  }
  return false;
}

/** A version as a plugin release writes it (`1.5.0`, `1.5`, `1.5.0-beta.2`, `1.5.0+build`). */
const VERSION_SHAPE = /^\d{1,5}(?:\.\d{1,5}){0,3}(?:[-+][0-9A-Za-z.-]{1,40})?$/;

/** `reported` when it has the shape of a version (bounded), undefined otherwise (markup, prose). */
export function versionOf(reported: string): string | undefined {
  const version = reported.trim();
  return VERSION_SHAPE.test(version) ? version : undefined;
}
