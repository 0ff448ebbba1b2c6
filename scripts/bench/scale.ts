// `npm run bench:scale`: the ticket list of a tenant of 100,000 tickets beside one of 1,000,000 (and
// one of 5,000,000 with BENCH_SCALE_5M=1), with four other tenants of 50,000 each, on real Postgres,
// in a database of its own (created, then dropped). Each request goes through the whole API (the
// embedded runtime's Hono app, an API key, validation, the handler, its SQL), in process, so the
// figures are the server's own time without a socket. The sizes are timed in turn, request by
// request (one to the small tenant, one to the large, ...), so a burst of load on this shared
// machine weighs on every size alike instead of on whichever ran during it. Prints p50/p99 per
// request and size, and the growth factor from the first size to each larger one, MET or MISSED
// against 1.5x for the cases whose cost must not grow (first pages, cursor pages at depth, reads,
// creations). docs/benchmarks.md holds the method and the latest table.
//
//   BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_SCALE_SIZES (default 100000,1000000; BENCH_SCALE_5M=1 adds 5000000)
//   BENCH_SCALE_ITERATIONS (default 30)
import { sql } from 'kysely';
import { ListTicketsQuery } from '../../functions/tickets/schemas';
import { signDashboardToken } from '../../shared/auth/jwt';
import { filtersHash, writeCursor } from '../../shared/db/paging';
import { loadConfig } from '../../shared/env';
import { createEmbeddedRuntime } from '../embedded';
import { adminQuery, BENCH_SECRETS, benchDatabaseUrl } from './postgres';

const SIZES = (process.env.BENCH_SCALE_SIZES ?? '100000,1000000')
  .split(',')
  .map(Number)
  .concat(process.env.BENCH_SCALE_5M === '1' ? [5_000_000] : []);
const ITER = Number(process.env.BENCH_SCALE_ITERATIONS ?? 40);
const OTHER_TENANTS = 4;
const OTHER_ROWS = 50_000;
const CEILING = 1.5;
const DB_NAME = `spa_bench_scale_${process.pid}`;
const SECRETS = BENCH_SECRETS;

const admin = adminQuery;

/**
 * Tickets g = from..to of a tenant, one a minute from 2020 on, spread over the value sets
 * (status 1/6, priority 1/4, type 1/5, tag vip 1/10, 500 requesters, 20 assignees on a third).
 * One INSERT ... SELECT generate_series per call: the statement-level count triggers run once.
 */
function seedSql(tenantId: string, prefix: string, from: number, to: number) {
  return sql`
    INSERT INTO tickets (id, tenant_id, subject, description, status, priority, type, requester_id, assignee_id,
                         tags, created_by, created_at, updated_at)
    SELECT ${prefix} || lpad(g::text, 9, '0'), ${tenantId}, 'Ticket ' || g, 'Generated for the benchmark',
           (ARRAY['new','open','pending','on_hold','resolved','closed'])[1 + g % 6],
           (ARRAY['low','medium','high','urgent'])[1 + g % 4],
           (ARRAY['question','incident','problem','service_request','change'])[1 + g % 5],
           'eu_' || (g % 500),
           CASE WHEN g % 3 = 0 THEN 'agent_' || (g % 20) END,
           CASE WHEN g % 10 = 0 THEN ARRAY['vip','network'] ELSE ARRAY['network'] END,
           'bench',
           timestamptz '2020-01-01' + g * interval '1 minute',
           timestamptz '2020-01-01' + g * interval '1 minute'
      FROM generate_series(${from}::int, ${to}::int) AS g`;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

interface Case {
  label: string;
  /** whether its cost must stay within 1.5x (first pages, cursor pages, reads, creations) */
  flat: boolean;
  /** the request to the tenant of `size` tickets, whose ids start with `prefix` */
  request(size: number, prefix: string): { method: string; path: string; body?: unknown };
}

/** The newest ticket's instant at `size` rows (g = size): windows of a day hold 1,440 at any size. */
const newest = (size: number) => new Date(Date.parse('2020-01-01T00:00:00Z') + size * 60_000);
const dayBefore = (size: number) => new Date(newest(size).getTime() - 86_400_000).toISOString();

/** A cursor at depth `size / 2` of the list with `query`, written as the API writes it. */
function cursorAtDepth(query: Record<string, string>, size: number, prefix: string) {
  const g = Math.floor(size / 2);
  const parsed = ListTicketsQuery.parse(query) as Record<string, unknown>;
  const at = new Date(Date.parse('2020-01-01T00:00:00Z') + g * 60_000).toISOString().replace('Z', '000Z');
  return writeCursor({
    list: 'tickets',
    filters: filtersHash(parsed, ['limit', 'offset', 'cursor']),
    key: at,
    id: `${prefix}${String(g).padStart(9, '0')}`,
  });
}

const CASES: Case[] = [
  {
    label: 'first page, unfiltered',
    flat: true,
    request: () => ({ method: 'GET', path: '/api/v1/tickets' }),
  },
  {
    label: 'status=open',
    flat: true,
    request: () => ({ method: 'GET', path: '/api/v1/tickets?status=open' }),
  },
  {
    label: 'status=open,pending',
    flat: true,
    request: () => ({ method: 'GET', path: '/api/v1/tickets?status=open,pending' }),
  },
  {
    label: 'priority=urgent',
    flat: true,
    request: () => ({ method: 'GET', path: '/api/v1/tickets?priority=urgent' }),
  },
  {
    label: 'type=incident',
    flat: true,
    request: () => ({ method: 'GET', path: '/api/v1/tickets?type=incident' }),
  },
  { label: 'tag=vip', flat: true, request: () => ({ method: 'GET', path: '/api/v1/tickets?tag=vip' }) },
  {
    label: 'requester_id=eu_7',
    flat: true,
    request: () => ({ method: 'GET', path: '/api/v1/tickets?requester_id=eu_7' }),
  },
  {
    label: 'assignee_id=agent_3',
    flat: true,
    request: () => ({ method: 'GET', path: '/api/v1/tickets?assignee_id=agent_3' }),
  },
  {
    label: 'created_after=<a day ago>',
    flat: true,
    request: (n) => ({ method: 'GET', path: `/api/v1/tickets?created_after=${dayBefore(n)}` }),
  },
  {
    label: 'updated_since=<a day ago>&sort=updated_at',
    flat: true,
    request: (n) => ({
      method: 'GET',
      path: `/api/v1/tickets?updated_since=${dayBefore(n)}&sort=updated_at`,
    }),
  },
  {
    label: 'status=open&priority=urgent (combined)',
    flat: false,
    request: () => ({ method: 'GET', path: '/api/v1/tickets?status=open&priority=urgent' }),
  },
  {
    label: 'offset=<half the rows>',
    flat: false,
    request: (n) => ({ method: 'GET', path: `/api/v1/tickets?offset=${Math.floor(n / 2)}` }),
  },
  {
    label: 'cursor at half the rows',
    flat: true,
    request: (n, prefix) => ({
      method: 'GET',
      path: `/api/v1/tickets?cursor=${cursorAtDepth({}, n, prefix)}`,
    }),
  },
  {
    label: 'status=open, cursor at half',
    flat: true,
    // a position need not be a matching row: the page is the matching rows after it
    request: (n, prefix) => ({
      method: 'GET',
      path: `/api/v1/tickets?status=open&cursor=${cursorAtDepth({ status: 'open' }, n, prefix)}`,
    }),
  },
  {
    label: 'read one ticket',
    flat: true,
    request: (_, prefix) => ({ method: 'GET', path: `/api/v1/tickets/${prefix}000000077` }),
  },
  {
    label: 'create a ticket',
    flat: true,
    request: () => ({
      method: 'POST',
      path: '/api/v1/tickets',
      body: { subject: 'Bench ticket', priority: 'high' },
    }),
  },
];

async function main() {
  await admin(`CREATE DATABASE ${DB_NAME}`);
  const config = loadConfig({
    ...SECRETS,
    DATABASE_URL: benchDatabaseUrl(DB_NAME),
    RATE_LIMIT_SCALE: '100000',
    LOG_LEVEL: 'warn',
  });
  const runtime = await createEmbeddedRuntime({ config });
  try {
    await run(runtime);
  } finally {
    await runtime.close();
    await admin(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  }
}

async function run(runtime: Awaited<ReturnType<typeof createEmbeddedRuntime>>) {
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await runtime.app.request(path, {
      method,
      headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  const sign = (tenantId: string, role: 'super_admin' | 'tenant_admin') =>
    signDashboardToken(SECRETS.DASHBOARD_JWT_SECRET, { sub: 'bench', tenant_id: tenantId, role });
  const superAdmin = { authorization: `Bearer ${await sign('platform', 'super_admin')}` };
  const db = runtime.handle.db;
  let t0 = performance.now();
  for (let i = 0; i < OTHER_TENANTS; i++) {
    const id = `ten_scale_other${i}`;
    await db.insertInto('tenants').values({ id, name: id, plan: 'pro', environment: 'production' }).execute();
    await seedSql(id, `tkt_o${i}_`, 1, OTHER_ROWS).execute(db);
  }
  console.log(`other tenants: ${OTHER_TENANTS} x ${OTHER_ROWS} tickets in ${seconds(t0)} s`);

  // one tenant per size, each with its API key
  const tenants: { size: number; prefix: string; headers: Record<string, string> }[] = [];
  for (const [i, size] of SIZES.entries()) {
    const body = { name: `Bench ${size}`, plan: 'enterprise', environment: 'production' };
    const tenant = await call('POST', '/api/v1/tenants', superAdmin, body);
    const admin = { authorization: `Bearer ${await sign(tenant.id, 'tenant_admin')}` };
    const keyBody = { name: 'bench', scopes: ['tickets:read', 'tickets:write'] };
    const { api_key } = await call('POST', '/api/v1/api-keys', admin, keyBody);
    const prefix = `tkt_s${i}_`;
    t0 = performance.now();
    await seedSql(tenant.id, prefix, 1, size).execute(db);
    console.log(`tenant of ${size.toLocaleString('en')} tickets seeded in ${seconds(t0)} s`);
    tenants.push({ size, prefix, headers: { 'x-api-key': api_key } });
  }
  await sql`VACUUM ANALYZE tickets`.execute(db);

  const results = new Map<string, Map<number, { p50: number; p99: number }>>();
  console.log(
    `\n${'request'.padEnd(44)}${tenants.map((t) => `p50/p99 @${fmt(t.size)}`.padStart(22)).join('')}`,
  );
  for (const c of CASES) {
    const requests = tenants.map((t) => ({ ...c.request(t.size, t.prefix), headers: t.headers }));
    const times = requests.map(() => [] as number[]);
    for (let i = 0; i < ITER + 5; i++)
      for (const [k, r] of requests.entries()) {
        const start = performance.now();
        await call(r.method, r.path, r.headers, r.body);
        if (i >= 5) times[k]!.push(performance.now() - start); // the first five warm up
      }
    const bySize = new Map<number, { p50: number; p99: number }>();
    for (const [k, t] of tenants.entries()) {
      const sorted = times[k]!.sort((a, b) => a - b);
      bySize.set(t.size, { p50: pct(sorted, 0.5), p99: pct(sorted, 0.99) });
    }
    results.set(c.label, bySize);
    const cells = tenants.map((t) => {
      const r = bySize.get(t.size)!;
      return `${r.p50.toFixed(2)} / ${r.p99.toFixed(2)}`.padStart(22);
    });
    console.log(`${c.label.padEnd(44)}${cells.join('')}`);
  }
  printGrowth(results);
}

const seconds = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);
const fmt = (n: number) => `${(n / 1000).toLocaleString('en')}k`;

/** p50 at each size beside the first, the factor, and MET/MISSED for the cases that must stay flat. */
function printGrowth(results: Map<string, Map<number, { p50: number; p99: number }>>) {
  const [base, ...larger] = SIZES;
  if (base === undefined || larger.length === 0) return;
  console.log(
    `\ngrowth of p50 from ${base.toLocaleString('en')} rows (ceiling ${CEILING}x for the flat cases)`,
  );
  console.log(
    'request'.padEnd(44) +
      [base, ...larger].map((s) => `p50@${fmt(s)}`.padStart(12)).join('') +
      larger.map((s) => `x@${fmt(s)}`.padStart(10)).join('') +
      '  verdict',
  );
  let missed = 0;
  for (const c of CASES) {
    const bySize = results.get(c.label)!;
    const p50 = (s: number) => bySize.get(s)!.p50;
    const factors = larger.map((s) => p50(s) / p50(base));
    const worst = Math.max(...factors);
    const verdict = !c.flat ? '(may grow: reported)' : worst <= CEILING ? 'MET' : 'MISSED';
    if (c.flat && worst > CEILING) missed++;
    console.log(
      c.label.padEnd(44) +
        [base, ...larger].map((s) => p50(s).toFixed(2).padStart(12)).join('') +
        factors.map((f) => `${f.toFixed(2)}x`.padStart(10)).join('') +
        `  ${verdict}`,
    );
  }
  console.log(missed === 0 ? '\nevery flat case MET' : `\n${missed} flat case(s) MISSED`);
}

await main();
