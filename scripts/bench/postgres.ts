// What the benchmarks that run on this machine's Postgres share: where it is, a throwaway database
// each, and the secrets their servers start with.
import pg from 'pg';

export const BENCH_PG_ADMIN_URL =
  process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export const BENCH_SECRETS = {
  DASHBOARD_JWT_SECRET: 'bench-dashboard-secret',
  INTERNAL_API_TOKEN: 'bench-internal',
  API_KEY_HASH_SECRET: 'bench-hash',
  WEBHOOK_ENCRYPTION_KEY: 'bench-webhook-key',
  END_USER_JWT_SECRET: 'bench-end-user',
};

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The URL of database `name` on the bench's Postgres. */
export function benchDatabaseUrl(name: string): string {
  const url = new URL(BENCH_PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}
