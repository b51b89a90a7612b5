/**
 * The time zone a batch's calendar is computed in: the schedule's own `timezone` when it names
 * one, otherwise the zone the items' website reported (its plugin's status answer, kept on the
 * website record at registration, update and each health check). A website that has not reported
 * a valid zone, or items going to websites in different zones, need the schedule to name one.
 */
import { ValidationError } from '../errors';
import type { Website } from '../websites/website';

export function scheduleTimeZone(
  given: string | undefined,
  websites: Pick<Website, 'websiteUuid' | 'timezone'>[],
): string {
  if (given) return given;
  const unknown = websites.find((website) => !website.timezone);
  if (unknown || websites.length === 0) {
    throw ValidationError.forField(
      'schedule.timezone',
      `The timezone field is required: the website${unknown ? ` ${unknown.websiteUuid}` : ''} has not reported its time zone (an Inkpress Connector plugin that does not send it, or a time zone setting that is not valid). Send an IANA time zone, like Europe/Paris, or a UTC offset, like +02:00; or update the plugin and check the site's time zone in its General Settings (Inkpress reads it again at the hourly health check, at POST /v1/websites/{website_uuid}/categories/refresh and at an update).`,
    );
  }
  const zones = [...new Set(websites.map((website) => website.timezone as string))];
  if (zones.length > 1) {
    throw ValidationError.forField(
      'schedule.timezone',
      `The timezone field is required: the items go to websites in different time zones (${zones.join(', ')}). Send the time zone of the calendar, like Europe/Paris.`,
    );
  }
  return zones[0] as string;
}
