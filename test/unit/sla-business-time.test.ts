import { describe, expect, it } from 'vitest';
import { addBusinessMinutes, type BusinessHours, isTimeZone } from '../../shared/sla/business-time';

// Every expected instant below is written out by hand (UTC, with the local wall time beside it):
// none is computed by the code under test or by the zone library.
const weekdays = (
  timezone: string,
  start = '09:00',
  end = '17:00',
  holidays: BusinessHours['holidays'] = [],
) => ({
  timezone,
  intervals: [1, 2, 3, 4, 5].map((day) => ({ day, start, end })),
  holidays,
});
const due = (start: string, minutes: number, hours: BusinessHours | null) =>
  addBusinessMinutes(new Date(start), minutes, hours)?.toISOString() ?? null;

describe('business time', () => {
  it('around the clock (no hours) is plain elapsed time', () => {
    expect(due('2026-03-29T00:30:00.000Z', 90, null)).toBe('2026-03-29T02:00:00.000Z');
  });

  it('skips a weekend (Berlin, winter time)', () => {
    // Fri 27 Nov 16:00 CET + 120 min: 60 on Friday, 60 from Mon 09:00 CET -> Mon 10:00 CET
    expect(due('2026-11-27T15:00:00.000Z', 120, weekdays('Europe/Berlin'))).toBe('2026-11-30T09:00:00.000Z');
  });

  it('skips a holiday', () => {
    const hours = weekdays('Europe/Berlin', '09:00', '17:00', [{ date: '2026-11-30', name: 'Closed' }]);
    // Monday is a holiday: the second hour is Tue 1 Dec 09:00-10:00 CET
    expect(due('2026-11-27T15:00:00.000Z', 120, hours)).toBe('2026-12-01T09:00:00.000Z');
  });

  it('starts the clock at the next opening when created out of hours', () => {
    // Sat 28 Nov 12:00 CET + 30 min -> Mon 30 Nov 09:30 CET
    expect(due('2026-11-28T11:00:00.000Z', 30, weekdays('Europe/Berlin'))).toBe('2026-11-30T08:30:00.000Z');
  });

  it('Berlin spring-forward over the weekend: Monday 10:00 is CEST (UTC+2)', () => {
    // Fri 27 Mar 16:00 CET (15:00Z); clocks go forward Sun 29 Mar; Mon 30 Mar 10:00 CEST = 08:00Z
    expect(due('2026-03-27T15:00:00.000Z', 120, weekdays('Europe/Berlin'))).toBe('2026-03-30T08:00:00.000Z');
  });

  it('Berlin fall-back over the weekend: Monday 10:00 is CET (UTC+1)', () => {
    // Fri 23 Oct 16:00 CEST (14:00Z); clocks go back Sun 25 Oct; Mon 26 Oct 10:00 CET = 09:00Z
    expect(due('2026-10-23T14:00:00.000Z', 120, weekdays('Europe/Berlin'))).toBe('2026-10-26T09:00:00.000Z');
  });

  it('New York spring-forward over the weekend: Monday 10:00 is EDT (UTC-4)', () => {
    // Fri 6 Mar 16:00 EST (21:00Z); clocks go forward Sun 8 Mar; Mon 9 Mar 10:00 EDT = 14:00Z
    expect(due('2026-03-06T21:00:00.000Z', 120, weekdays('America/New_York'))).toBe(
      '2026-03-09T14:00:00.000Z',
    );
  });

  it('New York fall-back over the weekend: Monday 10:00 is EST (UTC-5)', () => {
    // Fri 30 Oct 16:00 EDT (20:00Z); clocks go back Sun 1 Nov; Mon 2 Nov 10:00 EST = 15:00Z
    expect(due('2026-10-30T20:00:00.000Z', 120, weekdays('America/New_York'))).toBe(
      '2026-11-02T15:00:00.000Z',
    );
  });

  it('an interval across midnight counts into the next day', () => {
    const hours = {
      timezone: 'Europe/Berlin',
      intervals: [{ day: 5, start: '22:00', end: '02:00' }],
      holidays: [],
    };
    // Fri 27 Nov 23:00 CET + 90 min -> Sat 28 Nov 00:30 CET = Fri 23:30Z
    expect(due('2026-11-27T22:00:00.000Z', 90, hours)).toBe('2026-11-27T23:30:00.000Z');
    // 180 min to Sat 02:00 CET, then 20 min from Fri 4 Dec 22:00 CET (21:00Z)
    expect(due('2026-11-27T22:00:00.000Z', 200, hours)).toBe('2026-12-04T21:20:00.000Z');
  });

  it('a holiday removes the after-midnight part of its eve’s interval too', () => {
    const hours = {
      timezone: 'Europe/Berlin',
      intervals: [{ day: 5, start: '22:00', end: '02:00' }],
      holidays: [{ date: '2026-11-28', name: 'Saturday off' }],
    };
    // Fri 23:00-24:00 CET counts (60), Sat 00:00-02:00 does not; then Fri 4 Dec 22:00 CET + 30
    expect(due('2026-11-27T22:00:00.000Z', 90, hours)).toBe('2026-12-04T21:30:00.000Z');
  });

  it('a night interval across the spring-forward change has its real 7 hours', () => {
    // Sat 28 Mar 22:00 CET (21:00Z) to Sun 29 Mar 06:00 CEST (04:00Z): 7 hours, not 8
    const hours = {
      timezone: 'Europe/Berlin',
      intervals: [{ day: 6, start: '22:00', end: '06:00' }],
      holidays: [],
    };
    expect(due('2026-03-28T21:00:00.000Z', 420, hours)).toBe('2026-03-29T04:00:00.000Z');
    // one minute more: the next Saturday 22:00, now CEST (20:00Z)
    expect(due('2026-03-28T21:00:00.000Z', 421, hours)).toBe('2026-04-04T20:01:00.000Z');
  });

  it('a whole day over the New York fall-back change has 25 hours', () => {
    const hours = {
      timezone: 'America/New_York',
      intervals: [{ day: 7, start: '00:00', end: '24:00' }],
      holidays: [],
    };
    // Sun 1 Nov 00:00 EDT (04:00Z) + 1440 min = Sun 23:00 EST (04:00Z next day), not midnight
    expect(due('2026-11-01T04:00:00.000Z', 1440, hours)).toBe('2026-11-02T04:00:00.000Z');
    // the 25th hour ends at Mon 00:00 EST (05:00Z)
    expect(due('2026-11-01T04:00:00.000Z', 1500, hours)).toBe('2026-11-02T05:00:00.000Z');
  });

  it('a target of 0 is due at the start, even out of hours', () => {
    expect(due('2026-11-28T11:00:00.000Z', 0, weekdays('Europe/Berlin'))).toBe('2026-11-28T11:00:00.000Z');
  });

  it('a target of 10,000 minutes: 20 business days and 400 minutes', () => {
    // from Mon 2 Nov 09:00 CET (08:00Z): four full weeks of 480 min (9,600), then Mon 30 Nov
    // 09:00 + 6 h 40 = 15:40 CET = 14:40Z
    expect(due('2026-11-02T08:00:00.000Z', 10_000, weekdays('Europe/Berlin'))).toBe(
      '2026-11-30T14:40:00.000Z',
    );
  });

  it('hours with no business time give no due time', () => {
    expect(due('2026-11-02T08:00:00.000Z', 60, { timezone: 'UTC', intervals: [], holidays: [] })).toBeNull();
  });

  it('overlapping intervals count their shared minutes once', () => {
    const hours = {
      timezone: 'UTC',
      intervals: [
        { day: 1, start: '09:00', end: '12:00' },
        { day: 1, start: '11:00', end: '13:00' },
      ],
      holidays: [],
    };
    // Mon 2 Nov 09:00 UTC + 240 min: 09:00-13:00 is 240 minutes
    expect(due('2026-11-02T09:00:00.000Z', 240, hours)).toBe('2026-11-02T13:00:00.000Z');
  });

  it('knows IANA zones and refuses the rest', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('America/New_York')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('+02:00')).toBe(false);
  });
});
