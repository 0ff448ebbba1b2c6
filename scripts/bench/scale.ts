// `npm run bench:scale`: the lists of a tenant of 100,000 rows beside one of 1,000,000 (and one of
// 5,000,000 with BENCH_SCALE_5M=1), with four other tenants of 50,000 each, on real Postgres, in a
// database of its own (created, then dropped): tickets, calls, conversations and contacts (with 100
// companies per tenant), each list seeded to the size. Each request goes through the whole API (the
// embedded runtime's Hono app, an API key or for the contacts a dashboard session, validation, the
// handler, its SQL), in process, so the figures are the server's own time without a socket. The
// sizes are timed in turn, request by request (one to the small tenant, one to the large, ...), so a
// burst of load on this shared machine weighs on every size alike instead of on whichever ran
// during it. Prints p50/p99 per request and size, and the growth factor from the first size to each
// larger one, MET or MISSED against 1.5x for the cases whose cost must not grow (first pages, cursor
// pages at depth, reads, creations). docs/benchmarks.md holds the method and the latest table.
//
//   BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_SCALE_SIZES (default 100000,1000000; BENCH_SCALE_5M=1 adds 5000000)
//   BENCH_SCALE_LISTS (default tickets,calls,conversations,contacts: which lists are seeded and
//     timed; seeding all four at 1M takes about two minutes on an idle machine here, more under load)
//   BENCH_SCALE_ITERATIONS (default 40)
//   BENCH_SCALE_OTHER_ROWS (default 50000: each other tenant's rows per list)
//   BENCH_SCALE_KEEP=1 keeps the database (for EXPLAIN ANALYZE of a case), and says its name
import { sql } from 'kysely';
import { ListCallsQuery } from '../../functions/calls/schemas';
import { ListContactsQuery } from '../../functions/contacts/schemas';
import { ListConversationsQuery } from '../../functions/conversations/schemas';
import { ListTicketsQuery } from '../../functions/tickets/schemas';
import { signDashboardToken } from '../../shared/auth/jwt';
import { filtersHash, writeCursor } from '../../shared/db/paging';
import type { Db } from '../../shared/db/schema';
import { loadConfig } from '../../shared/env';
import { createEmbeddedRuntime } from '../embedded';
import { adminQuery, BENCH_SECRETS, benchDatabaseUrl } from './postgres';

const SIZES = (process.env.BENCH_SCALE_SIZES ?? '100000,1000000')
  .split(',')
  .map(Number)
  .concat(process.env.BENCH_SCALE_5M === '1' ? [5_000_000] : []);
const ITER = Number(process.env.BENCH_SCALE_ITERATIONS ?? 40);
type ListName = 'tickets' | 'calls' | 'conversations' | 'contacts';
const ALL_LISTS: ListName[] = ['tickets', 'calls', 'conversations', 'contacts'];
const LISTS = (process.env.BENCH_SCALE_LISTS ?? ALL_LISTS.join(',')).split(',') as ListName[];
for (const l of LISTS) if (!ALL_LISTS.includes(l)) throw new Error(`BENCH_SCALE_LISTS: unknown list ${l}`);
const OTHER_TENANTS = 4;
const OTHER_ROWS = Number(process.env.BENCH_SCALE_OTHER_ROWS ?? 50_000);
const CEILING = 1.5;
const DB_NAME = `spa_bench_scale_${process.pid}`;
const KEEP = process.env.BENCH_SCALE_KEEP === '1';
const SECRETS = BENCH_SECRETS;

const admin = adminQuery;

/** Row g's instant, one a minute from 2020 on, in every list. */
const AT = `timestamptz '2020-01-01' + g * interval '1 minute'`;

/**
 * Tickets g = from..to of a tenant, one a minute from 2020 on, spread over the value sets
 * (status 1/6, priority 1/4, type 1/5, tag vip 1/10, 500 requesters, 20 assignees on a third; the
 * ticket fields `plan` (a third each of gold, silver, bronze) and `order_ref` (one per ticket);
 * half under an SLA policy, 1/100 breached, 1/20 in the queue, due an hour after creation).
 * One INSERT ... SELECT generate_series per call: the statement-level count triggers run once.
 */
function seedTickets(tenantId: string, prefix: string, from: number, to: number) {
  return sql`
    INSERT INTO tickets (id, tenant_id, subject, description, status, priority, type, requester_id, assignee_id,
                         tags, custom_fields, sla_policy_id, sla_breached, sla_due_at, created_by, created_at,
                         updated_at)
    SELECT ${prefix} || lpad(g::text, 9, '0'), ${tenantId}, 'Ticket ' || g, 'Generated for the benchmark',
           (ARRAY['new','open','pending','on_hold','resolved','closed'])[1 + g % 6],
           (ARRAY['low','medium','high','urgent'])[1 + g % 4],
           (ARRAY['question','incident','problem','service_request','change'])[1 + g % 5],
           'eu_' || (g % 500),
           CASE WHEN g % 3 = 0 THEN 'agent_' || (g % 20) END,
           CASE WHEN g % 10 = 0 THEN ARRAY['vip','network'] ELSE ARRAY['network'] END,
           jsonb_build_object('plan', (ARRAY['gold','silver','bronze'])[1 + g % 3], 'order_ref', 'ord-' || g),
           CASE WHEN g % 2 = 0 THEN 'pol_bench' END, g % 100 = 0,
           CASE WHEN g % 20 = 0 THEN ${sql.raw(AT)} + interval '1 hour' END,
           'bench', ${sql.raw(AT)}, ${sql.raw(AT)}
      FROM generate_series(${from}::int, ${to}::int) AS g`;
}

/**
 * Calls: channel 1/4, direction 1/2, 500 caller phones, a third in progress (no outcome), the
 * others completed with one of six outcomes.
 */
function seedCalls(tenantId: string, prefix: string, from: number, to: number) {
  return sql`
    INSERT INTO calls (id, tenant_id, channel, direction, caller_phone, outcome, started_at, ended_at,
                       duration_seconds, completed_at, created_at, updated_at)
    SELECT ${prefix} || lpad(g::text, 9, '0'), ${tenantId}, (ARRAY['phone','sip','web','app'])[1 + g % 4],
           (ARRAY['inbound','outbound'])[1 + g % 2], '+1555' || lpad((g % 500)::text, 7, '0'),
           CASE WHEN g % 3 <> 0
                THEN (ARRAY['ticket_created','status_checked','kb_article','escalated','hung_up','error'])[1 + (g / 7) % 6]
           END,
           ${sql.raw(AT)}, CASE WHEN g % 3 <> 0 THEN ${sql.raw(AT)} + interval '5 minutes' END,
           CASE WHEN g % 3 <> 0 THEN 300 END, CASE WHEN g % 3 <> 0 THEN ${sql.raw(AT)} + interval '5 minutes' END,
           ${sql.raw(AT)}, ${sql.raw(AT)}
      FROM generate_series(${from}::int, ${to}::int) AS g`;
}

/**
 * Conversations: status 1/4, channel 1/5, 20 users assigned on a third, 5 teams, 500 contacts (the
 * tenant's first 500, when contacts are seeded).
 */
function seedConversations(
  tenantId: string,
  prefix: string,
  from: number,
  to: number,
  contacts: string | null,
) {
  return sql`
    INSERT INTO conversations (id, tenant_id, contact_id, subject, status, channel, assignee_user_id,
                               assignee_team_id, created_at, updated_at)
    SELECT ${prefix} || lpad(g::text, 9, '0'), ${tenantId},
           ${contacts}::text || lpad((1 + g % 500)::text, 9, '0'), 'Conversation ' || g,
           (ARRAY['open','waiting','resolved','closed'])[1 + g % 4],
           (ARRAY['email','widget','whatsapp','phone','api'])[1 + g % 5],
           CASE WHEN g % 3 = 0 THEN 'usr_' || (g % 20) END, 'team_' || (g % 5),
           ${sql.raw(AT)}, ${sql.raw(AT)}
      FROM generate_series(${from}::int, ${to}::int) AS g`;
}

/** 100 companies, then contacts: each at one of them, tag vip 1/10, a unique name, email and phone. */
function seedContacts(tenantId: string, prefix: string, from: number, to: number) {
  const companies = prefix.replace(/^ctc_/, 'cmp_');
  return [
    sql`
      INSERT INTO companies (id, tenant_id, name, domain, custom_attrs, tags, created_at, updated_at)
      SELECT ${companies} || lpad(g::text, 9, '0'), ${tenantId}, 'Company ' || g, 'c' || g || '.example.com',
             '{}', '{}', ${sql.raw(AT)}, ${sql.raw(AT)}
        FROM generate_series(1, 100) AS g`,
    sql`
      INSERT INTO contacts (id, tenant_id, first_name, last_name, email, phone, company_id, tags, custom_attrs,
                            created_at, updated_at)
      SELECT ${prefix} || lpad(g::text, 9, '0'), ${tenantId}, 'First' || g, 'Last' || (g % 1000),
             'p' || g || '@example.com', '+1666' || lpad(g::text, 9, '0'),
             ${companies} || lpad((1 + g % 100)::text, 9, '0'),
             CASE WHEN g % 10 = 0 THEN ARRAY['vip','network'] ELSE ARRAY['network'] END, '{}',
             ${sql.raw(AT)}, ${sql.raw(AT)}
        FROM generate_series(${from}::int, ${to}::int) AS g`,
  ];
}

/** The id prefix of a list's rows in tenant `tenant` (`s0`, `s1`: the sized ones; `o0`...: the others). */
const SHORT: Record<ListName, string> = {
  tickets: 'tkt',
  calls: 'call',
  conversations: 'conv',
  contacts: 'ctc',
};
const prefixOf = (list: ListName, tenant: string) => `${SHORT[list]}_${tenant}_`;

/** Seeds every chosen list for one tenant, contacts before the conversations that name them. */
async function seedTenant(db: Db, tenantId: string, tenant: string, rows: number, log: (m: string) => void) {
  for (const list of ['tickets', 'calls', 'contacts', 'conversations'] as const) {
    if (!LISTS.includes(list)) continue;
    const t0 = performance.now();
    const prefix = prefixOf(list, tenant);
    const statements =
      list === 'tickets'
        ? [seedTickets(tenantId, prefix, 1, rows)]
        : list === 'calls'
          ? [seedCalls(tenantId, prefix, 1, rows)]
          : list === 'contacts'
            ? seedContacts(tenantId, prefix, 1, rows)
            : [
                seedConversations(
                  tenantId,
                  prefix,
                  1,
                  rows,
                  LISTS.includes('contacts') ? prefixOf('contacts', tenant) : null,
                ),
              ];
    for (const statement of statements) await statement.execute(db);
    log(`${list} in ${seconds(t0)} s`);
  }
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

interface Case {
  list: ListName;
  label: string;
  /** whether its cost must stay within 1.5x (first pages, cursor pages, reads, creations) */
  flat: boolean;
  /** the answer's status when it is not a success (a request the API refuses) */
  status?: number;
  /** the request to the tenant of `size` rows, whose ids start with `prefix` (this list's) */
  request(size: number, prefix: string): { method: string; path: string; body?: unknown };
}

/** The newest row's instant at `size` rows (g = size): windows of a day hold 1,440 at any size. */
const newest = (size: number) => new Date(Date.parse('2020-01-01T00:00:00Z') + size * 60_000);
const dayBefore = (size: number) => new Date(newest(size).getTime() - 86_400_000).toISOString();

const PATHS: Record<ListName, string> = {
  tickets: '/api/v1/tickets',
  calls: '/api/v1/calls',
  conversations: '/api/v1/conversations',
  contacts: '/api/v2/contacts',
};
const QUERIES: Record<ListName, { parse(input: unknown): unknown }> = {
  tickets: ListTicketsQuery,
  calls: ListCallsQuery,
  conversations: ListConversationsQuery,
  contacts: ListContactsQuery,
};

/** A cursor at depth `size / 2` of `list` with `query`, written as the API writes it. */
function cursorAtDepth(list: ListName, query: Record<string, string>, size: number, prefix: string) {
  const g = Math.floor(size / 2);
  const parsed = QUERIES[list].parse(query) as Record<string, unknown>;
  const at = new Date(Date.parse('2020-01-01T00:00:00Z') + g * 60_000).toISOString().replace('Z', '000Z');
  return writeCursor({
    list,
    filters: filtersHash(parsed, ['limit', 'offset', 'cursor']),
    key: at,
    id: `${prefix}${String(g).padStart(9, '0')}`,
  });
}

/** A GET of `list` with `query`, at the same cost wherever it is MET (`flat`) or reported only. */
const get = (
  list: ListName,
  query: string,
  flat = true,
  label = query || 'first page, unfiltered',
  status?: number,
): Case => ({
  list,
  label: `${list}: ${label}`,
  flat,
  ...(status ? { status } : {}),
  request: () => ({ method: 'GET', path: query ? `${PATHS[list]}?${query}` : PATHS[list] }),
});

/** The first page of the list after a day ago, oldest change first, and a cursor page at half. */
const windowAndCursor = (list: ListName, since: string, extra: Record<string, string> = {}): Case[] => [
  {
    list,
    label: `${list}: ${since}=<a day ago>&sort=updated_at`,
    flat: true,
    request: (n) => ({ method: 'GET', path: `${PATHS[list]}?${since}=${dayBefore(n)}&sort=updated_at` }),
  },
  {
    list,
    label: `${list}: cursor at half the rows`,
    flat: true,
    request: (n, prefix) => ({
      method: 'GET',
      path: `${PATHS[list]}?cursor=${cursorAtDepth(list, extra, n, prefix)}`,
    }),
  },
];

const ALL_CASES: Case[] = [
  get('tickets', ''),
  get('tickets', 'status=open'),
  get('tickets', 'status=open,pending'),
  get('tickets', 'priority=urgent'),
  get('tickets', 'type=incident'),
  get('tickets', 'tag=vip'),
  get('tickets', 'requester_id=eu_7'),
  get('tickets', 'assignee_id=agent_3'),
  {
    list: 'tickets',
    label: 'tickets: created_after=<a day ago>',
    flat: true,
    request: (n) => ({ method: 'GET', path: `/api/v1/tickets?created_after=${dayBefore(n)}` }),
  },
  {
    list: 'tickets',
    label: 'tickets: updated_since=<a day ago>&sort=updated_at',
    flat: true,
    request: (n) => ({
      method: 'GET',
      path: `/api/v1/tickets?updated_since=${dayBefore(n)}&sort=updated_at`,
    }),
  },
  // the SLA filters (schema/0028, 0031): a kept count answers sla_breached's total
  get('tickets', 'sla_breached=true'),
  get('tickets', 'sort=sla_due_at', false, 'sort=sla_due_at (the queue: its total counted)'),
  // ticket fields through the tenant-first GIN index: one ticket's value, and a third's (counted exactly)
  get('tickets', 'custom_fields.order_ref=ord-77'),
  get('tickets', 'custom_fields.plan=gold', false, 'custom_fields.plan=gold (a third: counted exactly)'),
  // a kept pair (schema/0035_pair_counts.sql): its total is read, not counted; three filters count
  get('tickets', 'status=open&priority=urgent', true, 'status=open&priority=urgent (a kept pair)'),
  get(
    'tickets',
    'status=open&priority=urgent&type=incident',
    false,
    'status=open&priority=urgent&type=incident (three: counted)',
  ),
  {
    list: 'tickets',
    label: 'tickets: offset=<half the rows>',
    flat: false,
    request: (n) => ({ method: 'GET', path: `/api/v1/tickets?offset=${Math.floor(n / 2)}` }),
  },
  {
    list: 'tickets',
    label: 'tickets: cursor at half the rows',
    flat: true,
    request: (n, prefix) => ({
      method: 'GET',
      path: `/api/v1/tickets?cursor=${cursorAtDepth('tickets', {}, n, prefix)}`,
    }),
  },
  {
    list: 'tickets',
    label: 'tickets: status=open, cursor at half',
    flat: true,
    // a position need not be a matching row: the page is the matching rows after it
    request: (n, prefix) => ({
      method: 'GET',
      path: `/api/v1/tickets?status=open&cursor=${cursorAtDepth('tickets', { status: 'open' }, n, prefix)}`,
    }),
  },
  {
    list: 'tickets',
    label: 'tickets: read one ticket',
    flat: true,
    request: (_, prefix) => ({ method: 'GET', path: `/api/v1/tickets/${prefix}000000077` }),
  },
  {
    list: 'tickets',
    label: 'tickets: create a ticket',
    flat: true,
    request: () => ({
      method: 'POST',
      path: '/api/v1/tickets',
      body: { subject: 'Bench ticket', priority: 'high' },
    }),
  },

  get('calls', ''),
  get('calls', 'outcome=escalated'),
  get('calls', 'outcome=escalated,hung_up'),
  get('calls', 'direction=outbound'),
  get('calls', 'channel=sip'),
  get('calls', 'status=completed'),
  get('calls', 'caller_phone=%2B15550000007'),
  ...windowAndCursor('calls', 'updated_since'),
  get('calls', 'channel=sip&status=completed', true, 'channel=sip&status=completed (a kept pair)'),

  get('conversations', ''),
  get('conversations', 'status=open'),
  get('conversations', 'channel=whatsapp'),
  get('conversations', 'assignee_user_id=usr_3'),
  get('conversations', 'assignee_team_id=team_3'),
  {
    list: 'conversations',
    label: 'conversations: contact_id=<a contact of 1/500>',
    flat: true,
    request: (n) => ({
      method: 'GET',
      path: `/api/v1/conversations?contact_id=${prefixOfSize('contacts', n)}000000007`,
    }),
  },
  ...windowAndCursor('conversations', 'updated_since'),
  get('conversations', 'status=open&channel=email', true, 'status=open&channel=email (a kept pair)'),

  get('contacts', ''),
  get('contacts', 'include_deleted=true'),
  get('contacts', 'tag=vip'),
  {
    list: 'contacts',
    label: 'contacts: company_id=<one of 100>',
    flat: true,
    request: (n) => ({
      method: 'GET',
      path: `/api/v2/contacts?company_id=${prefixOfSize('contacts', n).replace(/^ctc_/, 'cmp_')}000000007`,
    }),
  },
  // q reads the rows holding every trigram of the pattern (this tenant's only): a pattern in no row
  // stays flat, one whose trigrams are in a share of the rows grows with them (docs/benchmarks.md)
  get('contacts', 'q=zebra', true, 'q=zebra (no row has its trigrams)'),
  get('contacts', 'q=p77777%40', false, "q=<one contact's email> (its trigrams in ~1% of rows)"),
  get('contacts', 'q=Last777', false, 'q=Last777 (1/1000 of the rows match)'),
  // no 3 letters or digits in a row: no trigram to look up, refused before any query
  get('contacts', 'q=77', true, 'q=77 (refused: 422, no trigram)', 422),
  ...windowAndCursor('contacts', 'updated_since'),
  // company 11 of 100 holds every tenth row, each tagged vip; company 7 none of them
  {
    list: 'contacts',
    label: 'contacts: tag=vip&company_id=<one of 100, all vip> (a kept pair)',
    flat: true,
    request: (n) => ({
      method: 'GET',
      path: `/api/v2/contacts?tag=vip&company_id=${prefixOfSize('contacts', n).replace(/^ctc_/, 'cmp_')}000000011`,
    }),
  },
  {
    list: 'contacts',
    label: 'contacts: tag=vip&company_id=<one of 100, no vip> (a kept pair of 0)',
    flat: true,
    request: (n) => ({
      method: 'GET',
      path: `/api/v2/contacts?tag=vip&company_id=${prefixOfSize('contacts', n).replace(/^ctc_/, 'cmp_')}000000007`,
    }),
  },
];
const CASES = ALL_CASES.filter((c) => LISTS.includes(c.list));

/** The tenant label of each size (`s0`, `s1`, ...), for ids a request names before it knows its tenant. */
const prefixOfSize = (list: ListName, size: number) => prefixOf(list, `s${SIZES.indexOf(size)}`);

async function main() {
  await admin(`CREATE DATABASE ${DB_NAME}`);
  const config = loadConfig({
    ...SECRETS,
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
    else await admin(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  }
}

async function run(runtime: Awaited<ReturnType<typeof createEmbeddedRuntime>>) {
  const call = async (
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
    expected?: number,
  ) => {
    const res = await runtime.app.request(path, {
      method,
      headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (expected ? res.status !== expected : res.status >= 300)
      throw new Error(`${method} ${path}: ${res.status} ${text}`);
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
    await seedTenant(db, id, `o${i}`, OTHER_ROWS, () => {});
  }
  console.log(
    `other tenants: ${OTHER_TENANTS} x ${OTHER_ROWS} rows of ${LISTS.join(', ')} in ${seconds(t0)} s`,
  );

  // one tenant per size, with an API key (the v1 lists) and a dashboard session (the contacts)
  const tenants: {
    size: number;
    label: string;
    apiKey: Record<string, string>;
    session: Record<string, string>;
  }[] = [];
  for (const [i, size] of SIZES.entries()) {
    const body = { name: `Bench ${size}`, plan: 'enterprise', environment: 'production' };
    const tenant = await call('POST', '/api/v1/tenants', superAdmin, body);
    const admin = { authorization: `Bearer ${await sign(tenant.id, 'tenant_admin')}` };
    const keyBody = {
      name: 'bench',
      scopes: ['tickets:read', 'tickets:write', 'calls:read', 'conversations:read'],
    };
    const { api_key } = await call('POST', '/api/v1/api-keys', admin, keyBody);
    const label = `s${i}`;
    // the ticket fields the seeded custom_fields hold (the list checks its filters against them)
    await sql`
      INSERT INTO ticket_fields (id, tenant_id, key, label, type, options)
      VALUES (${`tf_${label}_plan`}, ${tenant.id}, 'plan', 'Plan', 'dropdown', ARRAY['gold','silver','bronze']),
             (${`tf_${label}_order`}, ${tenant.id}, 'order_ref', 'Order', 'text', ARRAY[]::text[])`.execute(
      db,
    );
    await seedTenant(db, tenant.id, label, size, (m) =>
      console.log(`tenant of ${size.toLocaleString('en')}: ${m}`),
    );
    tenants.push({ size, label, apiKey: { 'x-api-key': api_key }, session: admin });
  }
  t0 = performance.now();
  for (const table of ['tickets', 'calls', 'conversations', 'contacts', 'companies', 'list_filter_counts'])
    await sql`VACUUM ANALYZE ${sql.table(table)}`.execute(db);
  console.log(`VACUUM ANALYZE in ${seconds(t0)} s`);

  printGrowth(await timeCases(call, tenants));
}

type Call = (
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
  expected?: number,
) => Promise<unknown>;
interface BenchTenant {
  size: number;
  label: string;
  apiKey: Record<string, string>;
  session: Record<string, string>;
}

/** Every case against every size in turn, printed as it completes: p50/p99 per case and size. */
async function timeCases(call: Call, tenants: BenchTenant[]) {
  const results = new Map<string, Map<number, { p50: number; p99: number }>>();
  console.log(
    `\n${'request'.padEnd(LABEL)}${tenants.map((t) => `p50/p99 @${fmt(t.size)}`.padStart(22)).join('')}`,
  );
  for (const c of CASES) {
    const requests = tenants.map((t) => ({
      ...c.request(t.size, prefixOf(c.list, t.label)),
      headers: c.list === 'contacts' ? t.session : t.apiKey,
    }));
    const times = requests.map(() => [] as number[]);
    for (let i = 0; i < ITER + 5; i++)
      for (const [k, r] of requests.entries()) {
        const start = performance.now();
        await call(r.method, r.path, r.headers, r.body, c.status);
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
    console.log(`${c.label.padEnd(LABEL)}${cells.join('')}`);
  }
  return results;
}

const LABEL = 64;
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
    'request'.padEnd(LABEL) +
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
      c.label.padEnd(LABEL) +
        [base, ...larger].map((s) => p50(s).toFixed(2).padStart(12)).join('') +
        factors.map((f) => `${f.toFixed(2)}x`.padStart(10)).join('') +
        `  ${verdict}`,
    );
  }
  console.log(missed === 0 ? '\nevery flat case MET' : `\n${missed} flat case(s) MISSED`);
}

await main();
