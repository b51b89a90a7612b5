/**
 * Time zones as Inkpress takes them: an IANA name Node's Intl knows (`Europe/Paris`, `UTC`) or a
 * fixed UTC offset `±HH:MM` (`+02:00`, `-05:30`), which is what WordPress's `wp_timezone_string()`
 * reports for a site set to a manual offset. Node 20's Intl refuses offsets as a `timeZone`, and
 * `Etc/GMT-2` (inverted sign, whole hours only) cannot say `+05:30`, so an offset is kept as
 * `±HH:MM` and computed with directly (`offsetMinutes`). What a site reports is never trusted:
 * `siteTimeZone` keeps a valid zone and nothing else.
 */

const OFFSET = /^([+-])(\d{2}):(\d{2})$/;
/** WordPress offers offsets from UTC-12 to UTC+14; no zone on Earth is further. */
const MAX_OFFSET_MINUTES = 14 * 60;
/**
 * The shape of an IANA name (`Area/Location`, `UTC`, `EST5EDT`, `Etc/GMT+5`): the longest in use
 * has 32 characters. Checked before Intl so that every Node version keeps the same names (a newer
 * Intl takes offsets like `+0200` that Node 20 refuses).
 */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;
const MAX_NAME_LENGTH = 64;

/** The offset of a `±HH:MM` zone in minutes east of UTC; undefined for anything else. */
export function offsetMinutes(zone: string): number | undefined {
  const match = OFFSET.exec(zone);
  if (!match) return undefined;
  const hours = Number(match[2]);
  const minutes = Number(match[3]);
  if (minutes > 59) return undefined;
  const total = hours * 60 + minutes;
  if (total > MAX_OFFSET_MINUTES) return undefined;
  return match[1] === '-' ? -total : total;
}

/** Whether Intl knows this IANA name (whatever its case). */
function isIanaName(zone: string): boolean {
  if (zone.length > MAX_NAME_LENGTH || !IANA_NAME.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Whether Inkpress can compute with this zone: a known IANA name or a `±HH:MM` offset up to 14:00. */
export function isTimeZone(zone: string): boolean {
  return offsetMinutes(zone) !== undefined || isIanaName(zone);
}

/**
 * The zone as Inkpress keeps it: an IANA name as given, an offset as `±HH:MM` (`-00:00` is
 * `+00:00`); undefined when it is not a zone `isTimeZone` takes.
 */
export function normalizeTimeZone(zone: string): string | undefined {
  const offset = offsetMinutes(zone);
  if (offset === 0) return '+00:00';
  if (offset !== undefined) return zone;
  return isIanaName(zone) ? zone : undefined;
}

/**
 * The site's time zone from what its plugin reported (`timezone` in its status answer): the zone
 * when it is a valid one, null otherwise (none reported by an old plugin, or anything else a site
 * may send).
 */
export function siteTimeZone(reported: unknown): string | null {
  if (typeof reported !== 'string') return null;
  return normalizeTimeZone(reported.trim()) ?? null;
}
