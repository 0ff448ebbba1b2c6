// globalSetup of the `postgres` vitest project: (re)builds the migrated template database once.
import { createPostgresHandle } from '../../shared/db/adapters/pg';
import { migrate } from '../../shared/db/migrate';
import { readMigrations } from '../../shared/db/migrations-fs';
import { adminQuery, dbUrl, postgresReachable, TEMPLATE_DB } from './pg';

export default async function setup() {
  if (!(await postgresReachable())) {
    const msg = 'PostgreSQL is not reachable at 127.0.0.1:5432 (set TEST_POSTGRES_URL).';
    if (process.env.CI === 'true') throw new Error(`${msg} CI requires it.`);
    console.warn(`\n*** ${msg} The postgres project's tests will be skipped. ***\n`);
    process.env.TEST_POSTGRES_UNAVAILABLE = '1';
    return;
  }
  await adminQuery(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE ${TEMPLATE_DB}`);
  const handle = createPostgresHandle(dbUrl(TEMPLATE_DB), { max: 1 });
  await migrate(handle, readMigrations());
  await handle.close();
}
