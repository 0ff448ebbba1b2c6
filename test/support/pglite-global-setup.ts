// globalSetup of the `pglite` vitest project: migrates one in-memory PGlite and dumps its data
// directory to a file named by a hash of the migrations. Each test file then starts its database
// from that dump instead of running initdb and the migrations again (initdb is most of PGlite's
// start-up). Written under a temporary name and renamed, so concurrent runs never read half a file.
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPgliteHandle } from '../../shared/db/adapters/pglite';
import { migrate } from '../../shared/db/migrate';
import { readMigrations } from '../../shared/db/migrations-fs';
import { templateName } from './pg';

export default async function setup() {
  const migrations = readMigrations();
  const file = join(
    tmpdir(),
    `${templateName(migrations.map((m) => m.version + m.sql).join('\n'))}.pglite.tar`,
  );
  process.env.TEST_PGLITE_TEMPLATE = file;
  if (existsSync(file)) return;
  const handle = await createPgliteHandle();
  await migrate(handle, migrations);
  const dump = await handle.dumpDataDir();
  await handle.close();
  const building = `${file}.${process.pid}`;
  writeFileSync(building, Buffer.from(await dump.arrayBuffer()));
  renameSync(building, file);
}
