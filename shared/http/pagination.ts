import * as z from 'zod';

/**
 * The spec's pagination: `limit` 1..max (default per resource), `offset` >= 0, 422 outside.
 * Resources extend the returned schema with their own filters.
 */
export function pageQuery(options: { defaultLimit: number; maxLimit: number }) {
  return z.object({
    limit: queryInt(z.number().int().min(1).max(options.maxLimit), options.defaultLimit),
    offset: queryInt(z.number().int().min(0).max(10_000_000), 0),
  });
}

/**
 * A query integer written in decimal digits, then checked by `range`, `fallback` when absent. Not
 * z.coerce.number(): Number() also reads "0x10" as 16, "1e3" as 1000 and "" as 0 (docs/input.md).
 * Documented as the integer it is (the string-and-pipe would show as a bare string pattern, and
 * typed clients would take `limit` as a string).
 */
export const queryInt = (range: z.ZodNumber, fallback: number) =>
  z
    .string()
    .regex(/^-?\d{1,16}$/, 'Input should be a valid integer')
    .optional()
    .transform((text) => (text === undefined ? fallback : Number(text)))
    .pipe(range)
    .meta({
      type: 'integer',
      minimum: range.minValue ?? undefined,
      maximum: range.maxValue ?? undefined,
      default: fallback,
      pattern: undefined,
    });

export const TICKETS_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;

import type { Page } from '../db/paging';

export type { Page };

/** `{<key>: rows, total, limit, offset}`: the spec's list envelope. */
export function pageEnvelope<K extends string, T>(key: K, rows: T[], total: number, page: Page) {
  return { [key]: rows, total, limit: page.limit, offset: page.offset } as { [P in K]: T[] } & {
    total: number;
    limit: number;
    offset: number;
  };
}
