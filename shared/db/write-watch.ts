import type { CompiledQuery, DatabaseConnection, Driver, TransactionSettings } from 'kysely';

/**
 * The tables a process-local read cache may hold rows of (shared/db/row-cache.ts), and the tables
 * whose writes can change them: `calls` sets tickets.call_id to NULL through its foreign key.
 */
export const WATCHED_TABLES = ['tickets', 'calls'] as const;

const WRITE_VERB = /\b(insert|update|delete|merge|truncate|copy|alter|drop)\b/i;
const WATCHED_NAME = new RegExp(`\\b(${WATCHED_TABLES.join('|')})\\b`, 'i');

/**
 * Whether a SQL text may change a watched table. Errs towards yes (`SELECT ... FOR UPDATE` counts,
 * so does a CTE that writes): a false yes only costs a cache refill, a false no would serve stale rows.
 */
export const mayWriteWatched = (sqlText: string) => WRITE_VERB.test(sqlText) && WATCHED_NAME.test(sqlText);

/**
 * A version number for the watched tables' contents, as far as this process can tell.
 *
 * It moves when a write to a watched table starts and again when it is settled (the statement's
 * result outside a transaction, the COMMIT or ROLLBACK inside one), so a cached row read at version
 * v is only served while the version is still v: no write began or ended since it was read. Writes
 * made by other processes arrive through `bump()` (Postgres LISTEN/NOTIFY, shared/db/adapters/pg.ts);
 * while that channel is down, `current()` answers null and readers go to the database.
 */
export class WriteWatch {
  #version = 0;
  #heard: boolean;

  /** `othersHeard` false: another process may write and this one could not hear it (yet). */
  constructor(othersHeard: boolean) {
    this.#heard = othersHeard;
  }

  /** null: nothing may be served from a cache now */
  current(): number | null {
    return this.#heard ? this.#version : null;
  }

  bump() {
    this.#version++;
  }

  /** The cross-process channel went down (false) or is listening again (true). Both move the version. */
  setOthersHeard(heard: boolean) {
    this.#heard = heard;
    this.#version++;
    for (const follow of this.#keyFollowers) follow.heard(heard);
  }

  readonly #keyFollowers: KeyChangeFollower[] = [];
  /**
   * API keys revoked, rotated, deleted or re-scoped by any process (schema/0016: a trigger's
   * NOTIFY naming the key, heard on the same LISTEN session), whether that session listens, and
   * how long this process may trust that it has heard every change (its lease, `setKeyLease`).
   */
  followKeyChanges(follower: KeyChangeFollower) {
    this.#keyFollowers.push(follower);
    follower.heard(this.#heard);
    follower.leased(this.#keyLeaseUntil);
  }
  keyChanged(keyId: string) {
    for (const follow of this.#keyFollowers) follow.changed(keyId);
  }

  #keyLeaseUntil = Number.NEGATIVE_INFINITY;
  /**
   * Until `until` (performance.now() time) every key change committed before the lease was
   * renewed has been heard: the LISTEN session renews it by a statement whose answer arrives after
   * every notice queued before it (shared/db/adapters/pg.ts).
   */
  setKeyLease(until: number) {
    this.#keyLeaseUntil = until;
    for (const follow of this.#keyFollowers) follow.leased(until);
  }

  #announcer: ((keyId: string) => Promise<void>) | null = null;
  /** The LISTEN session's way to tell every other process of a key change and hear them evict it. */
  setKeyAnnouncer(announce: (keyId: string) => Promise<void>) {
    this.#announcer = announce;
  }
  /**
   * Resolves once no other process can serve the key from its cache: each live one has
   * acknowledged evicting it, or has outlived its lease without doing so (a process whose lease
   * lapsed serves nothing from its cache). Called after the change committed.
   */
  announceKeyChange(keyId: string): Promise<void> {
    return this.#announcer ? this.#announcer(keyId) : Promise.resolve();
  }
}

/**
 * What follows the API-key channel: each key changed, the channel's state (false: deaf) and the
 * lease (a performance.now() time) until which hits may be served.
 */
export interface KeyChangeFollower {
  changed(keyId: string): void;
  heard(listening: boolean): void;
  leased(until: number): void;
}

/** Runs a raw script that bypasses the driver (migrations, `handle.exec`), reporting it like a statement. */
export async function execWatched(
  watch: WriteWatch,
  script: string,
  run: (script: string) => Promise<unknown>,
) {
  const watched = mayWriteWatched(script);
  if (watched) watch.bump();
  try {
    await run(script);
  } finally {
    if (watched) watch.bump();
  }
}

interface Tracked {
  inTransaction: boolean;
  wroteWatched: boolean;
}

/**
 * Wraps a Kysely driver so that every statement run through it, by any code path, reports writes
 * to the watched tables to `watch`. The connections it hands out are the inner driver's own
 * (drivers recognise them by identity); what it tracks per connection sits in a WeakMap.
 */
export class WriteWatchingDriver implements Driver {
  readonly #tracked = new WeakMap<DatabaseConnection, Tracked>();

  constructor(
    private readonly inner: Driver,
    private readonly watch: WriteWatch,
  ) {}

  init() {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    if (!this.#tracked.has(connection)) this.#instrument(connection);
    return connection;
  }

  #instrument(connection: DatabaseConnection) {
    const state: Tracked = { inTransaction: false, wroteWatched: false };
    this.#tracked.set(connection, state);
    const execute = connection.executeQuery.bind(connection);
    const watch = this.watch;
    connection.executeQuery = async <R>(query: CompiledQuery) => {
      if (!mayWriteWatched(query.sql)) return execute<R>(query);
      watch.bump();
      if (state.inTransaction) {
        state.wroteWatched = true;
        return execute<R>(query);
      }
      try {
        return await execute<R>(query);
      } finally {
        watch.bump();
      }
    };
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    await this.inner.beginTransaction(connection, settings);
    const state = this.#tracked.get(connection);
    if (state) {
      state.inTransaction = true;
      state.wroteWatched = false;
    }
  }

  async commitTransaction(connection: DatabaseConnection) {
    try {
      await this.inner.commitTransaction(connection);
    } finally {
      this.#settle(connection);
    }
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    try {
      await this.inner.rollbackTransaction(connection);
    } finally {
      this.#settle(connection);
    }
  }

  #settle(connection: DatabaseConnection) {
    const state = this.#tracked.get(connection);
    if (!state) return;
    if (state.wroteWatched) this.watch.bump();
    state.inTransaction = false;
    state.wroteWatched = false;
  }

  savepoint: Driver['savepoint'] = (c, n, q) => this.inner.savepoint!(c, n, q);
  rollbackToSavepoint: Driver['rollbackToSavepoint'] = (c, n, q) => this.inner.rollbackToSavepoint!(c, n, q);
  releaseSavepoint: Driver['releaseSavepoint'] = (c, n, q) => this.inner.releaseSavepoint!(c, n, q);

  releaseConnection(connection: DatabaseConnection) {
    return this.inner.releaseConnection(connection);
  }

  destroy() {
    return this.inner.destroy();
  }
}
