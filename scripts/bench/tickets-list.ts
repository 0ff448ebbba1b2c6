// Benchmark of GET /api/v1/tickets on real Postgres: 100,000 tickets for one tenant, the first
// page and the page at offset 10,000, through the same Kysely queries the handler runs
// (ticketListQueries). Creates and drops a throwaway database. `npm run bench:tickets`.
//
//   BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_TICKETS (default 100000), BENCH_ITERATIONS (default 300)
import { type CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { listTickets, ticketListQueries } from '../../functions/tickets/data';
import { createPostgresHandle } from '../../shared/db/adapters/pg';
import { migrate } from '../../shared/db/migrate';
import { readMigrations } from '../../shared/db/migrations-fs';
import { seedTickets } from './seed-tickets';

const ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const N = Number(process.env.BENCH_TICKETS ?? 100_000);
const ITER = Number(process.env.BENCH_ITERATIONS ?? 300);
const TENANT = 'ten_bench';

async function admin(text: string) {
  const client = new pg.Client({ connectionString: ADMIN });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

type Db = ReturnType<typeof createPostgresHandle>['db'];
type Filters = Parameters<typeof ticketListQueries>[2];

const CASES: { label: string; filters: Filters }[] = [
  { label: 'first page (limit 20, offset 0)', filters: { limit: 20, offset: 0 } },
  { label: 'offset 10,000 (limit 20)', filters: { limit: 20, offset: 10_000 } },
  { label: 'first page, limit 100', filters: { limit: 100, offset: 0 } },
  { label: 'status=open, offset 0', filters: { limit: 20, offset: 0, status: ['open'] } },
  { label: 'requester_id=eu_7, offset 0', filters: { limit: 20, offset: 0, requester_id: 'eu_7' } },
  { label: 'sort=updated_at, offset 10,000', filters: { limit: 20, offset: 10_000, sort: 'updated_at' } },
];

/** The target tenant's N tickets plus N/2 of another tenant, so the tenant predicate matters. */
async function seed(db: Db) {
  await db
    .insertInto('tenants')
    .values({ id: TENANT, name: 'bench', plan: 'pro', environment: 'production' })
    .execute();
  await db
    .insertInto('tenants')
    .values({ id: 'ten_other', name: 'other', plan: 'pro', environment: 'production' })
    .execute();
  const t0 = performance.now();
  await seedTickets(db, TENANT, N);
  await sql`
    INSERT INTO tickets (id, tenant_id, subject, created_by, created_at, updated_at)
    SELECT 'tkt_o' || lpad(g::text, 9, '0'), 'ten_other', 'Other ' || g, 'bench',
           timestamptz '2026-01-01' + interval '1 minute' * g,
           timestamptz '2026-01-01' + interval '1 minute' * g
    FROM generate_series(1, ${N / 2}) AS g`.execute(db);
  await sql`VACUUM ANALYZE tickets`.execute(db);
  console.log(
    `seeded ${N} tickets (+${N / 2} of another tenant) in ${(performance.now() - t0).toFixed(0)} ms\n`,
  );
}

/** p50 and p99 of each case, run as the handler runs it (page query and count in parallel). */
async function timeCases(db: Db) {
  console.log(
    'case'.padEnd(36),
    'p50 ms'.padStart(8),
    'p99 ms'.padStart(8),
    '  (page query + count, in parallel, as the handler runs them)',
  );
  for (const c of CASES) {
    for (let i = 0; i < 20; i++) await listTickets(db, TENANT, c.filters); // warm-up
    const times: number[] = [];
    for (let i = 0; i < ITER; i++) {
      const s = performance.now();
      await listTickets(db, TENANT, c.filters);
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    console.log(
      c.label.padEnd(36),
      pct(times, 0.5).toFixed(2).padStart(8),
      pct(times, 0.99).toFixed(2).padStart(8),
    );
  }
}

/** The plan lines that say how the first two cases' queries read the table. */
async function explainCases(db: Db) {
  console.log('\nEXPLAIN (ANALYZE, BUFFERS) of the handler queries:');
  for (const c of CASES.slice(0, 2)) {
    const q = ticketListQueries(db, TENANT, c.filters);
    if (!q.count) throw new Error('an offset page has a count');
    for (const [what, compiled] of [
      ['page', q.rows.compile()],
      ['count', q.count.compile()],
    ] as [string, CompiledQuery][]) {
      const plan = await db.executeQuery<{ 'QUERY PLAN': string }>({
        ...compiled,
        sql: `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${compiled.sql}`,
      });
      const lines = plan.rows.map((r) => r['QUERY PLAN']);
      console.log(`\n-- ${c.label}: ${what}`);
      for (const line of lines.filter((l) => /Scan|Limit|Join|Aggregate|Execution Time|Heap Fetches/.test(l)))
        console.log(`   ${line.trim()}`);
    }
  }
}

async function main() {
  const name = `spa_bench_${Date.now().toString(36)}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  const handle = createPostgresHandle(url.toString(), { max: 4, listen: false });
  try {
    await migrate(handle, readMigrations());
    await seed(handle.db);
    await timeCases(handle.db);
    await explainCases(handle.db);
  } finally {
    await handle.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
