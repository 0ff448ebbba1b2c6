// What the SLA pages and badges share: the API's types and how days and minutes are said.
import type { components } from '../api';

export type Hours = components['schemas']['BusinessHours'];
export type Policy = components['schemas']['SlaPolicy'];

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
export const dayName = (day: number) => DAYS[day - 1] ?? String(day);

/** Business minutes as people say them: "45 min", "2 h", "1 h 30 min"; null: no target. */
export function minutesText(m: number | null): string {
  if (m === null) return 'no target';
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}
