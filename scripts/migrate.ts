// `npm run migrate`: applies /schema/*.sql to DATABASE_URL (or the PGlite in DATA_DIR).
// Production runs this before `npm run deploy`; `npm start` runs it on its own at start.

import { createPostgresHandle } from '../shared/db/adapters/pg';
import { createPgliteHandle } from '../shared/db/adapters/pglite';
import { migrate } from '../shared/db/migrate';
import { readMigrations } from '../shared/db/migrations-fs';
import { type AppConfig, loadConfig } from '../shared/env';
import { lockDataDir, refuse } from './startup-checks';

/** A bad environment or a DATA_DIR a running server holds: one line on stderr, exit 1. */
function configOrExit(): AppConfig {
  try {
    const config = loadConfig(process.env);
    // the PGlite directory of a running `npm start` must not be written by a second process
    if (!config.DATABASE_URL) process.on('exit', lockDataDir(config.DATA_DIR));
    return config;
  } catch (error) {
    refuse(error);
  }
}

const config = configOrExit();
const handle = config.DATABASE_URL
  ? createPostgresHandle(config.DATABASE_URL, { listen: false })
  : await createPgliteHandle(config.DATA_DIR);
const ran = await migrate(handle, readMigrations());
console.log(ran.length ? `applied: ${ran.join(', ')}` : 'schema up to date');
await handle.close();
