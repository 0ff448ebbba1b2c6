import * as z from 'zod';
import { type CursorPosition, filtersHash, readCursor, writeCursor } from '../db/paging';

/**
 * The spec's pagination: `limit` 1..max (default per resource), `offset` >= 0, 422 outside.
 * Resources extend the returned schema with their own filters.
 */
export function pageQuery(options: { defaultLimit: number; maxLimit: number }) {
  return z.object({
    limit: queryInt(z.number().int().min(1).max(options.maxLimit), options.defaultLimit).describe(
      `Page size: how many items to return, 1-${options.maxLimit} (default ${options.defaultLimit})`,
    ),
    offset: queryInt(z.number().int().min(0).max(10_000_000), 0).describe(
      'How many items to skip: 0 for the first page, then `offset + limit`',
    ),
  });
}

/** The query keys that say which page, not which rows: everything else binds a cursor. */
const PAGE_KEYS = ['limit', 'offset', 'cursor'] as const;

export const CURSOR_MALFORMED = 'Invalid cursor: pass the next_cursor of a previous page unchanged';
export const CURSOR_MISMATCH =
  'This cursor was made for another list, filters or sort: repeat the query that returned it';
/** A page parameter that names where a page starts, sent beside `cursor`, which does too. */
export const cursorConflict = (param: string) =>
  `${param} cannot be combined with cursor (a cursor page starts where the cursor points)`;
export const CURSOR_WITH_OFFSET = cursorConflict('offset');

/** The `cursor` query parameter: at most 512 characters, read only by `cursorIssue`. */
export const cursorParam = z
  .string()
  .max(512)
  .optional()
  .describe(
    "The `next_cursor` of the previous page: the page after it, at the same cost at any depth (`total` is then null). Bound to the list's filters and sort: send them unchanged.",
  );

/**
 * Why `cursor` cannot start a page of the list `items` read with `scope` (its filters and sort,
 * page keys ignored), or null when it can: not one this API wrote, or one made for another list or
 * other filters. Lists whose scope includes a path parameter call it from the handler.
 */
export function cursorIssue(cursor: string, items: string, scope: Record<string, unknown>): string | null {
  const position = readCursor(cursor);
  if (!position) return CURSOR_MALFORMED;
  if (position.list !== items || position.filters !== filtersHash(scope, PAGE_KEYS)) return CURSOR_MISMATCH;
  return null;
}

/** The cursor of the page after `next` (null: this page was the last), bound like `cursorIssue` checks. */
export const nextCursor = (
  items: string,
  scope: Record<string, unknown>,
  next: { key: string; id: string } | null,
): string | null => next && writeCursor(nextPosition(items, scope, next));

/**
 * `pageQuery` plus `cursor`: the previous page's `next_cursor`, for lists whose cost must not grow
 * with depth. The cursor is checked against the whole parsed query (filters added by `.extend()`
 * included, as zod runs an object's checks on its extended output): a cursor of another list or of
 * other filters or sort is a 422 on `cursor`, as is one this API did not write. `items` names the
 * list, as its envelope does (`tickets`, `calls`, ...).
 */
export function cursorPageQuery(options: { defaultLimit: number; maxLimit: number; items: string }) {
  return pageQuery(options)
    .extend({
      cursor: cursorParam,
    })
    .check((ctx) => {
      const query = ctx.value as Record<string, unknown> & { cursor?: string; offset: number };
      if (query.cursor === undefined) return;
      const issue = (path: string, message: string) => {
        ctx.issues.push({ code: 'custom', message, path: [path], input: query[path] });
      };
      const refused = cursorIssue(query.cursor, options.items, query);
      if (refused) return issue('cursor', refused);
      if (query.offset !== 0) issue('offset', CURSOR_WITH_OFFSET);
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

import type { ListPage, Page } from '../db/paging';

export type { Page };

/** The fields every list's envelope carries after its items (its response schema spreads them). */
export const pageFields = {
  total: z
    .number()
    .int()
    .nullable()
    .describe('Every row the filters match (exact); null on a page read by `cursor`'),
  limit: z.number().int(),
  offset: z.number().int(),
};
export const cursorPageFields = {
  ...pageFields,
  next_cursor: z
    .string()
    .nullable()
    .describe('Pass as `cursor` (with the same filters and sort) for the next page; null on the last page'),
};

/** `{<key>: rows, total, limit, offset}`: the spec's list envelope. */
export function pageEnvelope<K extends string, T>(key: K, rows: T[], total: number, page: Page) {
  return { [key]: rows, total, limit: page.limit, offset: page.offset } as { [P in K]: T[] } & {
    total: number;
    limit: number;
    offset: number;
  };
}

/**
 * `{<key>: rows, total, limit, offset, next_cursor}`: the spec's envelope plus the cursor of the
 * next page, bound to this list (`key`) and to the query's filters and sort.
 */
export function cursorEnvelope<K extends string, T>(
  key: K,
  rows: T[],
  page: Pick<ListPage<unknown>, 'total' | 'next'>,
  query: Page & Record<string, unknown>,
) {
  const next_cursor = nextCursor(key, query, page.next);
  return {
    [key]: rows,
    total: page.total,
    limit: query.limit,
    offset: query.cursor ? 0 : query.offset,
    next_cursor,
  } as { [P in K]: T[] } & {
    total: number | null;
    limit: number;
    offset: number;
    next_cursor: string | null;
  };
}

const nextPosition = (
  list: string,
  query: Record<string, unknown>,
  at: { key: string; id: string },
): CursorPosition => ({ list, filters: filtersHash(query, PAGE_KEYS), ...at });

/** The response schema of a list that takes cursors: `{<key>: [item], total, limit, offset, next_cursor}`. */
export const cursorList = <K extends string, T extends z.ZodType>(key: K, item: T) =>
  z.object({ [key]: z.array(item) } as { [P in K]: z.ZodArray<T> }).extend(cursorPageFields);
