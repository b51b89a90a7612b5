/**
 * A batch's publishing calendar: `publish_at` spread over its items in order, at a local time of
 * day in an IANA time zone, across daylight-saving changes (Node's Intl gives each zone's offset at
 * an instant; no time-zone library), or at a fixed UTC offset `±HH:MM` (core/time-zones.ts). Day and week steps keep the local time of day (09:00 stays
 * 09:00 local when the clocks change); hour steps count local wall-clock hours. A local time that
 * does not exist (the hour skipped in spring) moves forward by the skipped hour; one that exists
 * twice (autumn) is its first occurrence, as Temporal's `compatible` disambiguation does.
 */
import * as z from 'zod/mini';
import { ValidationError } from '../errors';
import { formText, optionalField, parseOrThrow } from '../schema-helpers';
import { isTimeZone, normalizeTimeZone, offsetMinutes } from '../time-zones';
import type { BatchSchedule } from './batch';

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
const WEEKDAY_NAMES: Record<string, Weekday> = Object.fromEntries(
  WEEKDAYS.flatMap((day, index) => [
    [day, day],
    [['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'][index] as string, day],
  ]),
);

/** `1d`, `12h`, `2d`, `1w`: a whole number of hours (1-168), days (1-31) or weeks (1-8). */
const EVERY = /^(\d{1,3})([hdw])$/;
const EVERY_LIMITS = { h: 168, d: 31, w: 8 } as const;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

let built: ReturnType<typeof buildScheduleSchema> | undefined;

/** The `schedule` of a batch as the client sends it (the time zone may be left to the site). */
export function scheduleSchema() {
  built ??= buildScheduleSchema();
  return built;
}

function buildScheduleSchema() {
  const required = (label: string) =>
    z.pipe(
      formText(label).check(z.trim()),
      z.string().check(z.minLength(1, { error: `The ${label} field is required.`, abort: true })),
    );
  return z.strictObject(
    {
      start: z.pipe(
        required('start'),
        z.string().check(z.refine(isDate, { error: 'The start must be a date, like 2026-03-27.' })),
      ),
      every: z.pipe(
        z.pipe(
          required('every'),
          z.transform((value: string) => value.toLowerCase()),
        ),
        z.string().check(
          z.refine(
            (value: string) => {
              const match = EVERY.exec(value);
              const amount = Number(match?.[1]);
              const unit = match?.[2] as keyof typeof EVERY_LIMITS | undefined;
              return unit !== undefined && amount >= 1 && amount <= EVERY_LIMITS[unit];
            },
            { error: 'The every must be a number of hours, days or weeks, like 1d, 12h, 2d or 1w.' },
          ),
        ),
      ),
      at: z.pipe(
        required('at'),
        z
          .string()
          .check(
            z.refine((value: string) => TIME.test(value), { error: 'The at must be HH:MM, like 09:00.' }),
          ),
      ),
      timezone: optionalField(
        z.pipe(
          formText('timezone').check(z.trim()),
          z.pipe(
            z.string().check(
              z.refine(isTimeZone, {
                error:
                  'The timezone must be an IANA time zone, like Europe/Paris, or a UTC offset, like +02:00.',
              }),
            ),
            z.transform((zone: string) => normalizeTimeZone(zone) ?? zone),
          ),
        ),
      ),
      weekdays: optionalField(
        z.pipe(
          z.union([formText('weekdays'), z.array(formText('weekdays'))], {
            error: 'The weekdays must be a list of days, like mon,wed,fri.',
          }),
          z.transform((value: string | string[], context) => {
            const names = (Array.isArray(value) ? value : value.split(','))
              .map((name) => name.trim().toLowerCase())
              .filter((name) => name !== '');
            const days = names.map((name) => WEEKDAY_NAMES[name]);
            if (names.length === 0 || days.some((day) => day === undefined)) {
              context.issues.push({
                code: 'custom',
                input: value,
                message: 'The weekdays must be days of the week (mon, tue, wed, thu, fri, sat, sun).',
              });
              return z.NEVER;
            }
            // Echoed Monday first, as the days are named everywhere else.
            return [...WEEKDAYS.slice(1), WEEKDAYS[0]].filter((day) => days.includes(day));
          }),
        ),
      ),
    },
    {
      // A misspelt field would be dropped silently, and the calendar made without it.
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `The schedule has no field ${issue.keys.join(', ')}: its fields are start, every, at, timezone and weekdays.`
          : undefined,
    },
  );
}

export type ScheduleInput = z.infer<ReturnType<typeof scheduleSchema>>;

/** Parses a schedule; its errors are named `schedule.<field>`. */
export function parseSchedule(input: unknown): ScheduleInput {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw ValidationError.forField(
      'schedule',
      'The schedule must be an object of start, every, at and, if you wish, timezone and weekdays (in a form: schedule[start], ...).',
    );
  }
  try {
    return parseOrThrow(scheduleSchema(), input);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(
      Object.fromEntries(
        Object.entries(error.fieldErrors).map(([field, messages]) => [`schedule.${field}`, messages]),
      ),
    );
  }
}

/** Wall-clock fields of an instant in a zone, as a UTC timestamp of the same fields. */
function wallClock(instant: number, format: Intl.DateTimeFormat): number {
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    (parts.hour ?? 0) % 24,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
}

function formatFor(zone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
}

/**
 * The UTC instant of a local wall-clock time (given as the UTC timestamp of the same fields) in
 * `zone`: the earlier of two when the time occurs twice, moved forward by the gap when it does
 * not occur.
 */
export function zonedInstant(wall: number, zone: string, format = formatFor(zone)): number {
  const DAY = 86_400_000;
  const offsetBefore = wallClock(wall - DAY, format) - (wall - DAY);
  const offsetAfter = wallClock(wall + DAY, format) - (wall + DAY);
  const candidates = [wall - offsetBefore, wall - offsetAfter]
    .filter((instant) => wallClock(instant, format) === wall)
    .sort((a, b) => a - b);
  // No candidate: the time was skipped; with the offset before the change it lands after the gap.
  return candidates[0] ?? wall - offsetBefore;
}

/** The UTC instant of each local wall-clock time in `zone`: an IANA zone through Intl, a `±HH:MM` offset fixed. */
function instantsIn(zone: string): (wall: number) => number {
  const offset = offsetMinutes(zone);
  if (offset !== undefined) return (wall) => wall - offset * 60_000;
  const format = formatFor(zone);
  return (wall) => zonedInstant(wall, zone, format);
}

/** The weekday (0 = Sunday) of a local date given as a UTC timestamp of its fields. */
const weekdayOf = (wall: number) => new Date(wall).getUTCDay();

/**
 * The publication instants (ISO, UTC) of `count` items, in order, from the schedule (its time
 * zone resolved). Slots are the start date at `at`, then every step; with `weekdays`, slots on
 * other days are skipped. Refuses weekdays no slot ever falls on.
 */
export function publishTimes(schedule: BatchSchedule, count: number): string[] {
  const match = EVERY.exec(schedule.every);
  const amount = Number(match?.[1] ?? 1);
  const unit = (match?.[2] ?? 'd') as 'h' | 'd' | 'w';
  const [year, month, day] = schedule.start.split('-').map(Number) as [number, number, number];
  const [hour, minute] = schedule.at.split(':').map(Number) as [number, number];
  const allowed = new Set((schedule.weekdays ?? WEEKDAYS).map((name) => WEEKDAYS.indexOf(name as Weekday)));
  const instantOf = instantsIn(schedule.timezone);
  const times: string[] = [];
  let skippedInARow = 0;
  for (let slot = 0; times.length < count; slot++) {
    const wall =
      unit === 'h'
        ? Date.UTC(year, month - 1, day, hour + slot * amount, minute)
        : Date.UTC(year, month - 1, day + slot * amount * (unit === 'w' ? 7 : 1), hour, minute);
    if (!allowed.has(weekdayOf(wall))) {
      // Every weekday comes round within 7 day steps (168 hour steps); none did: none ever will.
      if (++skippedInARow > (unit === 'h' ? 168 : 7)) {
        throw ValidationError.forField(
          'schedule.weekdays',
          `No date of this schedule falls on ${[...(schedule.weekdays ?? [])].join(', ')}: with every ${schedule.every} from ${schedule.start}, each one is a ${WEEKDAYS[weekdayOf(wall)]}.`,
        );
      }
      continue;
    }
    skippedInARow = 0;
    times.push(new Date(instantOf(wall)).toISOString());
  }
  return times;
}
