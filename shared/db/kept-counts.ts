import { sql } from 'kysely';
import type { Executor } from './schema';

/**
 * How a list's `total` is read from list_filter_counts (schema/0019_list_filter_counts.sql, pairs
 * schema/0035_pair_counts.sql): the list its rows count under, whether it has soft-deleted rows
 * (counted apart, under `<list>.deleted`), the filters whose values are counted (the query key is
 * the counted field), and the pairs of them counted together (`<a>+<b>`, the keys in alphabetical
 * order).
 */
export interface KeptCounts {
  list: string;
  softDeleted?: boolean;
  counted: readonly string[];
  pairs?: readonly string[];
}

/** The query keys that choose the page, its order or which rows are live, not which rows match. */
const NOT_FILTERS = new Set(['limit', 'offset', 'cursor', 'sort', 'include_deleted']);

/** One kept count's key: its field and the values whose counts add up to the total. */
export interface CountedKey {
  field: string;
  values: string[];
}

/**
 * The kept count that answers filters `given` of `query`, or undefined: unfiltered, the whole list
 * (`*`); one counted filter, the sum over its values (a comma list's values, each once); two whose
 * pair is kept, the sum over every combination of their values (`<a>|<b>`, as the triggers write
 * them). Anything else counts exactly, at a cost that grows with the rows matched
 * (docs/benchmarks.md).
 */
export function countedKey(
  given: readonly string[],
  parsed: object,
  counted: readonly string[],
  pairs: readonly string[] = [],
): CountedKey | undefined {
  const query = parsed as Record<string, unknown>;
  const valuesOf = (key: string) => {
    const raw = query[key];
    return [...new Set((Array.isArray(raw) ? raw : [raw]).map(String))];
  };
  if (given.length === 0) return { field: '*', values: ['*'] };
  if (given.length === 1) {
    const [only] = given as [string];
    return counted.includes(only) ? { field: only, values: valuesOf(only) } : undefined;
  }
  if (given.length > 2) return undefined;
  const [a, b] = [...given].sort() as [string, string];
  const field = `${a}+${b}`;
  if (!pairs.includes(field)) return undefined;
  return { field, values: valuesOf(a).flatMap((x) => valuesOf(b).map((y) => `${x}|${y}`)) };
}

/**
 * The `total` of `query` from the kept counts, or undefined when they cannot answer it (see
 * countedKey).
 */
export function keptTotal(
  db: Executor,
  tenantId: string,
  kept: KeptCounts,
  parsed: object,
): (() => Promise<number>) | undefined {
  const query = parsed as Record<string, unknown>;
  const given = Object.keys(query).filter((k) => !NOT_FILTERS.has(k) && query[k] !== undefined);
  const key = countedKey(given, query, kept.counted, kept.pairs);
  if (!key) return undefined;
  const lists = kept.softDeleted && query.include_deleted ? [kept.list, `${kept.list}.deleted`] : [kept.list];
  return async () => {
    const row = await db
      .selectFrom('list_filter_counts')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('n'), sql<string>`0`).as('n'))
      .where('tenant_id', '=', tenantId)
      .where('list', 'in', lists)
      .where('field', '=', key.field)
      .where('value', 'in', key.values)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  };
}
