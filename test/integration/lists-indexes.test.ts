import { type CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEntries } from '../../functions/audit/data';
import { AuditListQuery } from '../../functions/audit/schemas';
import { listCalls } from '../../functions/calls/data';
import { ListCallsQuery } from '../../functions/calls/schemas';
import { listCompanies, listContacts } from '../../functions/contacts/data';
import { ListCompaniesQuery, ListContactsQuery } from '../../functions/contacts/schemas';
import { conversationPage } from '../../functions/conversations/data';
import { ListConversationsQuery } from '../../functions/conversations/schemas';
import { listTickets } from '../../functions/tickets/data';
import { ListTicketsQuery } from '../../functions/tickets/schemas';
import { findCursor, listDeliveries, type WebhookRow } from '../../functions/webhooks/data';
import { filtersHash, writeCursor } from '../../shared/db/paging';
import type { Database } from '../../shared/db/schema';
import { type Harness, postgresUnavailable, startHarness, TEST_DB } from '../support/harness';

/**
 * Every documented filter of every list that takes cursors is served by an index that starts with
 * the tenant: EXPLAIN of the queries the list runs (the first page and its total, and a cursor page)
 * shows no sequential scan of a large table. Postgres only: the plans are Postgres's, over tables
 * seeded with twenty thousand rows in three tenants and ANALYZEd, so the planner chooses as it
 * would in production (on a few rows a sequential scan is the right plan, and would prove nothing).
 */

// The tenant whose lists are planned holds a tenth of each table, as any one tenant of a shared
// database does: a filter without a tenant-first index then plans a sequential scan of the others'
// rows, which is what this test exists to catch. (A tenant holding most of a table may rightly be
// read sequentially: its rows are most of the table.)
const ROWS = 2_000;
const OTHERS = 9_000;
const TENANT = 'ten_explain_a';
/** the seed's generated rows: `g` = 1..rows of each tenant `t` (the planned one, then two others) */
const EACH_ROW = sql`FROM (VALUES (1, ${TENANT}, ${ROWS}::int), (2, 'ten_explain_b', ${OTHERS}::int),
                          (3, 'ten_explain_c', ${OTHERS}::int)) AS t (n, id, rows),
                     generate_series(1, t.rows) AS g`;
/** row g's time: one a minute */
const AT = sql`timestamptz '2026-01-01' + g * interval '1 minute'`;
const LARGE = [
  'tickets',
  'calls',
  'conversations',
  'contacts',
  'companies',
  'audit_log',
  'webhook_deliveries',
];
const PAGE_KEYS = new Set(['limit', 'offset', 'cursor', 'sort', 'include_deleted']);
const instant = '2026-11-01T00:00:00Z';

type Lister = (db: Kysely<Database>, tenantId: string, query: any) => Promise<{ next: unknown }>;
interface ListCase {
  name: string;
  schema: { shape: Record<string, unknown>; parse(input: unknown): any };
  list: Lister;
  /** one value per documented filter (a filter without one fails the test) */
  samples: Record<string, string>;
}

const LISTS: ListCase[] = [
  {
    name: 'tickets',
    schema: ListTicketsQuery,
    list: listTickets,
    samples: {
      status: 'pending',
      priority: 'urgent',
      type: 'incident',
      requester_id: 'req_7',
      assignee_id: 'agent_3',
      assignee_team_id: 'team_3',
      call_id: 'call_9',
      tag: 'vip',
      created_after: instant,
      created_before: instant,
      updated_since: instant,
      sla_breached: 'true',
      sla_due_before: instant,
    },
  },
  {
    name: 'calls',
    schema: ListCallsQuery,
    list: listCalls,
    samples: {
      outcome: 'escalated',
      direction: 'outbound',
      channel: 'sip',
      status: 'in_progress',
      caller_phone: '+15550000007',
      ticket_id: 'tkt_9',
      started_after: instant,
      started_before: instant,
      updated_since: instant,
    },
  },
  {
    name: 'conversations',
    schema: ListConversationsQuery,
    list: conversationPage,
    samples: {
      status: 'waiting',
      channel: 'whatsapp',
      contact_id: 'ctc_7',
      assignee_user_id: 'usr_3',
      assignee_team_id: 'team_3',
      updated_since: instant,
      sla_breached: 'true',
      sla_due_before: instant,
    },
  },
  {
    name: 'contacts',
    schema: ListContactsQuery,
    list: listContacts,
    samples: { q: 'ana', tag: 'vip', company_id: 'cmp_7', updated_since: instant },
  },
  { name: 'companies', schema: ListCompaniesQuery, list: listCompanies, samples: { q: 'acme', tag: 'vip' } },
  {
    name: 'audit',
    schema: AuditListQuery,
    list: listAuditEntries,
    samples: {
      action: 'webhook.deleted',
      target_id: 'key_7',
      actor: 'user:u7',
      since: instant,
      until: instant,
    },
  },
];

describe.skipIf(TEST_DB !== 'postgres' || postgresUnavailable())('List filters use the indexes', () => {
  let h: Harness;
  let db: Kysely<Database>;
  const captured: CompiledQuery[] = [];

  beforeAll(async () => {
    h = await startHarness();
    const pool = new pg.Pool({ connectionString: h.databaseUrl, max: 2 });
    db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      log: (event) => {
        if (event.level === 'query') captured.push(event.query);
      },
    });
    for (const tenant of [TENANT, 'ten_explain_b', 'ten_explain_c'])
      await sql`INSERT INTO tenants (id, name, plan, environment) VALUES (${tenant}, ${tenant}, 'pro', 'production')`.execute(
        db,
      );
    await sql`
      INSERT INTO tickets (id, tenant_id, subject, status, priority, type, requester_id, assignee_id, call_id,
                           tags, created_by, created_at, updated_at)
      SELECT 'tkt_' || t.n || '_' || g, t.id, 's',
             (ARRAY['new','open','pending','on_hold','resolved','closed'])[1 + g % 6],
             (ARRAY['low','medium','high','urgent'])[1 + g % 4],
             (ARRAY['question','incident','problem','service_request','change'])[1 + g % 5],
             'req_' || g % 500, 'agent_' || g % 50, NULL,
             CASE WHEN g % 10 = 0 THEN ARRAY['vip'] ELSE ARRAY['std'] END, 'seed',
             ${AT}, ${AT}
        ${EACH_ROW}`.execute(db);
    await sql`
      INSERT INTO calls (id, tenant_id, channel, direction, caller_phone, outcome, ticket_id, started_at,
                         completed_at, created_at, updated_at)
      SELECT 'call_' || t.n || '_' || g, t.id, (ARRAY['phone','sip','web','app'])[1 + g % 4],
             (ARRAY['inbound','outbound'])[1 + g % 2], '+1555' || lpad((g % 500)::text, 7, '0'),
             (ARRAY['ticket_created','status_checked','kb_article','escalated','hung_up','error'])[1 + g % 6], NULL,
             ${AT},
             CASE WHEN g % 3 = 0 THEN NULL ELSE ${AT} END,
             ${AT}, ${AT}
        ${EACH_ROW}`.execute(db);
    await sql`
      INSERT INTO conversations (id, tenant_id, status, channel, assignee_user_id, assignee_team_id, created_at, updated_at)
      SELECT 'conv_' || t.n || '_' || g, t.id, (ARRAY['open','waiting','resolved','closed'])[1 + g % 4],
             (ARRAY['email','widget','whatsapp','phone','api'])[1 + g % 5], 'usr_' || g % 50, 'team_' || g % 20,
             ${AT}, ${AT}
        ${EACH_ROW}`.execute(db);
    await sql`
      INSERT INTO companies (id, tenant_id, name, domain, tags, custom_attrs, created_at, updated_at)
      SELECT 'cmp_' || t.n || '_' || g, t.id, 'Company ' || g, 'c' || g || '.example.com',
             CASE WHEN g % 10 = 0 THEN ARRAY['vip'] ELSE ARRAY['std'] END, '{}',
             ${AT}, ${AT}
        ${EACH_ROW}`.execute(db);
    await sql`
      INSERT INTO contacts (id, tenant_id, first_name, email, company_id, tags, custom_attrs, created_at, updated_at)
      SELECT 'ctc_' || t.n || '_' || g, t.id, 'Name' || g, 'p' || g || '@example.com', 'cmp_' || t.n || '_' || (1 + g % 100),
             CASE WHEN g % 10 = 0 THEN ARRAY['vip'] ELSE ARRAY['std'] END, '{}',
             ${AT}, ${AT}
        ${EACH_ROW}`.execute(db);
    await sql`
      INSERT INTO audit_log (id, tenant_id, actor, action, target_type, target_id, metadata, created_at)
      SELECT 'aud_' || t.n || '_' || g, t.id, 'user:u' || g % 50,
             (ARRAY['api_key.created','api_key.revoked','webhook.created','webhook.deleted'])[1 + g % 4],
             'api_key', 'key_' || g % 500, '{}', ${AT}
        ${EACH_ROW}`.execute(db);
    // one webhook per tenant: the delivery log is read by webhook, the tenant checked beside it
    await sql`
      INSERT INTO webhooks (id, tenant_id, url, events, secret_encrypted)
      SELECT 'whk_explain_' || t.n, t.id, 'https://hooks.example.com/x', ARRAY['*'], 'sealed'
        FROM (VALUES (1, ${TENANT}), (2, 'ten_explain_b'), (3, 'ten_explain_c')) AS t (n, id)`.execute(db);
    await sql`
      INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_type, payload, event_created_at, status,
                                      attempts, created_at)
      SELECT 'dlv_' || t.n || '_' || g, t.id, 'whk_explain_' || t.n, 'ticket.created', '{}',
             ${AT}, 'delivered', 1,
             ${AT}
        ${EACH_ROW}`.execute(db);
    await sql`ANALYZE`.execute(db);
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await h?.close();
  });

  /** The names of the large tables a plan reads by a sequential scan. */
  async function seqScans(query: CompiledQuery): Promise<string[]> {
    const plan = await db.executeQuery<{ 'QUERY PLAN': unknown }>({
      ...query,
      sql: `EXPLAIN (FORMAT JSON) ${query.sql}`,
    });
    const out: string[] = [];
    const walk = (node: Record<string, unknown>) => {
      if (node['Node Type'] === 'Seq Scan' && LARGE.includes(String(node['Relation Name'])))
        out.push(String(node['Relation Name']));
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    const raw = plan.rows[0]!['QUERY PLAN'];
    const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: Record<string, unknown> }[];
    walk(doc[0]!.Plan);
    return out;
  }

  for (const c of LISTS) {
    it(`${c.name}: every documented filter, its first page, total and cursor page, without a sequential scan`, async () => {
      const documented = Object.keys(c.schema.shape).filter((k) => !PAGE_KEYS.has(k));
      expect(Object.keys(c.samples).sort(), 'a sample value for each documented filter').toEqual(
        documented.sort(),
      );
      const failures: string[] = [];
      for (const filter of ['(none)', ...documented]) {
        const input = filter === '(none)' ? {} : { [filter]: c.samples[filter]! };
        const query = c.schema.parse(input);
        captured.length = 0;
        const first = await c.list(db, TENANT, query);
        const cursor = (first as { next: { key: string; id: string } | null }).next;
        if (cursor) {
          const text = writeCursor({
            list: 'x',
            filters: filtersHash({}, []),
            ...cursor,
          });
          await c.list(db, TENANT, { ...query, cursor: text });
        }
        for (const q of [...captured]) {
          const scans = await seqScans(q);
          if (scans.length > 0) failures.push(`${filter}: Seq Scan on ${scans.join(', ')} in ${q.sql}`);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it('q on contacts and companies: the total reads the tenant-first trigram index, not every row of the tenant', {
    timeout: 60_000,
  }, async () => {
    // a tenant large enough that reading its every row costs more than the index (at 2,000 rows
    // the planner rightly reads them all through the tenant's index)
    await sql`
      INSERT INTO companies (id, tenant_id, name, domain, tags, custom_attrs)
      SELECT 'cmp_q_' || g, ${TENANT}, 'Big ' || g, 'b' || g || '.example.org', '{}', '{}'
        FROM generate_series(1, 30000) AS g`.execute(db);
    await sql`
      INSERT INTO contacts (id, tenant_id, first_name, last_name, email, tags, custom_attrs)
      SELECT 'ctc_q_' || g, ${TENANT}, 'Big' || g, 'Person', 'q' || g || '@example.org', '{}', '{}'
        FROM generate_series(1, 30000) AS g`.execute(db);
    await sql`ANALYZE contacts, companies`.execute(db);
    const failures: string[] = [];
    const cases = [
      {
        index: 'contacts_tenant_search_idx',
        run: () => listContacts(db, TENANT, ListContactsQuery.parse({ q: 'Name123' })),
      },
      {
        index: 'contacts_tenant_search_idx',
        run: () => listContacts(db, TENANT, ListContactsQuery.parse({ q: 'p17@example' })),
      },
      {
        index: 'companies_tenant_search_idx',
        run: () => listCompanies(db, TENANT, ListCompaniesQuery.parse({ q: 'c42.exa' })),
      },
    ];
    for (const c of cases) {
      captured.length = 0;
      await c.run();
      const counts = captured.filter((q) => /count\(/.test(q.sql));
      expect(counts).toHaveLength(1);
      const plan = JSON.stringify(
        (await db.executeQuery({ ...counts[0]!, sql: `EXPLAIN (FORMAT JSON) ${counts[0]!.sql}` })).rows,
      );
      if (!plan.includes(`"Index Name":"${c.index}"`)) failures.push(`${c.index} not used: ${plan}`);
    }
    expect(failures).toEqual([]);
  });

  it('the webhook delivery log: first page, `before` and cursor pages read its index as a range', async () => {
    const hook = { id: 'whk_explain_1', tenant_id: TENANT } as WebhookRow;
    captured.length = 0;
    const first = await listDeliveries(db, hook, 50, null);
    const deep = await findCursor(db, hook, 'dlv_1_40');
    await listDeliveries(db, hook, 50, first.next);
    await listDeliveries(db, hook, 50, deep!);
    const queries = [...captured];
    expect(queries).toHaveLength(4);
    const failures: string[] = [];
    for (const q of queries) {
      const scans = await seqScans(q);
      if (scans.length > 0) failures.push(`Seq Scan on ${scans.join(', ')} in ${q.sql}`);
      // a page after a position starts there in the index (an Index Cond), not after filtering every newer row
      const plan = JSON.stringify(
        (await db.executeQuery({ ...q, sql: `EXPLAIN (FORMAT JSON) ${q.sql}` })).rows,
      );
      if (/ < \(/.test(q.sql) && !/"Index Cond":"[^"]*created_at[^"]*id/.test(plan))
        failures.push(`no range on (created_at, id) in ${plan}`);
    }
    expect(failures).toEqual([]);
  });
});
