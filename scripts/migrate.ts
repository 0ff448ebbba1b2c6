// `npm run migrate`: applies /schema/*.sql to DATABASE_URL (or the PGlite in DATA_DIR).
// Production runs this before `npm run deploy`; `npm start` runs it on its own at start.

import { createPostgresHandle } from '../shared/db/adapters/pg';
import { createPgliteHandle } from '../shared/db/adapters/pglite';
import { migrate } from '../shared/db/migrate';
import { readMigrations } from '../shared/db/migrations-fs';
import { loadConfig } from '../shared/env';

const config = loadConfig(process.env);
const handle = config.DATABASE_URL
  ? createPostgresHandle(config.DATABASE_URL, { listen: false })
  : await createPgliteHandle(config.DATA_DIR);
const ran = await migrate(handle, readMigrations());
console.log(ran.length ? `applied: ${ran.join(', ')}` : 'schema up to date');
await handle.close();
