/** Time zones a site reports (`wp_timezone_string()`) and a schedule names: IANA names and ±HH:MM offsets. */
import { parseSchedule, publishTimes } from '../../../functions/core/articles/batch-schedule';
import { isTimeZone, offsetMinutes, siteTimeZone } from '../../../functions/core/time-zones';

describe('siteTimeZone', () => {
  it.each([
    ['Europe/Paris', 'Europe/Paris'],
    ['America/Argentina/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
    ['UTC', 'UTC'],
    ['Etc/GMT+5', 'Etc/GMT+5'],
    [' Asia/Kolkata ', 'Asia/Kolkata'],
    // A site set to a manual offset: wp_timezone_string() gives ±HH:MM.
    ['+02:00', '+02:00'],
    ['-05:30', '-05:30'],
    ['+05:45', '+05:45'],
    ['+14:00', '+14:00'],
    ['-12:00', '-12:00'],
    ['+00:00', '+00:00'],
    ['-00:00', '+00:00'],
  ])('keeps %p as %p', (reported, kept) => {
    expect(siteTimeZone(reported)).toBe(kept);
  });

  it.each([
    ['none sent (an old plugin)', undefined],
    ['null', null],
    ['a number', 2],
    ['an object', { zone: 'Europe/Paris' }],
    ['an empty string', ''],
    ['an unknown name', 'Mars/Olympus'],
    ['markup', '<script>alert(1)</script>'],
    ['a path', '../../etc/passwd'],
    ['a name with a trailing slash', 'Europe/Paris/'],
    ['a name with spaces inside', 'Europe/ Paris'],
    ['an offset beyond 14 hours', '+14:30'],
    ['an offset with 60 minutes', '+02:60'],
    ['an offset without its colon', '+0200'],
    ['an offset without its sign', '02:00'],
    ['an hour without minutes', '+2'],
    ['UTC with an offset', 'UTC+2'],
    ['a very long string', `Europe/${'A'.repeat(10_000)}`],
    ['a control character', 'Europe/Paris\u0000'],
  ])('ignores %s', (_, reported) => {
    expect(siteTimeZone(reported)).toBeNull();
  });
});

describe('offsets', () => {
  it('reads ±HH:MM as minutes east of UTC', () => {
    expect(offsetMinutes('+05:30')).toBe(330);
    expect(offsetMinutes('-03:45')).toBe(-225);
    expect(offsetMinutes('Europe/Paris')).toBeUndefined();
    expect(isTimeZone('-09:30')).toBe(true);
    expect(isTimeZone('+15:00')).toBe(false);
  });

  it('puts a calendar in an offset zone at the same UTC time all year (no daylight saving)', () => {
    const schedule = { start: '2026-03-28', every: '1d', at: '09:00', timezone: '+05:30' };
    expect(publishTimes(schedule, 3)).toEqual([
      '2026-03-28T03:30:00.000Z',
      '2026-03-29T03:30:00.000Z',
      '2026-03-30T03:30:00.000Z',
    ]);
    expect(publishTimes({ ...schedule, start: '2026-12-31', timezone: '-05:00', at: '22:00' }, 2)).toEqual([
      '2027-01-01T03:00:00.000Z',
      '2027-01-02T03:00:00.000Z',
    ]);
  });

  it('takes an offset in a schedule too, as a website shows it', () => {
    const schedule = { start: '2026-03-28', every: '1d', at: '09:00' };
    expect(parseSchedule({ ...schedule, timezone: '+02:00' }).timezone).toBe('+02:00');
    expect(parseSchedule({ ...schedule, timezone: '-00:00' }).timezone).toBe('+00:00');
    expect(() => parseSchedule({ ...schedule, timezone: '+0200' })).toThrow(/UTC offset, like \+02:00/);
  });
});
