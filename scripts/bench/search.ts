// `npm run bench:search`: GET /api/v1/tickets/search and GET /api/v2/search (contacts) over a tenant of
// 100,000 and one of 1,000,000 tickets and contacts, beside two other tenants of 50,000 each, on real
// Postgres, in a database of its own (created, then dropped). Every request goes through the whole API
// in process (the embedded runtime's Hono app: the gate, validation, the parser, the SQL). A fixed mix
// of queries, each kind timed at each size in turn (one request to each size, round after round, so a
// burst of load on this shared machine weighs on both sizes alike): p50/p99 per kind and size, MET or
// MISSED at 1,000,000 against the search targets (a selective query's first page p50 <= 50 ms, any
// query's <= 250 ms). docs/benchmarks.md holds the method and the latest table.
//
//   BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_SEARCH_SIZES (default 100000,1000000)
//   BENCH_SEARCH_ITERATIONS (default 30)
//   BENCH_SEARCH_OTHER_ROWS (default 50000)
//   BENCH_SEARCH_KEEP=1 keeps the database (for EXPLAIN ANALYZE), and says its name
import { sql } from 'kysely';
import { signDashboardToken } from '../../shared/auth/jwt';
import type { Db } from '../../shared/db/schema';
import { loadConfig } from '../../shared/env';
import { createEmbeddedRuntime } from '../embedded';
import { adminQuery, BENCH_SECRETS, benchDatabaseUrl } from './postgres';

const SIZES = (process.env.BENCH_SEARCH_SIZES ?? '100000,1000000').split(',').map(Number);
const ITER = Number(process.env.BENCH_SEARCH_ITERATIONS ?? 30);
const OTHER_ROWS = Number(process.env.BENCH_SEARCH_OTHER_ROWS ?? 50_000);
const DB_NAME = `spa_bench_search_${process.pid}`;
const KEEP = process.env.BENCH_SEARCH_KEEP === '1';
const SELECTIVE_P50_MS = 50;
const ANY_P50_MS = 250;

// The text of ticket g: a common word (1 in 8 rows has each), a mid word (1 in 100), a selective word
// (1 in 10,007: about 100 rows at 1M) and a running serial, so each query kind below matches the share
// of a tenant it is named for, whatever the tenant's size.
const COMMON = ['printer', 'network', 'laptop', 'email', 'password', 'monitor', 'vpn', 'phone'];
const MID = Array.from({ length: 100 }, (_, i) => `model${i}`);
const SUBJECT = `(ARRAY[${COMMON.map((w) => `'${w}'`).join(',')}])[1 + g % 8] || ' ' ||
  (ARRAY['jam','fails','slow','broken','request','question'])[1 + (g / 8) % 6] || ' ' ||
  (ARRAY[${MID.map((w) => `'${w}'`).join(',')}])[1 + (g * 7) % 100]`;
const DESCRIPTION = `'Reported by the ' || (ARRAY['first','second','third'])[1 + g % 3] || ' floor, error code ' ||
  'err' || (g % 10007) || ', serial sn' || g`;

function seedTickets(tenantId: string, prefix: string, rows: number) {
  return sql`
    INSERT INTO tickets (id, tenant_id, subject, description, status, priority, type, tags, created_by,
                         created_at, updated_at)
    SELECT ${prefix} || lpad(g::text, 9, '0'), ${tenantId}, ${sql.raw(SUBJECT)}, ${sql.raw(DESCRIPTION)},
           (ARRAY['new','open','pending','on_hold','resolved','closed'])[1 + g % 6],
           (ARRAY['low','medium','high','urgent'])[1 + g % 4], 'question',
           CASE WHEN g % 10 = 0 THEN ARRAY['vip'] ELSE ARRAY['network'] END, 'bench',
           timestamptz '2020-01-01' + g * interval '1 minute', timestamptz '2020-01-01' + g * interval '1 minute'
      FROM generate_series(1, ${rows}::int) AS g`;
}

const FIRST = ['Ana', 'Bruno', 'Carla', 'Diego', 'Eva', 'Filipe', 'Gina', 'Hugo'];
function seedContacts(tenantId: string, prefix: string, rows: number) {
  return sql`
    INSERT INTO contacts (id, tenant_id, first_name, last_name, email, phone, tags, created_at, updated_at)
    SELECT ${prefix} || lpad(g::text, 9, '0'), ${tenantId},
           (ARRAY[${sql.raw(FIRST.map((n) => `'${n}'`).join(','))}])[1 + g % 8], 'Surname' || (g % 10007),
           'person' || g || '@example.com', '+3519' || lpad(g::text, 8, '0'), ARRAY['customer'],
           timestamptz '2020-01-01' + g * interval '1 minute', timestamptz '2020-01-01' + g * interval '1 minute'
      FROM generate_series(1, ${rows}::int) AS g`;
}

interface Kind {
  name: string;
  selective: boolean;
  path: (size: number) => string;
  session?: true;
}

const q = (query: string, extra = '') => `/api/v1/tickets/search?query=${encodeURIComponent(query)}${extra}`;
const KINDS: Kind[] = [
  { name: 'selective word', selective: true, path: () => q('err4242') },
  {
    name: 'selective word, 3 filters',
    selective: true,
    path: () => q('err4242 status:open priority:low,high'),
  },
  { name: 'selective prefix', selective: true, path: () => q('err424*') },
  { name: 'serial (one row)', selective: true, path: (size) => q(`sn${Math.floor(size / 2)}`) },
  { name: 'mid word (1%)', selective: false, path: () => q('model42') },
  { name: 'common word (12%)', selective: false, path: () => q('printer') },
  { name: 'two common words', selective: false, path: () => q('printer jam') },
  { name: 'phrase', selective: false, path: () => q('"printer jam"') },
  { name: 'words OR', selective: false, path: () => q('printer OR laptop') },
  { name: 'negation', selective: false, path: () => q('printer -jam') },
  { name: 'filters only', selective: false, path: () => q('status:open priority:urgent') },
  { name: 'word plus filters', selective: false, path: () => q('printer status:open tag:vip') },
  { name: 'common word, recency', selective: false, path: () => q('printer', '&sort=created_at') },
  {
    name: 'contacts: name',
    selective: false,
    session: true,
    path: () => `/api/v2/search?types=contact&query=${encodeURIComponent('ana')}`,
  },
  {
    name: 'contacts: surname',
    selective: true,
    session: true,
    path: () => `/api/v2/search?types=contact&query=${encodeURIComponent('surname4242')}`,
  },
];

async function seedTenant(db: Db, tenantId: string, prefix: string, rows: number) {
  await seedTickets(tenantId, `tkt_${prefix}_`, rows).execute(db);
  await seedContacts(tenantId, `ctc_${prefix}_`, rows).execute(db);
}

const seconds = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function main() {
  await adminQuery(`CREATE DATABASE ${DB_NAME}`);
  const config = loadConfig({
    ...BENCH_SECRETS,
    DATABASE_URL: benchDatabaseUrl(DB_NAME),
    RATE_LIMIT_SCALE: '100000',
    LOG_LEVEL: 'warn',
    // the seeding's statements write millions of rows and their count triggers: no time limit
    STATEMENT_TIMEOUT_MS: '0',
    // what each query costs, not how often one tenant may run it: the time meter off
    TENANT_DB_TIME_SHARE: '0',
  });
  const runtime = await createEmbeddedRuntime({ config });
  try {
    await run(runtime);
  } finally {
    await runtime.close();
    if (KEEP) console.log(`kept the database ${DB_NAME} (drop it when done)`);
    else await adminQuery(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  }
}

/** The other tenants and one tenant per size, with an API key and a session each; indexes built last. */
async function seedAll(
  db: Db,
  call: (
    path: string,
    headers: Record<string, string>,
    init?: { method: string; body: unknown },
  ) => Promise<any>,
  superAdmin: Record<string, string>,
  sign: (tenantId: string, role: 'super_admin' | 'tenant_admin') => Promise<string>,
) {
  // bulk loads build the full-text indexes once at the end, as a restore would
  const indexes = ['tickets_tenant_fts_idx', 'contacts_tenant_fts_idx'];
  const definitions = await sql<{ indexdef: string }>`
    SELECT indexdef FROM pg_indexes WHERE indexname IN (${sql.join(indexes)})`.execute(db);
  for (const name of indexes) await sql`DROP INDEX ${sql.ref(name)}`.execute(db);
  let t0 = performance.now();
  for (let i = 0; i < 2; i++) {
    const id = `ten_search_other${i}`;
    await db.insertInto('tenants').values({ id, name: id, plan: 'pro', environment: 'production' }).execute();
    await seedTenant(db, id, `o${i}`, OTHER_ROWS);
  }
  console.log(`other tenants: 2 x ${OTHER_ROWS} tickets and contacts in ${seconds(t0)} s`);
  const tenants: { size: number; key: Record<string, string>; session: Record<string, string> }[] = [];
  for (const [i, size] of SIZES.entries()) {
    const created = await call('/api/v1/tenants', superAdmin, {
      method: 'POST',
      body: { name: `Search bench ${size}`, plan: 'enterprise', environment: 'production' },
    });
    const session = { authorization: `Bearer ${await sign(created.id, 'tenant_admin')}` };
    const { api_key } = await call('/api/v1/api-keys', session, {
      method: 'POST',
      body: { name: 'bench', scopes: ['tickets:read'] },
    });
    t0 = performance.now();
    await seedTenant(db, created.id, `s${i}`, size);
    console.log(`tenant of ${size.toLocaleString('en')}: tickets and contacts in ${seconds(t0)} s`);
    tenants.push({ size, key: { 'x-api-key': api_key }, session });
  }
  t0 = performance.now();
  for (const def of definitions.rows) await sql.raw(def.indexdef).execute(db);
  for (const table of ['tickets', 'contacts']) await sql`VACUUM ANALYZE ${sql.table(table)}`.execute(db);
  console.log(`full-text indexes and VACUUM ANALYZE in ${seconds(t0)} s`);

  return tenants;
}

async function run(runtime: Awaited<ReturnType<typeof createEmbeddedRuntime>>) {
  const db = runtime.handle.db;
  const call = async (
    path: string,
    headers: Record<string, string>,
    init?: { method: string; body: unknown },
  ) => {
    const res = await runtime.app.request(path, {
      method: init?.method ?? 'GET',
      headers: { ...headers, ...(init ? { 'content-type': 'application/json' } : {}) },
      body: init ? JSON.stringify(init.body) : undefined,
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  const sign = (tenantId: string, role: 'super_admin' | 'tenant_admin') =>
    signDashboardToken(BENCH_SECRETS.DASHBOARD_JWT_SECRET, { sub: 'bench', tenant_id: tenantId, role });
  const superAdmin = { authorization: `Bearer ${await sign('platform', 'super_admin')}` };

  const tenants = await seedAll(db, call, superAdmin, sign);

  const largest = SIZES[SIZES.length - 1]!;
  console.log(
    `\n${'query kind'.padEnd(28)}${tenants.map((t) => `p50/p99 @${t.size / 1000}k`.padStart(22)).join('')}   target @${largest / 1000}k`,
  );
  let missed = 0;
  for (const kind of KINDS) {
    const times = new Map<number, number[]>(tenants.map((t) => [t.size, []]));
    for (const t of tenants) await call(kind.path(t.size), kind.session ? t.session : t.key); // warm
    for (let i = 0; i < ITER; i++)
      for (const t of tenants) {
        const start = performance.now();
        await call(kind.path(t.size), kind.session ? t.session : t.key);
        times.get(t.size)!.push(performance.now() - start);
      }
    const cells = tenants.map((t) => {
      const sorted = times.get(t.size)!.sort((a, b) => a - b);
      return { p50: pct(sorted, 0.5), p99: pct(sorted, 0.99) };
    });
    const at = cells[cells.length - 1]!;
    const target = kind.selective ? SELECTIVE_P50_MS : ANY_P50_MS;
    const met = at.p50 <= target;
    if (!met) missed++;
    console.log(
      `${kind.name.padEnd(28)}${cells.map((c) => `${c.p50.toFixed(1)} / ${c.p99.toFixed(1)} ms`.padStart(22)).join('')}   p50 <= ${target} ms ${met ? 'MET' : 'MISSED'}`,
    );
  }
  console.log(
    `\n${KINDS.length - missed} of ${KINDS.length} query kinds MET at ${largest.toLocaleString('en')}`,
  );
}

await main();
