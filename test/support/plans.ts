// What a statement's plan did when it ran, read from EXPLAIN (ANALYZE, FORMAT JSON) on Postgres.
import type { CompiledQuery, Kysely } from 'kysely';

/** The most rows any node of the statement's plan, as run, threw away by a filter or an index recheck. */
export async function mostRowsRemoved(db: Kysely<any>, query: CompiledQuery): Promise<number> {
  const result = await db.executeQuery<{ 'QUERY PLAN': unknown }>({
    ...query,
    sql: `EXPLAIN (ANALYZE, FORMAT JSON) ${query.sql}`,
  });
  let most = 0;
  const walk = (node: Record<string, unknown>) => {
    const loops = Number(node['Actual Loops'] ?? 1);
    for (const key of ['Rows Removed by Filter', 'Rows Removed by Index Recheck'])
      most = Math.max(most, Number(node[key] ?? 0) * loops);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  const raw = result.rows[0]!['QUERY PLAN'];
  const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: Record<string, unknown> }[];
  walk(doc[0]!.Plan);
  return most;
}

/** The rows the statement's plan, as run, read from `table` and its indexes (nodes never run read none). */
export async function rowsRead(db: Kysely<any>, query: CompiledQuery, table: string): Promise<number> {
  const result = await db.executeQuery<{ 'QUERY PLAN': unknown }>({
    ...query,
    sql: `EXPLAIN (ANALYZE, FORMAT JSON) ${query.sql}`,
  });
  let read = 0;
  const walk = (node: Record<string, unknown>) => {
    const index = String(node['Index Name'] ?? '');
    if (node['Relation Name'] === table || index.startsWith(`${table}_`))
      read += Number(node['Actual Rows'] ?? 0) * Number(node['Actual Loops'] ?? 1);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  const raw = result.rows[0]!['QUERY PLAN'];
  const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: Record<string, unknown> }[];
  walk(doc[0]!.Plan);
  return read;
}
