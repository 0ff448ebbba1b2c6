import * as z from 'zod';

/**
 * The instants a request may carry: what Postgres stores and an ISO 8601 string writes back, UTC
 * years 0001 to 9999. A JavaScript date reaches further (year 0, `+010000-01-01T…`), and an offset
 * can carry a well-formed `9999-12-31T23:59:59-12:00` into year 10000; Postgres refuses both, so
 * such a value is a 422 here, where it enters, and never reaches a query (docs/input.md).
 */
export const EARLIEST_MS = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z
export const LATEST_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
const OUT_OF_RANGE = 'Date-time must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z';

/** false for NaN too: a string zod's format accepts but Date cannot read is refused as well */
const storable = (iso: string): boolean => {
  const ms = Date.parse(iso);
  return ms >= EARLIEST_MS && ms <= LATEST_MS;
};

/**
 * Postgres reads a UTC offset up to 15:59 either way and refuses a larger one (22009) at query time,
 * where the failure could no longer name the parameter: so a larger one is refused here, where it enters.
 */
const MAX_OFFSET_MINUTES = 15 * 60 + 59;
const OFFSET = /([+-])(\d{2}):?(\d{2})$/;
const readableOffset = (iso: string): boolean => {
  const m = OFFSET.exec(iso);
  return !m || Number(m[2]) * 60 + Number(m[3]) <= MAX_OFFSET_MINUTES;
};
const BAD_OFFSET = 'UTC offset must be between -15:59 and +15:59';

/** An ISO 8601 date-time with an explicit offset (`Z` or `+02:00`), in range; kept as the string sent. */
export const isoDateTime = z.iso
  .datetime({ offset: true })
  .refine(readableOffset, BAD_OFFSET)
  .refine(storable, OUT_OF_RANGE);

/** The same, parsed to a Date. */
export const isoInstant = isoDateTime.transform((v) => new Date(v));

/** A date-time as above, or a calendar date (`YYYY-MM-DD`: its midnight, UTC). */
export const isoDateTimeOrDate = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .refine(readableOffset, BAD_OFFSET)
  .refine(storable, OUT_OF_RANGE);

const knownTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

/** An IANA time zone name the runtime knows (`Europe/Lisbon`, `UTC`); anything else is a 422. */
export const ianaTimeZone = z.string().trim().min(1).max(64).refine(knownTimeZone, 'Unknown IANA time zone');
