// Real-Postgres test tier: one migrated template database, one throwaway copy per test file.
import pg from 'pg';

export const PG_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The template's name carries a hash of the migrations, so parallel runs never rebuild one in use. */
export function templateName(migrationsText: string): string {
  let h = 2166136261;
  for (let i = 0; i < migrationsText.length; i++)
    h = Math.imul(h ^ migrationsText.charCodeAt(i), 16777619) >>> 0;
  return `spa_tpl_${h.toString(36)}`;
}

export function dbUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function postgresReachable(): Promise<boolean> {
  try {
    await adminQuery('select 1');
    return true;
  } catch {
    return false;
  }
}

/** A fresh database copied from the migrated template (fast: a file copy, no migrations). */
export async function createTestDatabase(
  template: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `spa_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  return {
    url: dbUrl(name),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
