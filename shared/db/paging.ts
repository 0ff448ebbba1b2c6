import { type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';

/** Which slice of a list a request asks for (validated by shared/http/pagination.ts). */
export interface Page {
  limit: number;
  offset: number;
  /** the previous page's `next_cursor`: the page starts after its position (offset is then 0) */
  cursor?: string | undefined;
}

/**
 * Where a cursor page starts: the last row of the previous page, by its sort key (the timestamp as
 * exact text, microseconds and UTC, because a JavaScript Date would drop the microseconds Postgres
 * keeps and skip rows) and id. `list` and `filters` bind the cursor to the list and query it was
 * made for: used anywhere else it is refused (shared/http/pagination.ts).
 */
export interface CursorPosition {
  list: string;
  filters: string;
  key: string;
  id: string;
}

const SORT_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ID = /^[A-Za-z0-9_-]{1,128}$/;
const FIELD = /^[a-z_]{1,40}$/;
const HASH = /^[0-9a-f]{8}$/;

/**
 * Whether a sort key of SORT_KEY's shape names an instant that exists (no 2026-02-31, no hour 24):
 * the shape alone would let the database refuse it mid-query, as an error about no parameter.
 */
function realInstant(key: string): boolean {
  const ms = key.slice(0, 23);
  const at = new Date(`${ms}Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 23) === ms;
}

/** base64url of `[list, filters, key, id]`: opaque to clients, read back only by readCursor. */
export function writeCursor(p: CursorPosition): string {
  // every field is ASCII (checked on the way back in), so btoa's Latin-1 input is the JSON itself
  const b64 = btoa(JSON.stringify([1, p.list, p.filters, p.key, p.id]));
  return b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The position a cursor names, or null when it is not one this API wrote (any byte out of place). */
export function readCursor(cursor: string): CursorPosition | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(atob(cursor.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 5 || parsed[0] !== 1) return null;
  const [, list, filters, key, id] = parsed as unknown[];
  const fits = (v: unknown, re: RegExp) => typeof v === 'string' && re.test(v);
  if (!fits(list, FIELD) || !fits(filters, HASH) || !fits(key, SORT_KEY) || !fits(id, ID)) return null;
  if (!realInstant(key as string)) return null;
  // the round trip must give the same text: no second spelling of one position
  const position = { list, filters, key, id } as CursorPosition;
  return writeCursor(position) === cursor ? position : null;
}

/**
 * A short hash (FNV-1a, 32 bits) of a query's filters and sort, keys sorted: what a cursor is bound
 * to. Not a secret: a client that forges a position only reads its own tenant's rows from elsewhere.
 */
export function filtersHash(query: Record<string, unknown>, omit: readonly string[]): string {
  const keys = Object.keys(query)
    .filter((k) => !omit.includes(k) && query[k] !== undefined)
    .sort();
  const text = JSON.stringify(keys.map((k) => [k, query[k]]));
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** A list's order: one timestamp column (`created_at` or `table.created_at`), then the id the same way. */
export interface ListOrder {
  column: string;
  dir: 'asc' | 'desc';
}

/** The exact text of the sort key the next cursor carries (UTC, microseconds, whatever the session's zone). */
export const sortKeyText = (column: string) =>
  sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * Rows strictly after `after` in the list's order, as one row comparison: the list's index
 * (tenant, [filter,] column, id) serves it as a range, so a page costs the same at any depth.
 */
export function afterPosition(order: ListOrder, after: { key: string; id: string }) {
  const op = sql.raw(order.dir === 'desc' ? '<' : '>');
  // `contacts.created_at` -> `contacts.id`: the id of the same table
  const id = order.column.replace(/[^.]+$/, 'id');
  return sql<SqlBool>`(${sql.ref(order.column)}, ${sql.ref(id)}) ${op} (${after.key}::timestamptz, ${after.id})`;
}

/** The next position from a page read with one row beyond `limit` (null: this page is the last). */
export function nextPosition<R extends { id: string; cursor_key: string }>(
  rows: R[],
  limit: number,
): { page: R[]; next: { key: string; id: string } | null } {
  if (rows.length <= limit) return { page: rows, next: null };
  const page = rows.slice(0, limit);
  const last = page[page.length - 1]!;
  return { page, next: { key: last.cursor_key, id: last.id } };
}

/** One page of a list and how the envelope reports it: `total` null on a cursor page. */
export interface ListPage<O> {
  rows: O[];
  total: number | null;
  next: { key: string; id: string } | null;
}

/**
 * One page of a filtered query plus the count of everything it matches, in parallel: the shape
 * behind every `{<items>, total, limit, offset}` list. `select` adds columns and ordering.
 */
export async function pageWithTotal<DB, TB extends keyof DB, O>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  page: Page,
  select: (q: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, O>,
): Promise<{ rows: O[]; total: number }> {
  const [rows, count] = await Promise.all([
    select(filtered).limit(page.limit).offset(page.offset).execute(),
    filtered.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows as O[], total: Number((count as { n?: unknown } | undefined)?.n ?? 0) };
}

/**
 * How many rows of its list a page walks, per row it needs, looking for the rows that pass a
 * condition only a GIN index serves (a tag, a custom field's value) before it reads the
 * condition's matches from that index instead: one row in fifty passing fills a page from the walk.
 */
export const WALK_ROWS_PER_ROW = 50;

/**
 * The ids of one page of a list filtered by a condition only a GIN index serves (`gin`), in the
 * list's order: `filtered` holds every other filter (and the cursor's position). The planner
 * prices such a condition at a fixed guess (about 0.5% of the rows), not from its value, so on its
 * own it walks the list's ordered index expecting a match soon: for a value no row or one row
 * carries that is every row of the tenant. Instead one statement
 * - walks the ordered index at most WALK_ROWS_PER_ROW rows per row wanted (offset + limit): a
 *   common value fills the page there, at the cost of the plain walk;
 * - only when that walk came up short, reads every match through the GIN index (a bitmap: the
 *   few rows a rare value has) and sorts them (in memory: fewer than one in fifty of the rows).
 * Both branches are in the plan; the count of the walk's finds decides which one runs (a
 * one-time filter), so the rows, their order and the next position are the plain walk's.
 */
export function ginPageIds(p: {
  // biome-ignore lint/suspicious/noExplicitAny: any list's query (its columns are named by `order`)
  filtered: SelectQueryBuilder<any, any, any>;
  gin: Expression<SqlBool>;
  order: ListOrder;
  /** rows to take after `offset`: the page's limit and the one that tells a next page exists */
  take: number;
  offset: number;
}): RawBuilder<string> {
  const { filtered, gin, order, take, offset } = p;
  const idColumn = order.column.replace(/[^.]+$/, 'id');
  const wanted = offset + take;
  const dir = sql.raw(order.dir);
  const walk = filtered
    .clearSelect()
    .select([sql.ref(idColumn).as('id'), sql.ref(order.column).as('k'), sql<boolean>`${gin}`.as('hit')])
    .orderBy(order.column, order.dir)
    .orderBy(idColumn, order.dir)
    .limit(wanted * WALK_ROWS_PER_ROW);
  const matches = filtered
    .clearSelect()
    .where(gin)
    .select([sql.ref(idColumn).as('id'), sql.ref(order.column).as('k')]);
  return sql<string>`(
    with walked as materialized (select w.id, w.k from ${walk} as w where w.hit limit ${wanted}),
         matched as materialized ${matches}
    (select id from walked where (select count(*) from walked) = ${wanted}
      order by k ${dir}, id ${dir} limit ${take} offset ${offset})
    union all
    (select id from matched where (select count(*) from walked) < ${wanted}
      order by k ${dir}, id ${dir} limit ${take} offset ${offset}))`;
}

/**
 * `pageWithTotal` for the lists that take a cursor: the page in the list's `order` (the id breaks
 * ties), read one row beyond `limit` to know whether a next page exists. With a cursor the page
 * starts after its position and nothing is counted (`total` null). `count` replaces the exact count
 * where a kept counter answers it. `select` adds the columns only. `gin` is a filter only a GIN
 * index serves, kept out of `filtered`: the page's ids then come from ginPageIds.
 */
export async function cursorPage<DB, TB extends keyof DB, O>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  page: Page,
  order: ListOrder,
  select: (q: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, O>,
  count?: () => Promise<number>,
  gin?: Expression<SqlBool>,
): Promise<ListPage<O>> {
  const after = page.cursor ? readCursor(page.cursor) : null;
  const scoped = after ? filtered.where(afterPosition(order, after) as Expression<SqlBool>) : filtered;
  const offset = after ? 0 : page.offset;
  const idColumn = order.column.replace(/[^.]+$/, 'id');
  // biome-ignore lint/suspicious/noExplicitAny: the order and key columns are the caller's, not typed per table
  const rowsOf = (q: SelectQueryBuilder<DB, TB, object>) => select(q) as SelectQueryBuilder<any, any, any>;
  const pageRows = gin
    ? rowsOf(
        scoped.where(
          // biome-ignore lint/suspicious/noExplicitAny: as above
          idColumn as any,
          'in',
          ginPageIds({ filtered: scoped, gin, order, take: page.limit + 1, offset }),
        ),
      )
    : rowsOf(scoped).offset(offset);
  const rowsQuery = pageRows
    .select(sortKeyText(order.column).as('cursor_key'))
    .orderBy(order.column, order.dir)
    .orderBy(idColumn, order.dir)
    .limit(page.limit + 1);
  // A kept count that says the page is empty (a tag and a company no row has together) saves the
  // rows statement: with no match the GIN branch would read every row of the commoner filter.
  if (gin && count && !after) {
    const kept = await count();
    if (kept <= offset) return { rows: [], total: kept, next: null };
    return pageOf<O>(await rowsQuery.execute(), page.limit, kept);
  }
  const matching = gin ? filtered.where(gin) : filtered;
  const counted = after
    ? Promise.resolve(null)
    : count
      ? count()
      : matching
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst()
          .then((c) => Number((c as { n?: unknown } | undefined)?.n ?? 0));
  const [rows, total] = await Promise.all([rowsQuery.execute(), counted]);
  return pageOf<O>(rows, page.limit, total);
}

/** The page and its next position from rows read one beyond `limit`, their sort keys dropped. */
function pageOf<O>(rows: unknown[], limit: number, total: number | null): ListPage<O> {
  const { page, next } = nextPosition(rows as (O & { id: string; cursor_key: string })[], limit);
  return { rows: page.map(({ cursor_key: _, ...row }) => row as unknown as O), total, next };
}
