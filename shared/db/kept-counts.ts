import { sql } from 'kysely';
import type { Executor } from './schema';

/**
 * How a list's `total` is read from list_filter_counts (schema/0019_list_filter_counts.sql): the
 * list its rows count under, whether it has soft-deleted rows (counted apart, under
 * `<list>.deleted`), and the filters whose values are counted (the query key is the counted field).
 */
export interface KeptCounts {
  list: string;
  softDeleted?: boolean;
  counted: readonly string[];
}

/** The query keys that choose the page, its order or which rows are live, not which rows match. */
const NOT_FILTERS = new Set(['limit', 'offset', 'cursor', 'sort', 'include_deleted']);

/**
 * The `total` of `query` from the kept counts, or undefined when they cannot answer it (two filters
 * or more, or one that is not counted: the list then counts exactly, at a cost that grows with the
 * rows matched, see docs/benchmarks.md). Unfiltered: the list's own count; one counted filter: the
 * sum over its values (a comma list's values are summed, each once).
 */
export function keptTotal(
  db: Executor,
  tenantId: string,
  kept: KeptCounts,
  parsed: object,
): (() => Promise<number>) | undefined {
  const query = parsed as Record<string, unknown>;
  const given = Object.keys(query).filter((k) => !NOT_FILTERS.has(k) && query[k] !== undefined);
  if (given.length > 1) return undefined;
  const field = given[0] ?? '*';
  if (field !== '*' && !kept.counted.includes(field)) return undefined;
  const raw = field === '*' ? '*' : query[field];
  const values = [...new Set((Array.isArray(raw) ? raw : [raw]).map(String))];
  const lists = kept.softDeleted && query.include_deleted ? [kept.list, `${kept.list}.deleted`] : [kept.list];
  return async () => {
    const row = await db
      .selectFrom('list_filter_counts')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('n'), sql<string>`0`).as('n'))
      .where('tenant_id', '=', tenantId)
      .where('list', 'in', lists)
      .where('field', '=', field)
      .where('value', 'in', values)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  };
}
