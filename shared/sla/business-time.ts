// Business-time arithmetic: the one place that turns "N business minutes after an instant" into an
// instant. Wall-clock times are read and written in the hours' IANA zone by @date-fns/tz (the
// zone database the runtime carries), so a daylight-saving change or a holiday is never an offset
// typed by hand. A business minute is a real elapsed minute inside the hours: an interval that a
// spring-forward change shortens counts the minutes it really has.
import { TZDate, tzOffset } from '@date-fns/tz';

/** One weekly interval: ISO weekday (Monday 1 ... Sunday 7), wall-clock "HH:MM" start and end. */
export interface WeeklyInterval {
  day: number;
  start: string;
  end: string;
}

export interface Holiday {
  date: string;
  name: string;
}

export interface BusinessHours {
  timezone: string;
  intervals: readonly WeeklyInterval[];
  holidays: readonly Holiday[];
}

const MINUTE = 60_000;
/** How far ahead a due time is looked for: more than 10,000 minutes of any hours that have any. */
const MAX_DAYS = 3 * 366;

/** Whether the runtime's zone database knows `zone` (an IANA name such as `Europe/Berlin`). */
export function isTimeZone(zone: string): boolean {
  if (!zone.includes('/') && zone !== 'UTC') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return Number.isFinite(tzOffset(zone, new Date(0)));
  } catch {
    return false;
  }
}

const minutesOf = (hhmm: string) => {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
};

/** A calendar day as the days since 1970-01-01, so days step by one across any zone change. */
const dayNumber = (y: number, m: number, d: number) => Math.floor(Date.UTC(y, m, d) / 86_400_000);
const calendarOf = (day: number) => {
  const d = new Date(day * 86_400_000);
  return { y: d.getUTCFullYear(), m: d.getUTCMonth(), d: d.getUTCDate(), isoDay: d.getUTCDay() || 7 };
};
const dateText = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);

/** The instant of a wall-clock minute of a calendar day in the zone (minute 1440: the next midnight). */
function instantAt(day: number, minute: number, zone: string): number {
  const { y, m, d } = calendarOf(day);
  return new TZDate(y, m, d, Math.floor(minute / 60), minute % 60, zone).getTime();
}

/**
 * The business time of one calendar day, as wall-clock minute ranges of that day: the day's own
 * intervals, and the part after midnight of the previous day's intervals that cross it (an
 * interval whose end is at or before its start runs into the next day). A holiday removes its
 * whole calendar day, including the after-midnight part of the eve's interval.
 */
function rangesOfDay(hours: BusinessHours, day: number, holidays: ReadonlySet<string>): [number, number][] {
  if (holidays.has(dateText(day))) return [];
  const today = calendarOf(day).isoDay;
  const yesterday = today === 1 ? 7 : today - 1;
  const ranges: [number, number][] = [];
  for (const iv of hours.intervals) {
    const s = minutesOf(iv.start);
    const e = minutesOf(iv.end);
    const crosses = e <= s;
    if (iv.day === today) ranges.push([s, crosses ? 1440 : e]);
    if (iv.day === yesterday && crosses && e > 0) ranges.push([0, e]);
  }
  // overlapping intervals count their shared minutes once
  const merged: [number, number][] = [];
  for (const r of ranges.sort((a, b) => a[0] - b[0])) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

/**
 * The instant `minutes` business minutes after `start`. No hours (null) is around the clock. A
 * target of 0 is due at the start itself. Null when the hours have no business time at all in the
 * next three years (no interval, or every day a holiday).
 */
export function addBusinessMinutes(start: Date, minutes: number, hours: BusinessHours | null): Date | null {
  if (minutes === 0 || !hours) return new Date(start.getTime() + minutes * MINUTE);
  const zone = hours.timezone;
  const holidays = new Set(hours.holidays.map((h) => h.date));
  const local = new TZDate(start.getTime(), zone);
  const first = dayNumber(local.getFullYear(), local.getMonth(), local.getDate());
  let remaining = minutes * MINUTE;
  const from = start.getTime();
  for (let day = first; day < first + MAX_DAYS; day++) {
    for (const [s, e] of rangesOfDay(hours, day, holidays)) {
      const end = instantAt(day, e, zone);
      if (end <= from) continue;
      const begin = Math.max(instantAt(day, s, zone), from);
      if (end <= begin) continue;
      if (end - begin >= remaining) return new Date(begin + remaining);
      remaining -= end - begin;
    }
  }
  return null;
}
