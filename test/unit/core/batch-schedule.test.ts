/** The calendar of a batch: local times in an IANA zone across daylight-saving changes, and the plan of its reservation. */
import { planBatch } from '../../../functions/core/articles/batch';
import { parseSchedule, publishTimes, zonedInstant } from '../../../functions/core/articles/batch-schedule';
import { ValidationError } from '../../../functions/core/errors';

const paris = { start: '2026-03-27', every: '1d', at: '09:00', timezone: 'Europe/Paris' };

describe('publishTimes', () => {
  it('every day at 09:00 Europe/Paris gives 08:00 UTC before the spring change and 07:00 after', () => {
    expect(publishTimes(paris, 4)).toEqual([
      '2026-03-27T08:00:00.000Z',
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
    ]);
  });

  it('keeps 09:00 local across the autumn change too (and in New York, whose change is on another date)', () => {
    expect(publishTimes({ ...paris, start: '2026-10-24' }, 3)).toEqual([
      '2026-10-24T07:00:00.000Z',
      '2026-10-25T08:00:00.000Z',
      '2026-10-26T08:00:00.000Z',
    ]);
    expect(publishTimes({ ...paris, start: '2026-03-07', timezone: 'America/New_York' }, 2)).toEqual([
      '2026-03-07T14:00:00.000Z',
      '2026-03-08T13:00:00.000Z',
    ]);
  });

  it('steps by hours on the wall clock, by weeks, and skips days not in weekdays', () => {
    expect(publishTimes({ ...paris, start: '2026-03-28', every: '12h' }, 3)).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-28T20:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
    ]);
    expect(publishTimes({ ...paris, every: '1w' }, 2)).toEqual([
      '2026-03-27T08:00:00.000Z',
      '2026-04-03T07:00:00.000Z',
    ]);
    // 2026-03-27 is a Friday: the next Monday and Wednesday, then Friday again.
    expect(publishTimes({ ...paris, weekdays: ['mon', 'wed', 'fri'] }, 4)).toEqual([
      '2026-03-27T08:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
      '2026-04-01T07:00:00.000Z',
      '2026-04-03T07:00:00.000Z',
    ]);
  });

  it('moves a time the spring change skips forward by the gap, and takes the first of a repeated one', () => {
    expect(new Date(zonedInstant(Date.UTC(2026, 2, 29, 2, 30), 'Europe/Paris')).toISOString()).toBe(
      '2026-03-29T01:30:00.000Z',
    );
    expect(new Date(zonedInstant(Date.UTC(2026, 9, 25, 2, 30), 'Europe/Paris')).toISOString()).toBe(
      '2026-10-25T00:30:00.000Z',
    );
  });

  it('refuses weekdays that no date of the schedule falls on', () => {
    expect(() => publishTimes({ ...paris, every: '1w', weekdays: ['mon'] }, 2)).toThrow(ValidationError);
  });
});

describe('parseSchedule', () => {
  it('names each bad field under schedule.', () => {
    const error = (() => {
      try {
        parseSchedule({ start: '2026-02-30', every: '3m', at: '9:00', timezone: 'Mars/Olympus' });
      } catch (caught) {
        return caught as ValidationError;
      }
    })();
    expect(Object.keys(error?.fieldErrors ?? {}).sort()).toEqual([
      'schedule.at',
      'schedule.every',
      'schedule.start',
      'schedule.timezone',
    ]);
  });

  it('refuses a schedule that is no object on schedule, saying what it must be', () => {
    for (const input of ['daily', [], 1]) {
      let refused: ValidationError | undefined;
      try {
        parseSchedule(input);
      } catch (caught) {
        refused = caught as ValidationError;
      }
      expect(refused?.fieldErrors).toEqual({
        schedule: [
          'The schedule must be an object of start, every, at and, if you wish, timezone and weekdays (in a form: schedule[start], ...).',
        ],
      });
    }
  });

  it('refuses a field it does not have, naming it (a typo would be dropped silently)', () => {
    const error = (() => {
      try {
        parseSchedule({ ...paris, foo: 'x', weekday: 'mon' });
      } catch (caught) {
        return caught as ValidationError;
      }
    })();
    const message =
      'The schedule has no field foo, weekday: its fields are start, every, at, timezone and weekdays.';
    expect(error?.fieldErrors).toEqual({ 'schedule.foo': [message], 'schedule.weekday': [message] });
  });

  it('takes weekdays as a list or as text, in any case, full names too', () => {
    expect(parseSchedule({ ...paris, weekdays: 'Friday, MON' }).weekdays).toEqual(['mon', 'fri']);
    expect(parseSchedule({ ...paris, weekdays: ['sun'] }).weekdays).toEqual(['sun']);
  });

  it('gives the weekdays back Monday first, whatever order they came in', () => {
    expect(parseSchedule({ ...paris, weekdays: ['sat', 'sun', 'mon'] }).weekdays).toEqual([
      'mon',
      'sat',
      'sun',
    ]);
  });
});

describe('planBatch', () => {
  it('reserves the items the day allows when the credits cover them all, and defers the rest', () => {
    expect(planBatch([3, 3, 3], 100, 2)).toEqual({
      outcomes: ['reserved', 'reserved', 'daily_limit_reached'],
      charge: 6,
      reserved: 2,
    });
  });

  it('lets an item past the slots that the credits left would not cover either wait for credits, as a single create short of both', () => {
    expect(planBatch([3, 3], 0, 0)).toEqual({
      outcomes: ['not_enough_credits', 'not_enough_credits'],
      charge: 0,
      reserved: 0,
    });
    expect(planBatch([3, 3, 3, 1], 7, 2)).toEqual({
      outcomes: ['reserved', 'reserved', 'not_enough_credits', 'daily_limit_reached'],
      charge: 6,
      reserved: 2,
    });
  });

  it('charges nothing when the credits fall short of those items, even by one', () => {
    expect(planBatch([3, 3, 3], 8, 5)).toEqual({
      outcomes: ['not_enough_credits', 'not_enough_credits', 'not_enough_credits'],
      charge: 0,
      reserved: 0,
    });
  });
});
