// Node-only adapter (DATABASE_URL in the embedded runtime, and the real-Postgres test tier).
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { type Logger, standaloneLogger } from '../../log/logger';
import type { DatabaseHandle } from '../handle';
import type { Database } from '../schema';
import { execWatched, WriteWatch, WriteWatchingDriver } from '../write-watch';

const CHANGE_CHANNEL = 'itsm_watched_change'; // schema/0008_change_notify.sql
const KEY_CHANNEL = 'itsm_api_key_change'; // schema/0016_api_key_revocation_notify.sql
/** a revoke's own notice: `<nonce> <key id>`; each process that evicts the key answers on KEY_ACK_CHANNEL */
const KEY_EVICT_CHANNEL = 'itsm_api_key_evict';
/** `<nonce> <process id>`: that process has evicted the key the nonce's notice named */
const KEY_ACK_CHANNEL = 'itsm_api_key_ack';
const RELISTEN_DELAY_MS = 1_000;
/** pg_stat_activity.application_name of each process's LISTEN session */
export const LISTENER_APPLICATION_NAME = 'itsm_listener';

/**
 * How long a renewal of the key lease lasts, counted from when it was sent. A revoke waits at most
 * this long (plus the margin) for a process that does not acknowledge it; a process whose session
 * stalls this long serves no key from its cache until it is renewed again.
 */
export const KEY_LEASE_MS = 5_000;
/** clock rates of two processes may differ slightly; a revoke's wait errs long by this much */
const KEY_LEASE_MARGIN_MS = 250;
const KEY_HEARTBEAT_MS = 1_000;
/** the registration fails until the migrations ran (the session starts first): try again soon */
const KEY_HEARTBEAT_RETRY_MS = 250;

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

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    if (ms > 0) setTimeout(resolve, ms);
    else resolve();
  });

/**
 * Hears other processes' writes to the watched tables (LISTEN on the trigger's channel). Until it
 * listens, and whenever its connection drops, the watch says so and read caches stand aside.
 *
 * The same session carries the key cache's guarantee that a revoke answered by any process bites
 * on the next request here. It renews this process's row (schema/0030) every second; a renewal's
 * answer comes after every notice Postgres queued for the session before it, and notices are
 * handled as they are read, so once it answers, every key change committed before it has been
 * evicted: the cache may serve hits for KEY_LEASE_MS from when the renewal was sent. A revoke
 * (`announce`) then needs no read on the hot path: it tells the processes whose rows are live,
 * answers when each has acknowledged the eviction, and otherwise waits until any lease that was
 * not preceded by the change's notice has lapsed.
 */
function listenForOtherWriters(
  connectionString: string,
  watch: WriteWatch,
  ownBackends: ReadonlySet<number>,
): { stop(): Promise<void> } {
  const session = new OtherWritersSession(connectionString, watch, ownBackends);
  // A process that did not acknowledge in time renewed its lease, at the latest, by a statement
  // sent before the change's notice was queued (after that, the notice precedes every renewal's
  // answer): waiting one lease from after the commit outlasts it. So does a failed announcement.
  watch.setKeyAnnouncer(async (keyId) => {
    const deadline = performance.now() + KEY_LEASE_MS + KEY_LEASE_MARGIN_MS;
    const c = session.client;
    if (c && (await tellLiveProcesses(c, session.acks, keyId, deadline))) return;
    await sleep(deadline - performance.now());
  });
  session.start();
  return { stop: () => session.stop() };
}

/** The LISTEN session of one database handle: reconnects, renews the key lease, acknowledges evictions. */
class OtherWritersSession {
  client: pg.Client | null = null;
  /**
   * This session's row in key_cache_processes (schema/0030), one per database handle (a test may
   * run two runtimes in one process); the pid first, so an operator can tell whose it is.
   */
  readonly processId = `${process.pid}/${crypto.randomUUID()}`;
  /** this process's revokes waiting for acknowledgements, by nonce */
  readonly acks: AckBook = { processId: this.processId, awaiting: new Map() };
  #stopped = false;
  #retry: ReturnType<typeof setTimeout> | null = null;
  #beat: ReturnType<typeof setTimeout> | null = null;
  #connecting: Promise<void> = Promise.resolve();

  constructor(
    private readonly connectionString: string,
    private readonly watch: WriteWatch,
    private readonly ownBackends: ReadonlySet<number>,
  ) {}

  start() {
    this.#connecting = this.#connect();
  }

  #lost() {
    this.watch.setKeyLease(Number.NEGATIVE_INFINITY);
    this.watch.setOthersHeard(false);
    this.client = null;
    if (this.#beat) clearTimeout(this.#beat);
    if (!this.#stopped) {
      this.#retry = setTimeout(() => this.start(), RELISTEN_DELAY_MS);
      this.#retry.unref();
    }
  }

  async #heartbeat(c: pg.Client) {
    const sent = performance.now();
    let next = KEY_HEARTBEAT_RETRY_MS;
    try {
      await c.query(
        'INSERT INTO key_cache_processes (id, seen_at) VALUES ($1, now()) ON CONFLICT (id) DO UPDATE SET seen_at = now()',
        [this.processId],
      );
      if (this.client === c) this.watch.setKeyLease(sent + KEY_LEASE_MS);
      next = KEY_HEARTBEAT_MS;
    } catch {
      // not migrated yet, or the session is going ('end' reports that): the lease runs out
    }
    if (this.client !== c || this.#stopped) return;
    this.#beat = setTimeout(() => void this.#heartbeat(c), next);
    this.#beat.unref();
  }

  // this process's own writes already moved the watch, synchronously; only others' count here
  #onNotification(c: pg.Client, n: pg.Notification) {
    const payload = n.payload ?? '';
    // a key this process changed was evicted already; hearing it again costs one more lookup
    if (n.channel === KEY_CHANNEL) this.watch.keyChanged(payload);
    else if (n.channel === KEY_EVICT_CHANNEL) this.#onKeyEvict(c, payload);
    else if (n.channel === KEY_ACK_CHANNEL) {
      const [nonce = '', processId = ''] = payload.split(' ');
      this.acks.awaiting.get(nonce)?.(processId);
    } else if (!this.ownBackends.has(n.processId)) this.watch.bump();
  }

  #onKeyEvict(c: pg.Client, payload: string) {
    const [nonce = '', keyId = ''] = payload.split(' ');
    this.watch.keyChanged(keyId);
    // this process's own revoke evicted the key already and waits for the others only
    if (this.acks.awaiting.has(nonce)) return;
    c.query('SELECT pg_notify($1, $2)', [KEY_ACK_CHANNEL, `${nonce} ${this.processId}`]).catch(() => {});
  }

  async #connect() {
    this.#retry = null;
    const c = new pg.Client({
      connectionString: this.connectionString,
      connectionTimeoutMillis: 2_000,
      // an operator (or a test) finds this session in pg_stat_activity by it
      application_name: LISTENER_APPLICATION_NAME,
    });
    c.on('error', () => {}); // 'end' follows and reports the loss
    c.on('notification', (n) => this.#onNotification(c, n));
    c.once('end', () => {
      if (this.client === c) this.#lost();
    });
    try {
      await c.connect();
      await c.query(
        `LISTEN ${CHANGE_CHANNEL}; LISTEN ${KEY_CHANNEL}; LISTEN ${KEY_EVICT_CHANNEL}; LISTEN ${KEY_ACK_CHANNEL}`,
      );
      if (this.#stopped) return void (await c.end());
      this.client = c;
      this.watch.setOthersHeard(true);
      void this.#heartbeat(c);
    } catch {
      await c.end().catch(() => {});
      if (!this.#stopped && this.client === null && this.#retry === null) this.#lost();
    }
  }

  async stop() {
    this.#stopped = true;
    if (this.#retry) clearTimeout(this.#retry);
    if (this.#beat) clearTimeout(this.#beat);
    // a connection still being opened is closed by #connect() itself once it sees `stopped`;
    // wait for that, so no session of ours outlives close() (CREATE DATABASE … TEMPLATE needs none)
    await this.#connecting;
    const c = this.client;
    this.client = null;
    this.watch.setKeyLease(Number.NEGATIVE_INFINITY);
    this.watch.setOthersHeard(false);
    // gone: revokes stop waiting for this process at once
    await c?.query('DELETE FROM key_cache_processes WHERE id = $1', [this.processId]).catch(() => {});
    await c?.end().catch(() => {});
  }
}

/** The revokes of one process waiting for acknowledgements (by nonce), and the process's own id. */
interface AckBook {
  processId: string;
  awaiting: Map<string, (processId: string) => void>;
}

/**
 * Tells the live processes (rows renewed within a lease and a second) that `keyId` changed and
 * resolves true once each has acknowledged evicting it, false if one had not by `deadline`. The
 * table lock waits for renewals under way, so a process is either listed here or renews after
 * this notice was queued (and so has handled it before its lease is renewed).
 */
async function tellLiveProcesses(
  c: pg.Client,
  acks: AckBook,
  keyId: string,
  deadline: number,
): Promise<boolean> {
  const nonce = crypto.randomUUID();
  const acked = new Set<string>();
  let wake = () => {};
  acks.awaiting.set(nonce, (processId) => {
    acked.add(processId);
    wake();
  });
  try {
    const lockMs = Math.max(1, Math.floor(deadline - performance.now()));
    const told = c.query(
      `SET LOCAL lock_timeout = ${lockMs};
       LOCK TABLE key_cache_processes IN SHARE MODE;
       SELECT id FROM key_cache_processes
         WHERE seen_at > now() - make_interval(secs => ${(KEY_LEASE_MS + 1_000) / 1000})
           AND id <> ${c.escapeLiteral(acks.processId)};
       SELECT pg_notify(${c.escapeLiteral(KEY_EVICT_CHANNEL)}, ${c.escapeLiteral(`${nonce} ${keyId}`)})`,
    ) as unknown as Promise<pg.QueryResult<{ id: string }>[]>;
    told.catch(() => {});
    // the session may be stuck behind a renewal that waits on Postgres: the deadline holds anyway
    const results = await Promise.race([told, sleep(deadline - performance.now()).then(() => null)]);
    if (!results) return false;
    const live = results[2]?.rows.map((row) => row.id) ?? [];
    while (!live.every((id) => acked.has(id))) {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return true;
  } catch {
    return false;
  } finally {
    acks.awaiting.delete(nonce);
  }
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
