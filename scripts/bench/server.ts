// The benchmark's server: the embedded runtime exactly as `npm start` serves it, plus bench-only
// routes under /__bench (never mounted by `npm start`):
//   GET  /__bench/bare            a bare Hono route in the same process: the ceiling of reads
//   POST /__bench/write?tenant=   the ceiling of ticket creation: a bare route making the same write
//                                 (a ticket and its outbox row, in one statement), no framework
//   GET  /__bench/list?tenant=&offset=  the ceiling of the ticket list: a bare route running the
//                                 list's own SQL (page + count, in parallel) and returning the rows
//   GET  /__bench/refusal-floor   the refusal's own work (f0) as one Hono route: what (f) would cost
//                                 had it stayed behind the router (it is answered before it)
//   POST /__bench/seed-tickets    bulk-inserts tickets with SQL (100,000 in seconds)
// and on PORT + 1, the same app with the auth gate replaced by a fixed credential (the tenant named by
// an X-Bench-NoAuth header): what auth costs, by difference. A port of its own rather than a header
// the main port looks for, so the measured requests pay for no such check.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { type CompiledQuery, sql } from 'kysely';
import { ACCESS_RULES } from '../../functions/manifest';
import { ticketListQueries } from '../../functions/tickets/data';
import { compileAccess } from '../../shared/auth/access';
import {
  type Admission,
  authenticateKey,
  type GateRequest,
  readPresentedCredential,
} from '../../shared/auth/gate';
import type { AppEnv } from '../../shared/context/app-env';
import { SCOPE_CATALOG } from '../../shared/context/scopes';
import { loadConfig } from '../../shared/env';
import { jsonAnswer } from '../../shared/http/response-headers';
import { newId, requestIdFrom } from '../../shared/ids';
import { logAccess, requestClock } from '../../shared/runtime/access-log';
import { buildChain } from '../../shared/runtime/chain';
import { andThen } from '../../shared/sync-first';
import { outstandingWork } from '../../shared/webhooks/delivery';
import { createEmbeddedRuntime, loadFunctionApps, standardAfterGate } from '../embedded';
import { seedTickets } from './seed-tickets';

const config = loadConfig(process.env);
const runtime = await createEmbeddedRuntime({ config });

const ALL_SCOPES: ReadonlySet<string> = new Set(SCOPE_CATALOG);
// in place of the gate: every request is the tenant named by X-Bench-NoAuth, with every scope
const fixedCredential = (req: GateRequest): Admission => ({
  auth: {
    kind: 'api_key',
    tenantId: req.headers.get('x-bench-noauth') ?? '',
    keyId: 'key_bench',
    scopes: ALL_SCOPES,
  },
});
const bypass = buildChain(await loadFunctionApps(), {
  provideServices: runtime.services,
  access: ACCESS_RULES,
  logger: runtime.services.logger,
  maxBodyBytes: config.MAX_BODY_BYTES,
  corsOrigins: config.CORS_ALLOWED_ORIGINS,
  admit: fixedCredential,
  afterGate: standardAfterGate(),
});

const top = new Hono<AppEnv>();
top.get('/__bench/bare', (c) => c.json({ ok: true }));

// (f0) What a refusal must do, with the project's own functions, as one synchronous Hono route:
// take or make the request id and echo it, read the key, find it in the key cache, look the scope
// table up (for the path (f) calls), answer 403, write the access line. (f) does the same in the
// chain's early refusal, right after the gate; (f)/(f0) is what that saves.
const { services } = runtime;
const REFUSED_PATH = '/api/v1/tickets';
const { scopeRefusal } = compileAccess(ACCESS_RULES);
top.get('/__bench/refusal-floor', (c) => {
  const started = requestClock();
  c.set('services', services);
  const requestId = requestIdFrom(c.req.header('x-request-id'));
  c.set('requestId', requestId);
  const presented = readPresentedCredential(c.req.raw.headers);
  return andThen(authenticateKey(services, presented?.token ?? ''), (key) => {
    c.set('auth', { kind: 'api_key', tenantId: key.tenantId, keyId: key.id, scopes: key.scopes });
    // the answer carries the request id in its own headers, as the gate's refusal does
    const res = jsonAnswer(c, { detail: scopeRefusal('GET', REFUSED_PATH, key.scopes) }, 403);
    logAccess(c, services.logger, started, 403);
    return res;
  });
});

// the server's own CPU time (user + system, µs): the runner reads it around each case
top.get('/__bench/cpu', (c) => {
  const { user, system } = process.cpuUsage();
  return c.json({ cpu_us: user + system, user_us: user, system_us: system });
});

// Write ceiling: the rows ticket creation writes, as it writes them (one statement: the ticket and
// its outbox row), from a bare route. The outbox row is born dispatched, so the ceiling pays for the
// write and not for the delivery that the project's case pays for.
const db = runtime.services.db;
top.post('/__bench/write', async (c) => {
  const tenantId = c.req.query('tenant') ?? '';
  const { subject, description, priority } = await c.req.json<Record<string, string>>();
  const id = newId('ticket');
  const now = new Date();
  const payload = JSON.stringify({ ticket: { id, subject, description, priority, created_at: now } });
  await sql`
    WITH event AS (
      INSERT INTO events (id, tenant_id, event_type, payload, dispatched_at)
      VALUES (${newId('event')}, ${tenantId}, 'ticket.created', ${payload}, now())
    )
    INSERT INTO tickets (id, tenant_id, subject, description, priority, created_by, created_at, updated_at)
    VALUES (${id}, ${tenantId}, ${subject}, ${description}, ${priority}, 'bench', ${now}, ${now})
    RETURNING *`.execute(db);
  return c.json({ id }, 201);
});

// List ceiling: the handler's own two queries, compiled once, run in parallel, rows returned as is.
const listQueries = new Map<string, { rows: CompiledQuery; count: CompiledQuery }>();
top.get('/__bench/list', async (c) => {
  const tenantId = c.req.query('tenant') ?? '';
  const offset = Number(c.req.query('offset') ?? 0);
  const key = `${tenantId}:${offset}`;
  let q = listQueries.get(key);
  if (!q) {
    const built = ticketListQueries(db, tenantId, { limit: 20, offset });
    if (!built.count) throw new Error('an offset page has a count');
    q = { rows: built.rows.compile(), count: built.count.compile() };
    listQueries.set(key, q);
  }
  const [rows, count] = await Promise.all([db.executeQuery(q.rows), db.executeQuery(q.count)]);
  return c.json({ tickets: rows.rows, total: Number((count.rows[0] as { n: string }).n) });
});

// webhook work not yet done (the runner waits for it after each run of ticket creation)
top.get('/__bench/outstanding', async (c) => {
  const work = await outstandingWork(db);
  return c.json({ pending: work.events + work.pending });
});

top.post('/__bench/seed-tickets', async (c) => {
  const { tenant_id, count } = await c.req.json<{ tenant_id: string; count: number }>();
  const started = performance.now();
  await seedTickets(runtime.services.db, tenant_id, count);
  return c.json({ inserted: count, ms: Math.round(performance.now() - started) });
});

// Everything but /__bench goes straight to the runtime's app, exactly as `npm start` serves it (a
// Hono app in front would add a second dispatch to every measured request).
const BENCH_PREFIX = '/__bench/';
const fetch = (req: Request, env: Record<string, unknown>) => {
  const path = req.url.slice(req.url.indexOf('/', req.url.indexOf('//') + 2));
  return path.startsWith(BENCH_PREFIX) ? top.fetch(req, env) : runtime.app.fetch(req, env);
};

const port = Number(process.env.PORT ?? 8960);
serve({ fetch, port, hostname: '127.0.0.1' }, () => console.log(`bench server on ${port}`));
serve({ fetch: bypass.fetch, port: port + 1, hostname: '127.0.0.1' });
process.on('SIGTERM', async () => {
  await runtime.close();
  process.exit(0);
});
