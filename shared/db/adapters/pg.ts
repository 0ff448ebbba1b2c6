// Node-only adapter (DATABASE_URL in the embedded runtime, and the real-Postgres test tier).
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { type Logger, standaloneLogger } from '../../log/logger';
import type { DatabaseHandle } from '../handle';
import type { Database } from '../schema';
import { execWatched, WriteWatch, WriteWatchingDriver } from '../write-watch';

const CHANGE_CHANNEL = 'itsm_watched_change'; // schema/0008_change_notify.sql
const KEY_CHANNEL = 'itsm_api_key_change'; // schema/0016_api_key_revocation_notify.sql
const RELISTEN_DELAY_MS = 1_000;

class WatchedPostgresDialect extends PostgresDialect {
  constructor(
    config: ConstructorParameters<typeof PostgresDialect>[0],
    private readonly watch: WriteWatch,
  ) {
    super(config);
  }
  override createDriver() {
    return new WriteWatchingDriver(super.createDriver(), this.watch);
  }
}

/**
 * Hears other processes' writes to the watched tables (LISTEN on the trigger's channel). Until it
 * listens, and whenever its connection drops, the watch says so and read caches stand aside.
 */
function listenForOtherWriters(
  connectionString: string,
  watch: WriteWatch,
  ownBackends: ReadonlySet<number>,
): { stop(): Promise<void> } {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let connecting: Promise<void> = Promise.resolve();
  const lost = () => {
    watch.setOthersHeard(false);
    client = null;
    if (!stopped) {
      retry = setTimeout(() => {
        connecting = connect();
      }, RELISTEN_DELAY_MS);
      retry.unref();
    }
  };
  async function connect() {
    retry = null;
    const c = new pg.Client({ connectionString, connectionTimeoutMillis: 2_000 });
    c.on('error', () => {}); // 'end' follows and reports the loss
    // this process's own writes already moved the watch, synchronously; only others' count here
    c.on('notification', (n) => {
      // a key this process changed was evicted already; hearing it again costs one more lookup
      if (n.channel === KEY_CHANNEL) watch.keyChanged(n.payload ?? '');
      else if (!ownBackends.has(n.processId)) watch.bump();
    });
    c.once('end', () => {
      if (client === c) lost();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANGE_CHANNEL}; LISTEN ${KEY_CHANNEL}`);
      if (stopped) return void (await c.end());
      client = c;
      watch.setOthersHeard(true);
    } catch {
      await c.end().catch(() => {});
      if (!stopped && client === null && retry === null) lost();
    }
  }
  connecting = connect();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      // a connection still being opened is closed by connect() itself once it sees `stopped`;
      // wait for that, so no session of ours outlives close() (CREATE DATABASE … TEMPLATE needs none)
      await connecting;
      const c = client;
      client = null;
      watch.setOthersHeard(false);
      await c?.end().catch(() => {});
    },
  };
}

export function createPostgresHandle(
  connectionString: string,
  options: {
    max?: number;
    /** false for one-shot tools (migrate, test templates): no LISTEN session, so no read cache either */
    listen?: boolean;
    /** where dropped connections are reported: the runtime's logger (default: JSON on stderr) */
    logger?: Logger;
    /**
     * STATEMENT_TIMEOUT_MS: Postgres cancels any statement of this pool's sessions running longer
     * (57014, answered 503; its transaction rolls back). Unset = no limit (one-shot tools).
     */
    statementTimeoutMs?: number;
  } = {},
): DatabaseHandle {
  const logger = options.logger ?? standaloneLogger;
  const logDropped = (err: Error) => logger.warn({ error: err.message }, 'pg connection error');
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: 2_000,
    idleTimeoutMillis: 30_000,
    // a startup parameter of every session: enforced by the server, so a statement past it stops
    // holding its connection and its locks, which a client-side timeout would not achieve
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
  });
  // A dropped connection (e.g. Postgres restarted) must not crash the process: idle clients report
  // on the pool, checked-out ones on themselves. Their queries fail on their own (answered 503).
  pool.on('error', logDropped);
  const ownBackends = new Set<number>();
  pool.on('connect', (client) => {
    client.on('error', logDropped);
    const pid = (client as unknown as { processID?: number }).processID;
    if (pid) ownBackends.add(pid);
  });
  pool.on('remove', (client) => {
    const pid = (client as unknown as { processID?: number }).processID;
    if (pid) ownBackends.delete(pid);
  });
  const writes = new WriteWatch(false);
  const listener =
    options.listen === false ? null : listenForOtherWriters(connectionString, writes, ownBackends);
  const db = new Kysely<Database>({ dialect: new WatchedPostgresDialect({ pool }, writes) });
  return {
    kind: 'postgres',
    db,
    writes,
    // a script (a migration) may build an index over millions of rows: no limit for its transaction
    // (SET LOCAL lasts for the script's implicit transaction only, not the pooled session)
    exec: (script) =>
      execWatched(writes, script, (sql) =>
        pool.query(options.statementTimeoutMs ? `SET LOCAL statement_timeout = 0;\n${sql}` : sql),
      ),
    async close() {
      await listener?.stop();
      await db.destroy();
    },
  };
}
