// Node-only adapter (DATABASE_URL in the embedded runtime, and the real-Postgres test tier).
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseHandle } from '../handle';
import type { Database } from '../schema';

export function createPostgresHandle(
  connectionString: string,
  options: { max?: number } = {},
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: 2_000,
    idleTimeoutMillis: 30_000,
  });
  const logDropped = (err: Error) =>
    console.error(JSON.stringify({ level: 'warn', msg: 'pg connection error', error: err.message }));
  // A dropped connection (e.g. Postgres restarted) must not crash the process: idle clients report
  // on the pool, checked-out ones on themselves. Their queries fail on their own (answered 503).
  pool.on('error', logDropped);
  pool.on('connect', (client) => client.on('error', logDropped));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: 'postgres',
    db,
    async exec(script) {
      await pool.query(script);
    },
    async close() {
      await db.destroy();
    },
  };
}
