/** Wire-format helpers: how values look in JSON responses. */

/** Booleans go on the wire as 0 or 1. */
export function toBit(value: boolean | undefined | null): 0 | 1 {
  return value ? 1 : 0;
}

/** UTC time as `YYYY-MM-DD HH:MM:SS`; null stays null. */
export function toWireTime(value: string | Date | undefined | null): string | null {
  if (value === undefined || value === null) return null;
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return null;
  // Cut at the fraction, not at a fixed length: a year past 9999 is written `+010000`.
  return date
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace('T', ' ');
}

/** `YYYY-MM-DD` of the given instant, in UTC. */
export function utcDay(at: Date): string {
  const iso = at.toISOString();
  return iso.slice(0, iso.indexOf('T'));
}

/** The next UTC midnight strictly after `at`. */
export function nextUtcMidnight(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}
