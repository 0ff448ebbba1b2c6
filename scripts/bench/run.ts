// `npm run bench`: the embedded server, started as `npm start` would (child process), on this
// machine's Postgres and once on PGlite, driven by autocannon for a fixed time per case.
// Prints req/s, p50/p99 latency and each case's ratio to its own ceiling (a bare route in the same
// server doing the least work the case needs: nothing for reads and refusals, the list's queries for
// the list, the ticket + outbox write for creation), plus the auth cost by difference against the
// same handler with the gate bypassed, and beside the refusal (f) the same refusal written as one
// Hono route from the project's own functions (f0). Figures, not assertions.
//
//   BENCH_DB=postgres|pglite|both (default both)  BENCH_SECONDS per run (default 4)
//   BENCH_ROUNDS (default 3): each case is run that many times, each right after the ceiling
//   BENCH_CONNECTIONS (default 16)  BENCH_TICKETS (default 100000)
//   BENCH_CASES=c,f (default all; `u`, the upload, runs in this process: BENCH_FILES a round,
//   default 40)  BENCH_PROFILE=<dir> (writes the server's --cpu-prof there)
//   BENCH_PORT (default 8961): the server's port (and the next one, for the gate bypassed), when
//   another run holds the default
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { signDashboardToken } from '../../shared/auth/jwt';
import { startHttpsReceiver, TLS_CERT_PATH } from '../lib/https-receiver';
import { benchUploads } from './files';
import { adminQuery, BENCH_SECRETS, benchDatabaseUrl } from './postgres';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = 1;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const TICKETS = Number(process.env.BENCH_TICKETS ?? 100_000);
const PORT = Number(process.env.BENCH_PORT ?? 8961);
const BASE = `http://127.0.0.1:${PORT}`;
/** the same server's app with the auth gate bypassed (scripts/bench/server.ts) */
const BYPASS_BASE = `http://127.0.0.1:${PORT + 1}`;
const SECRETS = BENCH_SECRETS;

const admin = adminQuery;

async function startServer(env: Record<string, string>): Promise<ChildProcess> {
  const profile = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'scripts/bench/server.ts'], {
    env: {
      ...process.env,
      ...SECRETS,
      ...env,
      PORT: String(PORT),
      APP_ENV: 'test',
      NODE_EXTRA_CA_CERTS: TLS_CERT_PATH,
    },
    // stdout is the access log (a line per request, as `npm start` writes it): to /dev/null, so the
    // cost of writing it is measured without flooding this terminal
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // up to 90 s: PGlite migrates at start, slowly when the machine is busy
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${BASE}/api/v2/health`)).ok) return child;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  child.kill('SIGKILL');
  throw new Error('bench server did not start');
}

async function call(
  method: string,
  path: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = (await res.json().catch(() => null)) as any;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

interface Case {
  id: string;
  label: string;
  /** served with the auth gate bypassed (the server's second port) */
  gateBypassed?: true;
  /** the id of the case this one is paired with and divided by (default: the bare route) */
  ceiling?: string;
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

interface Figures {
  /** the server process's CPU time per request (µs), whatever the load generator costs */
  cpuPerRequestUs: number;
  /** the server's CPU time over the run's wall time (1.0 = one core busy) */
  serverCpuShare: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

const serverCpuUs = async () =>
  ((await (await fetch(`${BASE}/__bench/cpu`)).json()) as { cpu_us: number }).cpu_us;

/** The element whose key is the median (the upper one of an even count). */
function medianBy<T>(items: readonly T[], key: (t: T) => number): T {
  const sorted = [...items].sort((x, y) => key(x) - key(y));
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function drive(c: Case, seconds = SECONDS): Promise<Figures> {
  const cpuBefore = await serverCpuUs();
  const result = await autocannon({
    url: `${c.gateBypassed ? BYPASS_BASE : BASE}${c.path}`,
    method: c.method ?? 'GET',
    headers: c.headers,
    body: c.body,
    connections: CONNECTIONS,
    duration: seconds,
  });
  const cpuUs = (await serverCpuUs()) - cpuBefore;
  return {
    cpuPerRequestUs: cpuUs / Math.max(1, result.requests.total),
    serverCpuShare: cpuUs / (result.duration * 1e6),
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** A database of the mode's own for one run, and how to remove it. */
async function benchDatabase(mode: 'postgres' | 'pglite') {
  const env: Record<string, string> = { WEBHOOK_SSRF_ALLOW: 'localhost,127.0.0.1', RATE_LIMIT_SCALE: '1000' };
  if (mode === 'postgres') {
    const dbName = `spa_bench_${Date.now().toString(36)}`;
    await admin(`CREATE DATABASE ${dbName}`);
    env.DATABASE_URL = benchDatabaseUrl(dbName);
    return { env, remove: () => admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`) };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'spa-bench-'));
  env.DATA_DIR = dataDir;
  return { env, remove: async () => rmSync(dataDir, { recursive: true, force: true }) };
}

/** What the cases call with: a tenant of TICKETS tickets, a broad and a narrow key, one webhook. */
async function seed(receiverUrl: string) {
  const sign = (tenantId: string, role: 'super_admin' | 'tenant_admin') =>
    signDashboardToken(SECRETS.DASHBOARD_JWT_SECRET, { sub: 'bench', tenant_id: tenantId, role });
  const tenant = await call('POST', '/api/v1/tenants', {
    headers: { authorization: `Bearer ${await sign('platform', 'super_admin')}` },
    body: { name: 'Bench', plan: 'enterprise', environment: 'production' },
  });
  const adminHeaders = { authorization: `Bearer ${await sign(tenant.id, 'tenant_admin')}` };
  const keyWith = async (name: string, scopes: string[]): Promise<string> =>
    (await call('POST', '/api/v1/api-keys', { headers: adminHeaders, body: { name, scopes } })).api_key;
  const key = await keyWith('bench', ['tickets:read', 'tickets:write', 'webhooks:write']);
  const narrowKey = await keyWith('narrow', ['calls:read']);
  await call('POST', '/api/v1/webhooks', {
    headers: { 'x-api-key': key },
    body: { url: receiverUrl, events: ['ticket.created'] },
  });
  const seeded = await call('POST', '/__bench/seed-tickets', {
    body: { tenant_id: tenant.id, count: TICKETS },
  });
  const ticket = await call('POST', '/api/v1/tickets', {
    headers: { 'x-api-key': key },
    body: { subject: 'Bench ticket' },
  });
  return { tenantId: tenant.id as string, key, narrowKey, ticketId: ticket.id as string, seeded };
}

/** Every case, each beside its ceiling (a bare route doing the least work the case needs). */
function benchCases(s: Awaited<ReturnType<typeof seed>>): Case[] {
  const keyHeader = { 'x-api-key': s.key };
  const json = { 'content-type': 'application/json' };
  const createBody = JSON.stringify({
    subject: 'Load',
    description: 'created by the benchmark',
    priority: 'high',
  });
  const list = (offset: number) => `/__bench/list?tenant=${s.tenantId}&offset=${offset}`;
  return [
    { id: 'a', label: 'bare Hono route (ceiling)', path: '/__bench/bare' },
    { id: 'b', label: 'GET /api/v2/health', path: '/api/v2/health' },
    {
      id: 'c',
      label: 'GET /api/v1/tickets/{id} (API key)',
      path: `/api/v1/tickets/${s.ticketId}`,
      headers: keyHeader,
    },
    {
      id: 'c0',
      label: '  same handler, auth bypassed',
      path: `/api/v1/tickets/${s.ticketId}`,
      gateBypassed: true,
      headers: { 'x-bench-noauth': s.tenantId },
    },
    { id: 'l0', label: '  ceiling: the list queries, offset 0', path: list(0) },
    {
      id: 'd',
      label: `GET /api/v1/tickets?limit=20 (${TICKETS} tickets)`,
      path: '/api/v1/tickets?limit=20',
      headers: keyHeader,
      ceiling: 'l0',
    },
    { id: 'l1', label: '  ceiling: the list queries, offset 10,000', path: list(10_000) },
    {
      id: 'd1',
      label: 'GET /api/v1/tickets?limit=20&offset=10000',
      path: '/api/v1/tickets?limit=20&offset=10000',
      headers: keyHeader,
      ceiling: 'l1',
    },
    {
      id: 'w',
      label: '  ceiling: ticket + outbox row, one statement',
      path: `/__bench/write?tenant=${s.tenantId}`,
      method: 'POST',
      headers: json,
      body: createBody,
    },
    {
      id: 'e',
      label: 'POST /api/v1/tickets (1 webhook subscription)',
      path: '/api/v1/tickets',
      method: 'POST',
      headers: { ...keyHeader, ...json },
      body: createBody,
      ceiling: 'w',
    },
    {
      id: 'f0',
      label: '  the same refusal as one Hono route',
      path: '/__bench/refusal-floor',
      headers: { 'x-api-key': s.narrowKey },
    },
    {
      id: 'f',
      label: 'refused: missing scope (403)',
      path: '/api/v1/tickets',
      headers: { 'x-api-key': s.narrowKey },
    },
  ];
}

// the deliveries (e) triggered are work of (e): wait for them before the next run
async function deliveriesSettled() {
  const started = Date.now();
  while (Date.now() - started < 120_000) {
    const { pending } = (await (await fetch(`${BASE}/__bench/outstanding`)).json()) as { pending: number };
    if (pending === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Results = Map<string, { figures: Figures; ratio: number }>;
const MEASURED = ['b', 'c', 'c0', 'd', 'd1', 'f0', 'f', 'e'];

/**
 * Each case runs ROUNDS times, each time right after a run of its ceiling, and its ratio is the
 * median of the per-round ratios: on a shared machine a ceiling drifts by a third from minute to
 * minute, and pairing keeps that drift out of the ratio. (e) runs last: the deliveries it triggers
 * keep the server busy after it ends (the runner waits for them before the next round).
 */
async function measure(cases: readonly Case[], ceilingOf: (id: string) => string): Promise<Results> {
  const only = process.env.BENCH_CASES?.split(',');
  const byId = (id: string) => cases.find((c) => c.id === id)!;
  const measured = MEASURED.filter((id) => !only || only.includes(id));
  const ceilings = [...new Set(measured.map(ceilingOf))];
  for (const id of [...ceilings, ...measured]) await drive(byId(id), WARMUP_SECONDS);
  await deliveriesSettled();
  const ceilingRuns = new Map<string, Figures[]>(ceilings.map((id) => [id, []]));
  const results: Results = new Map();
  for (const id of measured) {
    const runs: { a: Figures; x: Figures }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const a = await drive(byId(ceilingOf(id)));
      ceilingRuns.get(ceilingOf(id))!.push(a);
      runs.push({ a, x: await drive(byId(id)) });
      if (id === 'e') await deliveriesSettled();
    }
    const middle = medianBy(runs, (run) => run.x.rps / run.a.rps);
    results.set(id, { figures: middle.x, ratio: middle.x.rps / middle.a.rps });
  }
  for (const [id, runs] of ceilingRuns) results.set(id, { figures: medianBy(runs, (f) => f.rps), ratio: 1 });
  return results;
}

/** One row per case measured; a ratio is to the case's own ceiling, the row above it (or (a)). */
function printTable(cases: readonly Case[], results: Results) {
  const row = (cells: string[]) =>
    console.log(
      [3, 48, 8, 6, 6, 6, 8, 10, 5]
        .map((w, i) => (i < 2 ? cells[i]!.padEnd(w) : cells[i]!.padStart(w)))
        .join(' '),
    );
  row(['id', 'case', 'req/s', 'p50ms', 'p99ms', 'ratio', 'non-2xx', 'cpu µs/req', 'cpu']);
  for (const c of cases) {
    const result = results.get(c.id);
    if (!result) continue;
    const { figures: f, ratio } = result;
    row([
      c.id,
      c.label,
      f.rps.toFixed(0),
      String(f.p50),
      String(f.p99),
      ratio.toFixed(2),
      String(f.non2xx),
      f.cpuPerRequestUs.toFixed(1),
      f.serverCpuShare.toFixed(2),
    ]);
  }
}

/** Each case's least ratio to its ceiling (docs/benchmarks.md, "Targets"). */
const TARGETS: readonly [id: string, min: number][] = [
  ['c', 0.25],
  ['f', 0.6],
  ['d', 0.5],
  ['d1', 0.5],
  ['e', 0.5],
];

/** The targets, the auth cost by difference ((c) - (c0)) and what answering before the router saves. */
function printVerdicts(results: Results, ceilingOf: (id: string) => string) {
  const verdict = (met: boolean) => (met ? 'MET' : 'MISSED');
  const cpu = (id: string) => results.get(id)?.figures.cpuPerRequestUs ?? Number.NaN;
  const c = results.get('c');
  const c0 = results.get('c0');
  if (c && c0) {
    const authMs = (cpu('c') - cpu('c0')) / 1000;
    console.log(
      `auth cost per request (server CPU per request, (c) - (c0)): ${authMs.toFixed(4)} ms  target < 0.1 ms  ${verdict(authMs < 0.1)}`,
    );
  }
  for (const [id, min] of TARGETS) {
    const r = results.get(id);
    if (r)
      console.log(
        `(${id})/(${ceilingOf(id)}) = ${r.ratio.toFixed(2)}  target >= ${min.toFixed(2)}  ${verdict(r.ratio >= min)}`,
      );
  }
  // (f0) is no target: the refusal's work as a route behind Hono's router, for what answering
  // before the router (shared/runtime/front-door.ts) saves
  const f0 = results.get('f0');
  const f = results.get('f');
  if (f0 && f) {
    console.log(
      `(f0)/(a) = ${f0.ratio.toFixed(2)} (server CPU per request: ${(cpu('a') / cpu('f0')).toFixed(2)}): the refusal as a route; (f)/(f0) = ${(f.ratio / f0.ratio).toFixed(2)}: what answering before the router saves`,
    );
  }
}

async function benchOne(mode: 'postgres' | 'pglite') {
  const database = await benchDatabase(mode);
  const receiver = await startHttpsReceiver();
  const server = await startServer(database.env);
  try {
    const seeded = await seed(receiver.url('/bench'));
    console.log(
      `\n[${mode}] seeded ${seeded.seeded.inserted} tickets in ${seeded.seeded.ms} ms; ${SECONDS}s per case, ${CONNECTIONS} connections`,
    );
    const cases = benchCases(seeded);
    const ceilingOf = (id: string) => cases.find((c) => c.id === id)?.ceiling ?? 'a';
    const results = await measure(cases, ceilingOf);
    printTable(cases, results);
    printVerdicts(results, ceilingOf);
    console.log(`webhook deliveries received during (e): ${receiver.received('/bench').length}`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await receiver.close();
    await database.remove();
  }
}

const which = process.env.BENCH_DB ?? 'both';
console.log(
  `Support Platform API benchmark, ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
);
const wanted = process.env.BENCH_CASES?.split(',').map((c) => c.trim());
// (the upload alone needs no server and no seeded tickets)
if (!wanted || wanted.some((c) => c !== 'u')) {
  if (which === 'postgres' || which === 'both') await benchOne('postgres');
  if (which === 'pglite' || which === 'both') await benchOne('pglite');
}
// the upload case lives in its own module (scripts/bench/files.ts), on the same databases
if (!wanted || wanted.includes('u')) {
  if (which === 'postgres' || which === 'both') await benchUploads('postgres');
  if (which === 'pglite' || which === 'both') await benchUploads('pglite');
}
