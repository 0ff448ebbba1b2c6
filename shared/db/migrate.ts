import type { DatabaseHandle } from './handle';

export interface Migration {
  /** e.g. `0001_foundation` (the file name without .sql) */
  version: string;
  sql: string;
}

const BOOKKEEPING = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);`;

const isDuplicate = (err: unknown) => (err as { code?: string } | null)?.code === '23505';

/**
 * The one migrator for PGlite, Postgres and Neon. Each migration runs as one script whose first
 * statement records its version, so the file and its record commit together. Two processes that
 * migrate at once serialise on that row: the loser's script fails with a duplicate key, rolls back
 * whole, and counts the migration as applied.
 */
export async function migrate(handle: DatabaseHandle, migrations: readonly Migration[]): Promise<string[]> {
  try {
    await handle.exec(BOOKKEEPING);
  } catch (err) {
    // two processes creating the bookkeeping table at once
    if (!isDuplicate(err)) throw err;
  }
  const applied = new Set(
    (await handle.db.selectFrom('schema_migrations').select('version').execute()).map((r) => r.version),
  );
  const ran: string[] = [];
  for (const m of [...migrations].sort((a, b) => a.version.localeCompare(b.version))) {
    if (applied.has(m.version)) continue;
    if (!/^[\w.-]+$/.test(m.version)) throw new Error(`bad migration version ${m.version}`);
    try {
      await handle.exec(`INSERT INTO schema_migrations (version) VALUES ('${m.version}');\n${m.sql}`);
      ran.push(m.version);
    } catch (err) {
      if (!isDuplicate(err))
        throw new Error(`migration ${m.version} failed: ${(err as Error).message}`, { cause: err });
    }
  }
  return ran;
}
