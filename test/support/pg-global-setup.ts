// globalSetup of the `postgres` vitest project: builds the migrated template database once per
// set of migrations. Built under a temporary name and renamed, so concurrent runs never see a
// half-migrated template and never drop one another's.
import { createPostgresHandle } from '../../shared/db/adapters/pg';
import { migrate } from '../../shared/db/migrate';
import { readMigrations } from '../../shared/db/migrations-fs';
import { adminQuery, dbUrl, postgresReachable, templateName } from './pg';

export default async function setup() {
  if (!(await postgresReachable())) {
    const msg = 'PostgreSQL is not reachable at 127.0.0.1:5432 (set TEST_POSTGRES_URL).';
    if (process.env.CI === 'true') throw new Error(`${msg} CI requires it.`);
    console.warn(`\n*** ${msg} The postgres project's tests will be skipped. ***\n`);
    process.env.TEST_POSTGRES_UNAVAILABLE = '1';
    return;
  }
  const migrations = readMigrations();
  const template = templateName(migrations.map((m) => m.version + m.sql).join('\n'));
  process.env.TEST_POSTGRES_TEMPLATE = template;
  const building = `${template}_b${Math.random().toString(36).slice(2, 8)}`;
  await adminQuery(`CREATE DATABASE ${building}`);
  try {
    const handle = createPostgresHandle(dbUrl(building), { max: 1, listen: false });
    await migrate(handle, migrations);
    await handle.close();
    await adminQuery(`ALTER DATABASE ${building} RENAME TO ${template}`);
  } catch (err) {
    if (!/already exists/.test(String((err as Error).message))) throw err;
  } finally {
    await adminQuery(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
  }
}
