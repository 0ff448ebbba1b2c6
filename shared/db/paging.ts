import type { SelectQueryBuilder } from 'kysely';

/** Which slice of a list a request asks for (validated by shared/http/pagination.ts). */
export interface Page {
  limit: number;
  offset: number;
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
