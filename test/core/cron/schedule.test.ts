import { describe, expect, it } from 'vitest';
import { nextAfter, parseSchedule, prevAtOrBefore, scheduleError } from '../../../core/cron/schedule';
import { instantsOf, rfc3339In, timeZoneError, wallOf } from '../../../core/cron/time-zone';

const at = (s: string) => Date.parse(s);
const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());

describe('cron schedules (robfig/cron ParseStandard)', () => {
  it('finds the next start of the five-field forms', () => {
    const from = at('2026-01-01T00:00:30Z'); // a Thursday
    expect(iso(nextAfter(parseSchedule('* * * * *'), from))).toBe('2026-01-01T00:01:00.000Z');
    expect(iso(nextAfter(parseSchedule('*/15 * * * *'), from))).toBe('2026-01-01T00:15:00.000Z');
    expect(iso(nextAfter(parseSchedule('30 6-16/4 * * 1-5'), from))).toBe('2026-01-01T06:30:00.000Z');
    expect(iso(nextAfter(parseSchedule('0 0 * * SUN'), from))).toBe('2026-01-04T00:00:00.000Z');
    expect(iso(nextAfter(parseSchedule('0 12 1 feb ?'), from))).toBe('2026-02-01T12:00:00.000Z');
    expect(iso(nextAfter(parseSchedule('@hourly'), from))).toBe('2026-01-01T01:00:00.000Z');
    expect(iso(nextAfter(parseSchedule('@yearly'), from))).toBe('2027-01-01T00:00:00.000Z');
    expect(iso(nextAfter(parseSchedule('0 0 29 2 *'), from))).toBe('2028-02-29T00:00:00.000Z');
    // 5/20 means 5-59/20.
    expect(iso(nextAfter(parseSchedule('5/20 * * * *'), at('2026-01-01T00:26:00Z')))).toBe('2026-01-01T00:45:00.000Z');
  });

  it('ORs day-of-month and day-of-week unless one of them is a star', () => {
    const s = parseSchedule('0 0 13 * 5'); // the 13th, or any Friday
    expect(iso(nextAfter(s, at('2026-01-01T00:00:00Z')))).toBe('2026-01-02T00:00:00.000Z'); // Friday the 2nd
    const and = parseSchedule('0 0 */1 * 5'); // */1 keeps the star bit: Fridays only
    expect(iso(nextAfter(and, at('2026-01-03T00:00:00Z')))).toBe('2026-01-09T00:00:00.000Z');
  });

  it('finds the last start at or before a time', () => {
    expect(iso(prevAtOrBefore(parseSchedule('* * * * *'), at('2026-01-01T00:00:30Z')))).toBe('2026-01-01T00:00:00.000Z');
    expect(iso(prevAtOrBefore(parseSchedule('0 0 1 1 *'), at('2026-06-01T00:00:00Z')))).toBe('2026-01-01T00:00:00.000Z');
    expect(iso(prevAtOrBefore(parseSchedule('0 9 * * 1'), at('2026-01-01T00:00:00Z')))).toBe('2025-12-29T09:00:00.000Z');
    expect(prevAtOrBefore(parseSchedule('0 0 30 2 *'), at('2026-01-01T00:00:00Z'))).toBeUndefined(); // never
    expect(nextAfter(parseSchedule('0 0 30 2 *'), at('2026-01-01T00:00:00Z'))).toBeUndefined();
  });

  it('gives robfig/cron\'s errors', () => {
    expect(scheduleError('* * * *')).toBe('expected exactly 5 fields, found 4: [* * * *]');
    expect(scheduleError('61 * * * *')).toBe('end of range (61) above maximum (59): 61');
    expect(scheduleError('5-1 * * * *')).toBe('beginning of range (5) beyond end of range (1): 5-1');
    expect(scheduleError('*/0 * * * *')).toBe('step of range should be a positive number: */0');
    expect(scheduleError('1-2-3 * * * *')).toBe('too many hyphens: 1-2-3');
    expect(scheduleError('x * * * *')).toBe('failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
    expect(scheduleError('@fortnightly')).toBe('unrecognized descriptor: @fortnightly');
    expect(scheduleError('')).toBe('empty spec string');
    expect(scheduleError('TZ=Mars/Olympus * * * * *')).toBe('provided bad location Mars/Olympus: unknown time zone Mars/Olympus');
    expect(scheduleError('@every 1h30m')).toBeUndefined();
  });

  it('reads @every as a constant delay in whole seconds', () => {
    const s = parseSchedule('@every 90s');
    expect(s).toMatchObject({ kind: 'every', ms: 90_000 });
    expect(iso(nextAfter(s, at('2026-01-01T00:00:00.500Z')))).toBe('2026-01-01T00:01:30.000Z');
    expect(parseSchedule('@every 10ms')).toMatchObject({ ms: 1000 });
  });

  it('runs in a time zone, from TZ= or CRON_TZ=', () => {
    const tokyo = parseSchedule('CRON_TZ=Asia/Tokyo 0 9 * * *');
    expect(iso(nextAfter(tokyo, at('2026-01-01T00:30:00Z')))).toBe('2026-01-02T00:00:00.000Z'); // 09:00 JST = 00:00Z
    const ny = parseSchedule('TZ=America/New_York 30 2 * * *');
    // 2026-03-08: 02:30 does not exist in New York (clocks go 02:00 → 03:00): no start that day.
    expect(iso(nextAfter(ny, at('2026-03-07T08:00:00Z')))).toBe('2026-03-09T06:30:00.000Z');
    // 2026-11-01: 01:30 happens twice; it fires once, at the first.
    const repeated = parseSchedule('TZ=America/New_York 30 1 * * *');
    const first = nextAfter(repeated, at('2026-11-01T04:00:00Z'))!;
    expect(iso(first)).toBe('2026-11-01T05:30:00.000Z');
    expect(iso(nextAfter(repeated, first))).toBe('2026-11-02T06:30:00.000Z');
    expect(iso(prevAtOrBefore(repeated, at('2026-11-01T07:00:00Z')))).toBe('2026-11-01T05:30:00.000Z');
  });

  it('knows zones as Go does', () => {
    expect(timeZoneError('Europe/Paris')).toBeUndefined();
    expect(timeZoneError('UTC')).toBeUndefined();
    expect(timeZoneError('europe/paris')).toBe('unknown time zone europe/paris');
    expect(timeZoneError('No/Where')).toBe('unknown time zone No/Where');
    expect(instantsOf(Date.UTC(2026, 2, 8, 2, 30), 'America/New_York')).toEqual([]);
    expect(instantsOf(Date.UTC(2026, 10, 1, 1, 30), 'America/New_York')).toHaveLength(2);
    expect(wallOf(at('2026-07-01T12:00:00Z'), 'Europe/Paris')).toBe(Date.UTC(2026, 6, 1, 14));
    expect(rfc3339In(at('2026-07-01T12:00:00Z'), 'Europe/Paris')).toBe('2026-07-01T14:00:00+02:00');
    expect(rfc3339In(at('2026-07-01T12:00:00Z'), undefined)).toBe('2026-07-01T12:00:00Z');
    expect(rfc3339In(at('2026-07-01T12:00:00Z'), 'America/St_Johns')).toBe('2026-07-01T09:30:00-02:30');
  });
});
