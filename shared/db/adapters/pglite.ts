// Node-only adapter (embedded runtime and tests): never imported by a Workers entry.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import {
  type DatabaseConnection,
  type Driver,
  Kysely,
  PGliteDialect,
  type TransactionSettings,
} from 'kysely';
import type { DatabaseHandle } from '../handle';
import type { Database } from '../schema';
import { execWatched, WriteWatch, WriteWatchingDriver } from '../write-watch';

/**
 * PGlite is one connection. Kysely's PGlite driver hands that connection to every caller, so a
 * query from another request could land inside an open transaction. This wrapper makes the
 * connection exclusive: acquire waits for the previous holder to release it.
 */
class ExclusiveDriver implements Driver {
  #tail: Promise<void> = Promise.resolve();
  #release: (() => void) | null = null;

  constructor(private readonly inner: Driver) {}

  init() {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.#release = release;
    return this.inner.acquireConnection();
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await this.inner.releaseConnection(connection);
    const release = this.#release;
    this.#release = null;
    release?.();
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    return this.inner.beginTransaction(connection, settings);
  }
  commitTransaction(connection: DatabaseConnection) {
    return this.inner.commitTransaction(connection);
  }
  rollbackTransaction(connection: DatabaseConnection) {
    return this.inner.rollbackTransaction(connection);
  }
  savepoint: Driver['savepoint'] = (c, n, q) => this.inner.savepoint!(c, n, q);
  rollbackToSavepoint: Driver['rollbackToSavepoint'] = (c, n, q) => this.inner.rollbackToSavepoint!(c, n, q);
  releaseSavepoint: Driver['releaseSavepoint'] = (c, n, q) => this.inner.releaseSavepoint!(c, n, q);
  destroy() {
    return this.inner.destroy();
  }
}

class ExclusivePGliteDialect extends PGliteDialect {
  constructor(
    config: ConstructorParameters<typeof PGliteDialect>[0],
    private readonly watch: WriteWatch,
  ) {
    super(config);
  }
  override createDriver(): Driver {
    return new WriteWatchingDriver(new ExclusiveDriver(super.createDriver()), this.watch);
  }
}

/**
 * `dataDir` undefined = in memory (tests); otherwise a directory on disk. `loadDataDir` starts from
 * a dump (`PGlite.dumpDataDir`) instead of running initdb: the tests' migrated template.
 */
export async function createPgliteHandle(
  dataDir?: string,
  loadDataDir?: Blob,
): Promise<DatabaseHandle & { dumpDataDir(): Promise<Blob> }> {
  const pglite = await openPglite(dataDir, loadDataDir);
  return {
    ...pgliteHandleOn(pglite),
    dumpDataDir: async () => (await pglite.dumpDataDir('none')) as Blob,
  };
}

/** A PGlite with the extensions the migrations create (the contacts' and companies' `q` search indexes). */
export async function openPglite(dataDir?: string, loadDataDir?: Blob): Promise<PGlite> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const extensions = { pg_trgm, btree_gin };
  return PGlite.create(dataDir, loadDataDir ? { loadDataDir, extensions } : { extensions });
}

/**
 * A handle over an open PGlite; closing the handle closes that PGlite. The tests lend one
 * instance to file after file through a stand-in whose close is their own (test/support/pglite-pool.ts).
 */
export function pgliteHandleOn(pglite: PGlite): DatabaseHandle {
  // PGlite is in-process and exclusive: every write goes through this handle, none to hear from others
  const writes = new WriteWatch(true);
  const db = new Kysely<Database>({ dialect: new ExclusivePGliteDialect({ pglite }, writes) });
  return {
    kind: 'pglite',
    db,
    writes,
    exec: (script) => execWatched(writes, script, (sql) => pglite.exec(sql)),
    async close() {
      await db.destroy();
    },
  };
}
