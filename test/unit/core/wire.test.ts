import { nextUtcMidnight, toBit, toWireTime, utcDay } from '../../../functions/core/wire';

describe('wire helpers', () => {
  it('writes booleans as 0 or 1', () => {
    expect([toBit(true), toBit(false), toBit(undefined), toBit(null)]).toEqual([1, 0, 0, 0]);
  });

  it('writes times as UTC YYYY-MM-DD HH:MM:SS', () => {
    expect(toWireTime('2026-03-10T22:15:09.123Z')).toBe('2026-03-10 22:15:09');
    expect(toWireTime('2026-03-10T23:15:09+02:00')).toBe('2026-03-10 21:15:09');
    expect(toWireTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)))).toBe('2026-01-02 03:04:05');
    expect(toWireTime(undefined)).toBeNull();
    expect(toWireTime('not a date')).toBeNull();
    // A year past 9999 (ISO's six-digit form) keeps its seconds.
    expect(toWireTime(new Date(Date.UTC(10_000, 0, 1, 9)))).toBe('+010000-01-01 09:00:00');
  });

  it('knows the UTC day and the next UTC midnight, across month and year ends', () => {
    expect(utcDay(new Date('2026-03-10T23:59:59Z'))).toBe('2026-03-10');
    expect(utcDay(new Date(Date.UTC(10_000, 0, 1, 9)))).toBe('+010000-01-01');
    expect(nextUtcMidnight(new Date('2026-03-10T22:15:00Z')).toISOString()).toBe('2026-03-11T00:00:00.000Z');
    expect(nextUtcMidnight(new Date('2026-12-31T00:00:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});
