import { sql } from 'kysely';
import type { Harness } from './harness';

/** Every row of every public table as JSON text: secrets-at-rest tests search it for clear values. */
export async function databaseText(db: Harness['db']): Promise<string> {
  const tables = (
    await sql<{ tablename: string }>`select tablename from pg_tables where schemaname = 'public'`.execute(db)
  ).rows;
  let all = '';
  for (const { tablename } of tables) {
    const rows = await sql<{
      r: string;
    }>`select row_to_json(t)::text as r from ${sql.table(tablename)} t`.execute(db);
    all += rows.rows.map((r) => r.r).join('\n');
  }
  return all;
}
