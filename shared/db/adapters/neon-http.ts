// Edge adapter: Postgres over Neon's SQL-over-HTTP path (`neon()` over fetch), one request per
// statement, with a WebSocket client only for the span of an interactive transaction.
//
// Why our own Kysely driver rather than kysely-neon's HTTP dialect: that dialect throws on every
// `db.transaction()`, and one Kysely instance has one dialect, so the route handlers that read and
// then decide a write inside one transaction (listed in docs/deploy.md, "Edge data path") would each
// need a second query builder threaded through them. Here a statement outside a transaction is one
// HTTP request (no connection set-up: Neon's proxy keeps the Postgres sessions), and a transaction
// opens a WebSocket client at BEGIN and closes it after COMMIT/ROLLBACK, for exactly that operation.
import {
  Client,
  type FullQueryResults,
  type NeonQueryFunction,
  neon,
  neonConfig,
} from '@neondatabase/serverless';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { DatabaseHandle } from '../handle';
import type { Database } from '../schema';
import { createNeonHandle, useLocalWsProxy } from './neon';

export interface NeonHttpOptions {
  /** Local development/tests: the SQL-over-HTTP endpoint, e.g. `http://127.0.0.1:8891/sql` (scripts/edge/neon-http-endpoint.ts) */
  httpEndpoint?: string;
  /** Local development/tests: the WebSocket proxy the transaction client goes through (see neon.ts) */
  wsProxy?: string;
  /** a statement over HTTP unanswered after this is given up (503); default DEFAULT_FETCH_TIMEOUT_MS */
  timeoutMs?: number;
  /** STATEMENT_TIMEOUT_MS: Postgres' own limit on each statement (57014, answered 503); 0 = none */
  statementTimeoutMs?: number;
}

type Http = NeonQueryFunction<false, true>;

/** What both transports answer: pg's result shape (rows already parsed by the driver's pg types). */
interface PgResult {
  command: string;
  rowCount: number | null;
  rows: unknown[];
}

const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);
const toKysely = <R>(r: PgResult): QueryResult<R> => ({
  rows: (r.rows ?? []) as R[],
  numAffectedRows: WRITES.has(r.command) ? BigInt(r.rowCount ?? 0) : undefined,
});

function beginStatement(settings: TransactionSettings): string {
  if (!settings.isolationLevel && !settings.accessMode) return 'begin';
  let sql = 'start transaction';
  if (settings.isolationLevel) sql += ` isolation level ${settings.isolationLevel}`;
  if (settings.accessMode) sql += ` ${settings.accessMode}`;
  return sql;
}

/** STATEMENT_TIMEOUT_MS's default (shared/env.ts): the handle is built from the raw bindings. */
const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;

/** How long a statement over HTTP may take before the request gives up on the endpoint (NEON_FETCH_TIMEOUT_MS). */
export const DEFAULT_FETCH_TIMEOUT_MS = 5_000;

/**
 * The endpoint could not be reached or did not answer as Postgres (refused, reset, timed out, a
 * gateway's 5xx): SQLSTATE 08006 (connection failure), which the one error mapping answers 503 with
 * Retry-After (shared/http/errors.ts). A Postgres error (it has its SQLSTATE) passes unchanged.
 */
function unavailable(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return err;
  return Object.assign(
    new Error(`database endpoint unavailable: ${String((err as Error)?.message ?? err)}`),
    {
      code: '08006',
      cause: err,
    },
  );
}

/** The limits of one handle's statements. */
interface Limits {
  /** the HTTP request's own time limit (client side) */
  timeoutMs: number;
  /** Postgres' statement_timeout in ms, set in each transaction; 0 = none */
  statementTimeoutMs: number;
}

/**
 * With a statement limit, a statement over HTTP goes as a batch of two in one request (still one
 * round trip): `set_config('statement_timeout', …, true)` then the statement, in the one
 * transaction Neon runs a batch in. The limit is then Postgres' own, so a statement past it is
 * cancelled and rolled back on the server (nothing written), where the request's client-side
 * timeout alone would leave it running, and perhaps committing, after the answer said 503.
 */
async function overHttp(http: Http, query: CompiledQuery, limits: Limits): Promise<PgResult> {
  const params = [...query.parameters];
  const fetchOptions = { signal: AbortSignal.timeout(limits.timeoutMs) };
  if (!limits.statementTimeoutMs)
    return (await http.query(query.sql, params, { fetchOptions })) as FullQueryResults<false>;
  const results = await http.transaction(
    [
      http.query("select set_config('statement_timeout', $1, true)", [String(limits.statementTimeoutMs)]),
      http.query(query.sql, params),
    ],
    { fetchOptions },
  );
  return results[1] as FullQueryResults<false>;
}

class EdgeConnection implements DatabaseConnection {
  /** the WebSocket client of the open transaction; null outside one */
  #client: Client | null = null;
  constructor(
    private readonly http: Http,
    private readonly connectionString: string,
    private readonly limits: Limits,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#client) return toKysely(await this.#client.query(query.sql, [...query.parameters]));
    try {
      return toKysely(await overHttp(this.http, query, this.limits));
    } catch (err) {
      throw unavailable(err);
    }
  }

  async begin(settings: TransactionSettings): Promise<void> {
    const client = new Client(this.connectionString);
    try {
      await client.connect();
    } catch (err) {
      // the WebSocket proxy refused or dropped: an unreachable database, not a bug
      await client.end().catch(() => {});
      throw unavailable(err);
    }
    this.#client = client;
    try {
      await client.query(beginStatement(settings));
      const { statementTimeoutMs } = this.limits;
      // for this transaction only (SET LOCAL): a statement past it aborts it, and nothing commits
      if (statementTimeoutMs)
        await client.query(`set local statement_timeout = ${Math.floor(statementTimeoutMs)}`);
    } catch (err) {
      await this.#close();
      throw err;
    }
  }

  async end(statement: 'commit' | 'rollback'): Promise<void> {
    try {
      const result = await this.#client?.query(statement);
      // Postgres answers COMMIT with ROLLBACK when an earlier statement aborted the transaction
      if (statement === 'commit' && result?.command === 'ROLLBACK')
        throw new Error('The transaction was aborted and rolled back');
    } finally {
      await this.#close();
    }
  }

  async #close(): Promise<void> {
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => {});
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered over HTTP
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported on the edge');
  }
}

class NeonHttpDriver implements Driver {
  constructor(
    private readonly http: Http,
    private readonly connectionString: string,
    private readonly limits: Limits,
  ) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new EdgeConnection(this.http, this.connectionString, this.limits);
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await (connection as EdgeConnection).begin(settings);
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as EdgeConnection).end('commit');
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as EdgeConnection).end('rollback');
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

// one query function per connection string for the isolate's lifetime: it holds no socket
const https = new Map<string, Http>();
function httpQuery(connectionString: string): Http {
  let http = https.get(connectionString);
  if (!http) {
    http = neon(connectionString, { fullResults: true });
    https.set(connectionString, http);
  }
  return http;
}

/** A handle whose statements go over HTTP; nothing to close (a transaction closes its own socket). */
export function createNeonHttpHandle(
  connectionString: string,
  options: NeonHttpOptions = {},
): DatabaseHandle {
  if (options.httpEndpoint) {
    const endpoint = options.httpEndpoint;
    neonConfig.fetchEndpoint = () => endpoint;
  }
  if (options.wsProxy) useLocalWsProxy(options.wsProxy);
  const http = httpQuery(connectionString);
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () =>
        new NeonHttpDriver(http, connectionString, {
          timeoutMs: options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
          statementTimeoutMs: options.statementTimeoutMs ?? 0,
        }),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return {
    kind: 'neon',
    db,
    async exec(script) {
      // a multi-statement script needs the simple query protocol, which only a session speaks
      const client = new Client(connectionString);
      await client.connect();
      try {
        await client.query(script);
      } finally {
        await client.end().catch(() => {});
      }
    },
    async close() {},
  };
}

const text = (env: Record<string, unknown>, name: string) =>
  typeof env[name] === 'string' && env[name] ? (env[name] as string) : undefined;

/**
 * The HTTP path's handles, one per connection string and settings for the isolate's lifetime: a
 * statement holds no connection between requests (each is its own fetch, a transaction its own
 * WebSocket client, opened and closed inside the request that runs it), so one Kysely instance
 * serves every request. Built per request it cost each request the instance and its driver, and it
 * gave every request a database identity of its own, so the isolate's per-database state (the
 * usage batch, the edge cycle's once-a-second probe look-up and hourly sweep) was redone on each.
 */
const edgeHandles = new Map<string, DatabaseHandle>();

/**
 * A request's handle on the edge, from the Worker's bindings: the HTTP path, or with
 * NEON_TRANSPORT=websocket the WebSocket Pool (kept so the bench can set both side by side).
 * NEON_HTTP_ENDPOINT and NEON_WS_PROXY point the driver at local stand-ins (tests, `wrangler dev`).
 */
export function createEdgeHandle(connectionString: string, env: Record<string, unknown>): DatabaseHandle {
  const wsProxy = text(env, 'NEON_WS_PROXY');
  if (text(env, 'NEON_TRANSPORT') === 'websocket') return createNeonHandle(connectionString, { wsProxy });
  const timeout = Number(text(env, 'NEON_FETCH_TIMEOUT_MS'));
  // STATEMENT_TIMEOUT_MS as shared/env.ts reads it: unset = its default, 0 = no limit
  const limit = Number(text(env, 'STATEMENT_TIMEOUT_MS') ?? DEFAULT_STATEMENT_TIMEOUT_MS);
  const options: NeonHttpOptions = {
    httpEndpoint: text(env, 'NEON_HTTP_ENDPOINT'),
    wsProxy,
    timeoutMs: Number.isInteger(timeout) && timeout > 0 ? timeout : undefined,
    statementTimeoutMs: Number.isInteger(limit) && limit > 0 ? limit : 0,
  };
  const id = `${connectionString}|${options.httpEndpoint}|${wsProxy}|${options.timeoutMs}|${options.statementTimeoutMs}`;
  let handle = edgeHandles.get(id);
  if (!handle) {
    handle = createNeonHttpHandle(connectionString, options);
    edgeHandles.set(id, handle);
  }
  return handle;
}
