import type { MiddlewareHandler } from 'hono';
import { type Insertable, sql } from 'kysely';
import type { AppEnv } from '../context/app-env';
import { isDerivedDb, rootDbOf } from '../db/derived';
import type { Db } from '../db/schema';
import type { UsageRecordsTable } from '../db/tables/platform';
import { routePatternOf } from '../http/route-pattern';
import { newId } from '../ids';

/** One metered request (or, folded, `quantity` identical ones) as it waits in memory. */
export interface MeteredRequest {
  tenant_id: string;
  method: string;
  endpoint: string;
  status: number;
  api_key_id: string | null;
  actor: string;
  quantity: number;
  /** epoch ms of the (last) request */
  at: number;
}

const MAX_ROWS_PER_INSERT = 1_000;
export const FOLD_ABOVE = 100;

/** Identical requests as one entry (quantity = their number; the time of the last one). */
export function foldRows(rows: readonly MeteredRequest[]): MeteredRequest[] {
  const folded = new Map<string, MeteredRequest>();
  for (const r of rows) {
    const key = `${r.tenant_id}\u0000${r.method}\u0000${r.endpoint}\u0000${r.status}\u0000${r.actor}`;
    const seen = folded.get(key);
    if (seen) folded.set(key, { ...r, quantity: seen.quantity + r.quantity });
    else folded.set(key, r);
  }
  return [...folded.values()];
}

/**
 * Buffers usage rows per database and writes them in one INSERT per flush (ten array parameters
 * and `unnest`, so the statement costs the same to build for 1 row or 1,000). A flush is scheduled
 * through `services.defer` (after the response: waitUntil on Workers, a tracked promise in Node),
 * `windowMs` after the first row it carries (a Worker isolate's batch inside that row's waitUntil,
 * EDGE_USAGE_FLUSH_WINDOW_MS; a short window in a long-lived Node process), so that a busy second
 * costs a few statements, not one per request. Readers of usage in the same process call
 * `settle()` first, so a request is counted as soon as anyone there asks.
 *
 * Under load (more than FOLD_ABOVE rows in one flush) identical requests of the batch (same
 * tenant, method, endpoint, status and credential) are folded into one row whose quantity is their
 * number: every sum stays exact, and a busy second costs the database a few rows instead of
 * thousands. Below that, each request keeps its own row.
 */
class UsageRecorder {
  private buffer: MeteredRequest[] = [];
  private scheduled = false;
  private writing: Promise<void> = Promise.resolve();
  constructor(private readonly db: Db) {}

  record(row: MeteredRequest, defer: (task: () => Promise<unknown>) => void, windowMs: number) {
    this.buffer.push(row);
    if (this.scheduled) return;
    this.scheduled = true;
    defer(async () => {
      await new Promise((r) => setTimeout(r, windowMs)); // let the rows of this window join the batch
      this.scheduled = false;
      await this.flush();
    });
  }

  /** Writes what is buffered; flushes run one after another, so `settle()` can wait for all. */
  flush(): Promise<void> {
    const run = async () => {
      if (this.buffer.length === 0) return;
      const rows = this.buffer.length > FOLD_ABOVE ? foldRows(this.buffer) : this.buffer;
      this.buffer = [];
      for (let i = 0; i < rows.length; i += MAX_ROWS_PER_INSERT)
        await this.insert(rows.slice(i, i + MAX_ROWS_PER_INSERT));
    };
    this.writing = this.writing.then(run, run);
    return this.writing;
  }

  /** Every row recorded so far is in the table (or was refused by it) once this resolves. */
  settle(): Promise<void> {
    return this.flush();
  }

  /** Ids and timestamps are made here, for the rows that are written (not per request). */
  private async insert(batch: MeteredRequest[]) {
    const rows: Insertable<UsageRecordsTable>[] = batch.map((r) => ({
      id: newId('usageEvent'),
      tenant_id: r.tenant_id,
      kind: 'api_requests',
      quantity: r.quantity,
      method: r.method,
      endpoint: r.endpoint,
      status: r.status,
      api_key_id: r.api_key_id,
      actor: r.actor,
      created_at: new Date(r.at),
    }));
    const column = <K extends keyof Insertable<UsageRecordsTable>>(k: K) => rows.map((r) => r[k] ?? null);
    try {
      await sql`INSERT INTO usage_records (id, tenant_id, kind, quantity, method, endpoint, status, api_key_id, actor, created_at)
        SELECT * FROM unnest(${column('id')}::text[], ${column('tenant_id')}::text[], ${column('kind')}::text[],
          ${column('quantity')}::int[], ${column('method')}::text[], ${column('endpoint')}::text[],
          ${column('status')}::int[], ${column('api_key_id')}::text[], ${column('actor')}::text[],
          ${batch.map((r) => new Date(r.at).toISOString())}::timestamptz[])`.execute(this.db);
    } catch {
      // one bad row (a tenant deleted meanwhile) must not lose the others
      for (const row of rows)
        await this.db
          .insertInto('usage_records')
          .values(row)
          .execute()
          .catch(() => {});
    }
  }
}

const recorders = new WeakMap<Db, UsageRecorder>();
export function recorderFor(db: Db): UsageRecorder {
  let r = recorders.get(db);
  if (!r) {
    r = new UsageRecorder(db);
    recorders.set(db, r);
  }
  return r;
}

/**
 * afterGate middleware: one `api_requests` usage row per request made with a tenant's credential
 * (API key, dashboard session, end-user token), whatever its status; rate-limited requests (429)
 * are refused before this and are not metered. Internal and anonymous calls are not metered.
 */
export function meterUsage(options: { flushWindowMs?: number } = {}): MiddlewareHandler<AppEnv> {
  const windowMs = options.flushWindowMs ?? 0;
  return async function meterUsage(c, next) {
    await next();
    const auth = c.get('auth');
    if (auth.kind !== 'api_key' && auth.kind !== 'dashboard' && auth.kind !== 'end_user') return;
    if (auth.kind === 'dashboard' && auth.role === 'super_admin') return;
    const services = c.get('services');
    const row: MeteredRequest = {
      tenant_id: auth.tenantId,
      method: c.req.method.toUpperCase(),
      endpoint: routePatternOf(c) ?? 'unmatched',
      status: c.res.status,
      api_key_id: auth.kind === 'api_key' ? auth.keyId : null,
      actor:
        auth.kind === 'api_key'
          ? `api_key:${auth.keyId}`
          : auth.kind === 'dashboard'
            ? `user:${auth.userId}`
            : `end_user:${auth.endUserId}`,
      quantity: 1,
      at: Date.now(),
    };
    const { db, defer } = services;
    if (!isDerivedDb(db)) {
      recorderFor(db).record(row, defer, windowMs);
      return;
    }
    // a builder made for this request alone (a speculative run's): the row joins the batch of the
    // database it was made from only through its defer, which runs nothing for a run that is
    // dropped, so a request answered by its rerun is counted once
    defer(async () => recorderFor(rootDbOf(db)).record(row, defer, windowMs));
  };
}
