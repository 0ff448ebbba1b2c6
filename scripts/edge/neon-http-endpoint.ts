/**
 * An endpoint speaking Neon's SQL-over-HTTP protocol (what `neon()` of @neondatabase/serverless
 * sends) in front of this machine's Postgres, written from the protocol as Neon's proxy implements
 * it (proxy/src/serverless/sql_over_http.rs): the Workers' HTTP path (shared/db/adapters/neon-http.ts)
 * runs against it in the e2e tier and the edge bench, with a network distance you can set.
 *
 * - `POST /sql`, the target database in `Neon-Connection-String`; a session pool per connection
 *   string (the proxy's pool: a request pays no connection set-up).
 * - body `{ query, params, arrayMode? }`: one statement, extended protocol (so one statement only);
 *   `{ queries: [...] }`: a batch run as one transaction, `Neon-Batch-Isolation-Level`
 *   (Serializable | ReadUncommitted | ReadCommitted | RepeatableRead), `Neon-Batch-Read-Only`,
 *   `Neon-Batch-Deferrable` applied and echoed as response headers, answered `{ results: [...] }`.
 * - a result is `{ fields, rows, command, rowCount, rowAsArray }`; rows are arrays under
 *   `Neon-Array-Mode: true` (or a query's own `arrayMode`), else objects; values are Postgres text
 *   under `Neon-Raw-Text-Output: true` (what the driver sends), else JSON for booleans, numbers and json.
 * - an error is HTTP 400 with the proxy's body: `message`, `code`, `detail`, `hint`, `position`,
 *   `internalPosition`, `internalQuery`, `severity`, `where`, `table`, `column`, `schema`,
 *   `dataType`, `constraint`, `file`, `line`, `routine`.
 *
 * `delayMs` is the round-trip time: half before the statement runs, half before the answer leaves.
 * What it does not model is listed in docs/deploy.md ("Edge data path").
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

/** Every value as Postgres sent it (text): the driver parses them itself, as the proxy's raw mode expects. */
const RAW_TYPES = { getTypeParser: () => (value: string) => value };

const ISOLATION: Record<string, string> = {
  Serializable: 'SERIALIZABLE',
  ReadUncommitted: 'READ UNCOMMITTED',
  ReadCommitted: 'READ COMMITTED',
  RepeatableRead: 'REPEATABLE READ',
};

/** Non-raw output: the types the proxy turns into JSON values rather than strings. */
const JSON_VALUE: Record<number, (text: string) => unknown> = {
  16: (t) => t === 't',
  20: Number,
  21: Number,
  23: Number,
  26: Number,
  700: Number,
  701: Number,
  114: (t) => JSON.parse(t),
  3802: (t) => JSON.parse(t),
};

interface QueryData {
  query: string;
  params?: unknown[];
  arrayMode?: boolean;
}

const ERROR_FIELDS = [
  ['detail', 'detail'],
  ['hint', 'hint'],
  ['position', 'position'],
  ['internalPosition', 'internalPosition'],
  ['internalQuery', 'internalQuery'],
  ['where', 'where'],
  ['table', 'table'],
  ['column', 'column'],
  ['schema', 'schema'],
  ['dataType', 'dataType'],
  ['constraint', 'constraint'],
  ['file', 'file'],
  ['line', 'line'],
  ['routine', 'routine'],
] as const;

class ProtocolError extends Error {}

/** The proxy's error body: Postgres's fields when Postgres refused, else empty code and severity. */
function errorBody(err: unknown): Record<string, unknown> {
  const e = err as Partial<pg.DatabaseError> & { message?: string };
  const isDb = err instanceof pg.DatabaseError;
  const body: Record<string, unknown> = {
    message: e.message ?? String(err),
    code: isDb ? (e.code ?? '') : '',
    severity: isDb ? (e.severity ?? '') : '',
  };
  for (const [field, key] of ERROR_FIELDS)
    body[field] = isDb ? ((e as Record<string, unknown>)[key] ?? null) : null;
  return body;
}

/** A JSON parameter as the proxy passes it: text, or NULL; arrays as Postgres array literals. */
function paramText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (Array.isArray(value))
    return `{${value
      .map((v) => {
        const t = paramText(v);
        return t === null ? 'NULL' : `"${t.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
      })
      .join(',')}}`;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ProtocolError('request body is not valid JSON');
  }
}

const isQuery = (q: unknown): q is QueryData =>
  typeof q === 'object' && q !== null && typeof (q as QueryData).query === 'string';

async function run(
  client: pg.PoolClient,
  data: QueryData,
  headers: { arrayMode: boolean; raw: boolean },
): Promise<Record<string, unknown>> {
  const arrayMode = data.arrayMode ?? headers.arrayMode;
  const result = await client.query({
    text: data.query,
    values: (data.params ?? []).map(paramText),
    rowMode: 'array',
    queryMode: 'extended',
  } as pg.QueryArrayConfig);
  const fields = result.fields.map((f) => ({
    name: f.name,
    dataTypeID: f.dataTypeID,
    tableID: f.tableID,
    columnID: f.columnID,
    dataTypeSize: f.dataTypeSize,
    dataTypeModifier: f.dataTypeModifier,
    format: 'text',
  }));
  const convert = headers.raw
    ? null
    : result.fields.map((f) => JSON_VALUE[f.dataTypeID] ?? ((t: string) => t));
  const rows = (result.rows as (string | null)[][]).map((row) => {
    const values = convert ? row.map((v, i) => (v === null ? null : convert[i]!(v))) : row;
    if (arrayMode) return values;
    const obj: Record<string, unknown> = {};
    fields.forEach((f, i) => {
      obj[f.name] = values[i];
    });
    return obj;
  });
  return {
    fields,
    rows,
    command: result.command ?? '',
    rowCount: result.rowCount ?? null,
    rowAsArray: arrayMode,
  };
}

/** One round trip as the endpoint saw it (performance.now() of this process): for a bench's trace. */
export interface Trip {
  start: number;
  end: number;
  /** the statement's first words, or `batch of n` */
  what: string;
}

/**
 * A failure the endpoint plays until it is set back to null (test:faults):
 * - `refuse`: the port stops listening (connections refused), and opens again when cleared;
 * - `5xx`: every request answered 503 with a plain-text body, as a failing gateway does, nothing run;
 * - `stall`: every request held unanswered (its socket closed when the fault is cleared);
 * - `drop`: the request's statements run inside a transaction that is rolled back, then the
 *   connection is cut before any answer: the client cannot tell whether anything committed;
 * - `stall-selects`: a request whose statement begins with SELECT is held as under `stall`, others
 *   run (a creation commits; the delivery cycle after it, which begins by reading, never ends).
 */
export type NeonFault = 'refuse' | '5xx' | 'stall' | 'drop' | 'stall-selects' | null;

export interface NeonHttpEndpoint {
  /** what to set as NEON_HTTP_ENDPOINT */
  url: string;
  port: number;
  /** the round-trip time each request pays (settable while running) */
  delayMs: number;
  /** requests answered so far (each one a round trip) */
  requests: number;
  /** when set, every answered request is appended here */
  trace: Trip[] | null;
  /** the failure being played (see NeonFault); null = healthy */
  fault: NeonFault;
  close(): Promise<void>;
}

/** The request's Neon headers: result shape, and how a batch's transaction begins. */
function requestOptions(req: IncomingMessage) {
  const flags = {
    arrayMode: req.headers['neon-array-mode'] === 'true',
    raw: req.headers['neon-raw-text-output'] === 'true',
  };
  const isolationHeader = req.headers['neon-batch-isolation-level'];
  const isolation = typeof isolationHeader === 'string' ? ISOLATION[isolationHeader] : undefined;
  if (isolationHeader !== undefined && !isolation) throw new ProtocolError('invalid isolation level');
  const readOnly = req.headers['neon-batch-read-only'] === 'true';
  const deferrable = req.headers['neon-batch-deferrable'] === 'true';
  // the batch headers the answer echoes, as Neon's endpoint does
  const echo: Record<string, string> = {};
  if (readOnly) echo['neon-batch-read-only'] = 'true';
  if (deferrable) echo['neon-batch-deferrable'] = 'true';
  if (isolation) echo['neon-batch-isolation-level'] = isolationHeader as string;
  let begin = 'BEGIN';
  if (isolation) begin += ` ISOLATION LEVEL ${isolation}`;
  if (readOnly) begin += ' READ ONLY';
  if (deferrable) begin += ' DEFERRABLE';
  return { flags, begin, echo };
}

type RequestOptions = ReturnType<typeof requestOptions>;

const isBatch = (payload: unknown): payload is { queries: QueryData[] } =>
  typeof payload === 'object' &&
  payload !== null &&
  Array.isArray((payload as { queries?: unknown }).queries) &&
  (payload as { queries: unknown[] }).queries.every(isQuery);

/**
 * A batch in one transaction. `connection.broken` is set when even the ROLLBACK failed, so the
 * connection is discarded rather than returned to the pool.
 */
async function runBatch(
  client: pg.PoolClient,
  queries: QueryData[],
  options: RequestOptions,
  connection: { broken: boolean },
) {
  await client.query(options.begin);
  try {
    const results = [];
    for (const q of queries) results.push(await run(client, q, options.flags));
    await client.query('COMMIT');
    return { results };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      connection.broken = true;
    });
    throw err;
  }
}

/** One POST /sql answered: a single query, or a batch with the batch headers echoed. */
async function answerSql(
  req: IncomingMessage,
  poolFor: (connectionString: string) => pg.Pool,
  rollBack = false,
  read: Promise<unknown> = readJson(req),
): Promise<{ body: unknown; echo: Record<string, string> }> {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/sql') throw Object.assign(new ProtocolError('not found'), { status: 404 });
  if (req.method !== 'POST') throw Object.assign(new ProtocolError('method not allowed'), { status: 405 });
  const connectionString = req.headers['neon-connection-string'];
  if (typeof connectionString !== 'string' || !connectionString)
    throw new ProtocolError('missing connection string');
  const options = requestOptions(req);
  const payload = await read;
  const client = await poolFor(connectionString).connect();
  const connection = { broken: false };
  try {
    if (rollBack) {
      // the statements run, then the transaction is rolled back: what a connection cut mid-transaction leaves
      await client.query('BEGIN');
      try {
        for (const q of isBatch(payload) ? payload.queries : isQuery(payload) ? [payload] : [])
          await run(client, q, options.flags);
      } finally {
        await client.query('ROLLBACK').catch(() => {
          connection.broken = true;
        });
      }
      return { body: null, echo: {} };
    }
    if (isQuery(payload)) return { body: await run(client, payload, options.flags), echo: {} };
    if (isBatch(payload)) {
      return { body: await runBatch(client, payload.queries, options, connection), echo: options.echo };
    }
    throw new ProtocolError('request body must be {query, params} or {queries: [...]}');
  } finally {
    client.release(connection.broken);
  }
}

/** A pool per connection string, opened on first use, only to the allowed hosts. */
function poolCache(allowHosts: Set<string>) {
  const pools = new Map<string, pg.Pool>();
  const poolFor = (connectionString: string) => {
    let pool = pools.get(connectionString);
    if (!pool) {
      let host: string;
      try {
        host = new URL(connectionString).hostname;
      } catch {
        throw new ProtocolError('invalid connection string');
      }
      if (!allowHosts.has(host)) throw new ProtocolError(`host not allowed: ${host}`);
      pool = new pg.Pool({ connectionString, max: 8, types: RAW_TYPES });
      pool.on('error', () => {});
      pools.set(connectionString, pool);
    }
    return pool;
  };
  const end = () => Promise.all([...pools.values()].map((p) => p.end().catch(() => {})));
  return { poolFor, end };
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the stand-in's handlers close over its one state (delay, trace, fault); split, it would be passed around
export async function startNeonHttpEndpoint(
  options: { port?: number; delayMs?: number; allowHosts?: string[] } = {},
): Promise<NeonHttpEndpoint> {
  const pools = poolCache(new Set(options.allowHosts ?? ['127.0.0.1', 'localhost']));
  const state = {
    delayMs: options.delayMs ?? 0,
    requests: 0,
    trace: null as Trip[] | null,
    fault: null as NeonFault,
  };
  const wait = (ms: number) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : undefined);
  const stalled = new Set<ServerResponse>();

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const start = performance.now();
    const half = state.delayMs / 2;
    await wait(half);
    if (state.fault === 'stall') {
      stalled.add(res);
      return;
    }
    if (state.fault === '5xx') {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('upstream connect error or disconnect/reset before headers');
      return;
    }
    let read: Promise<unknown> | undefined;
    if (state.fault === 'stall-selects') {
      read = readJson(req);
      const payload = await read.catch(() => null);
      // a statement sent alone, or inside the batch that sets its time limit first
      const statements = isQuery(payload)
        ? [payload]
        : ((payload as { queries?: unknown[] } | null)?.queries ?? []).filter(isQuery);
      if (statements.some((q) => /^\s*select\b/i.test(q.query))) {
        stalled.add(res);
        return;
      }
    }
    let status = 200;
    let answer: { body: unknown; echo: Record<string, string> };
    if (state.fault === 'drop') {
      await answerSql(req, pools.poolFor, true).catch(() => {});
      req.socket.destroy();
      return;
    }
    try {
      answer = await answerSql(req, pools.poolFor, false, read);
    } catch (err) {
      status =
        (err as { status?: number }).status ??
        (err instanceof pg.DatabaseError || err instanceof ProtocolError ? 400 : 500);
      answer = { body: errorBody(err), echo: {} };
    }
    await wait(half);
    state.requests++; // counted when answered: a request still in flight is not yet a round trip made
    state.trace?.push({ start, end: performance.now(), what: whatOf(answer.body) });
    res.writeHead(status, {
      'content-type': 'application/json',
      'access-control-allow-origin': '*',
      ...answer.echo,
    });
    res.end(JSON.stringify(answer.body));
  }

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const setFault = (fault: NeonFault) => {
    const was = state.fault;
    state.fault = fault;
    if ((was === 'stall' || was === 'stall-selects') && fault !== was) {
      for (const res of stalled) res.socket?.destroy();
      stalled.clear();
    }
    if (fault === 'refuse' && was !== 'refuse') {
      server.close();
      server.closeAllConnections();
    }
    if (was === 'refuse' && fault !== 'refuse') server.listen(port, '127.0.0.1');
  };
  return {
    url: `http://127.0.0.1:${port}/sql`,
    port,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
    },
    get requests() {
      return state.requests;
    },
    set requests(v: number) {
      state.requests = v;
    },
    get trace() {
      return state.trace;
    },
    set trace(v: Trip[] | null) {
      state.trace = v;
    },
    get fault() {
      return state.fault;
    },
    set fault(v: NeonFault) {
      setFault(v);
    },
    async close() {
      setFault(null);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await pools.end();
    },
  };
}

/** A trace entry's name: the statement's first words (or the batch's size), no parameters. */
function whatOf(body: unknown): string {
  return typeof body === 'object' && body !== null && 'results' in body
    ? `batch of ${(body as { results: unknown[] }).results.length}`
    : String((body as { command?: string } | null)?.command ?? '?');
}

// `tsx scripts/edge/neon-http-endpoint.ts [port] [delayMs]`: run it by hand next to `wrangler dev`.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/.*\//, '/'))) {
  const endpoint = await startNeonHttpEndpoint({
    port: Number(process.argv[2] ?? 8891),
    delayMs: Number(process.argv[3] ?? 0),
  });
  console.log(`Neon SQL-over-HTTP endpoint (NEON_HTTP_ENDPOINT=${endpoint.url}), ${endpoint.delayMs} ms RTT`);
}
