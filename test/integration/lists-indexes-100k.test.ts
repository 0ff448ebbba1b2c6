import { type CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationPage } from '../../functions/conversations/data';
import { ListConversationsQuery } from '../../functions/conversations/schemas';
import { listTickets } from '../../functions/tickets/data';
import { ListTicketsQuery } from '../../functions/tickets/schemas';
import { filtersHash, writeCursor } from '../../shared/db/paging';
import type { Database } from '../../shared/db/schema';
import { customFieldFilters, ticketFieldDefs } from '../../shared/helpdesk/fields';
import { type Harness, postgresUnavailable, startHarness, TEST_DB } from '../support/harness';

/**
 * The help desk's list filters at 100,000 rows in the tenant (beside another tenant as large):
 * `custom_fields.<key>=<value>` on tickets and `sla_breached` / `sla_due_before` / `sort=sla_due_at`
 * on tickets and conversations. EXPLAIN of every query the list runs (first page, its total, a
 * cursor page) on ANALYZEd tables shows no sequential scan and the index that starts with the tenant
 * serving the filter. Postgres only: the plans are Postgres's (lists-indexes.test.ts does the same
 * for the other filters at 20,000 rows).
 */

const ROWS = 100_000;
const TENANT = 'ten_x100k_a';
const OTHER = 'ten_x100k_b';
const EACH_ROW = sql`FROM (VALUES (1, ${TENANT}), (2, ${OTHER})) AS t (n, id), generate_series(1, ${ROWS}) AS g`;
const AT = sql`timestamptz '2026-01-01' + g * interval '1 minute'`;
/** the instant before which a hundredth of the tenant's due rows fall due */
const DUE_BEFORE = '2026-01-08T00:00:00Z';

describe.skipIf(TEST_DB !== 'postgres' || postgresUnavailable())(
  'help desk and SLA list filters use their indexes at 100,000 rows',
  () => {
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
      for (const tenant of [TENANT, OTHER])
        await sql`INSERT INTO tenants (id, name, plan, environment) VALUES (${tenant}, ${tenant}, 'pro', 'production')`.execute(
          db,
        );
      await sql`
        INSERT INTO ticket_fields (id, tenant_id, key, label, type, options)
        SELECT 'tf_' || t.n || '_' || f.key, t.id, f.key, f.key, f.type, f.options
          FROM (VALUES (1, ${TENANT}), (2, ${OTHER})) AS t (n, id),
               (VALUES ('plan', 'dropdown', ARRAY['gold', 'silver', 'bronze']),
                       ('order_ref', 'text', ARRAY[]::text[])) AS f (key, type, options)`.execute(db);
      // a third of the tickets on each plan, each its own order reference; every other ticket under
      // a policy, a fiftieth of those breached, and one in twenty in the queue: due an hour after
      // its creation, so the earliest due times are the oldest rows (what a newest-first page of
      // `sla_due_before` must not walk the tenant to find)
      await sql`
        INSERT INTO tickets (id, tenant_id, subject, status, priority, type, tags, created_by, custom_fields,
                             sla_policy_id, sla_due_at, sla_breached, created_at, updated_at)
        SELECT 'tkt_' || t.n || '_' || g, t.id, 's', 'open', 'medium', 'question', ARRAY['std'], 'seed',
               jsonb_build_object('plan', (ARRAY['gold', 'silver', 'bronze'])[1 + g % 3], 'order_ref', 'ord-' || g),
               CASE WHEN g % 2 = 0 THEN 'pol_1' END,
               CASE WHEN g % 20 = 0 THEN ${AT} + interval '1 hour' END,
               g % 100 = 0,
               ${AT}, ${AT}
          ${EACH_ROW}`.execute(db);
      await sql`
        INSERT INTO conversations (id, tenant_id, status, channel, sla_policy_id, sla_due_at, sla_breached,
                                   created_at, updated_at)
        SELECT 'conv_' || t.n || '_' || g, t.id, 'open', 'email',
               CASE WHEN g % 2 = 0 THEN 'pol_1' END,
               CASE WHEN g % 20 = 0 THEN ${AT} + interval '1 hour' END,
               g % 100 = 0,
               ${AT}, ${AT}
          ${EACH_ROW}`.execute(db);
      await sql`ANALYZE tickets, conversations, ticket_filter_counts, list_filter_counts`.execute(db);
    }, 600_000);
    afterAll(async () => {
      await db?.destroy();
      await h?.close();
    });

    interface Plan {
      seqScans: string[];
      indexes: string[];
    }
    /** The tables a plan scans sequentially and the indexes it reads. */
    async function planOf(query: CompiledQuery): Promise<Plan> {
      const result = await db.executeQuery<{ 'QUERY PLAN': unknown }>({
        ...query,
        sql: `EXPLAIN (FORMAT JSON) ${query.sql}`,
      });
      const plan: Plan = { seqScans: [], indexes: [] };
      const walk = (node: Record<string, unknown>) => {
        if (node['Node Type'] === 'Seq Scan') plan.seqScans.push(String(node['Relation Name']));
        if (node['Index Name']) plan.indexes.push(String(node['Index Name']));
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
      };
      const raw = result.rows[0]!['QUERY PLAN'];
      const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: Record<string, unknown> }[];
      walk(doc[0]!.Plan);
      return plan;
    }

    /**
     * Runs a list's first page and (when there is one) its cursor page, and checks every statement
     * it ran over `table`: no sequential scan of the large tables, and one of `indexes` read by the
     * page (and by the total when it is counted from the table, not from a kept count).
     */
    async function expectServed(
      label: string,
      table: 'tickets' | 'conversations',
      indexes: string | string[],
      run: (cursor?: string) => Promise<{ next: { key: string; id: string } | null }>,
      pages: 'first' | 'first and cursor' = 'first and cursor',
    ) {
      captured.length = 0;
      const first = await run();
      if (pages === 'first and cursor') {
        expect(first.next, `${label}: a full first page`).not.toBeNull();
        await run(writeCursor({ list: 'x', filters: filtersHash({}, []), ...first.next! }));
      }
      const failures: string[] = [];
      const reading = captured.filter((q) => new RegExp(`from "${table}"`).test(q.sql));
      expect(reading.length, `${label}: statements over ${table}`).toBeGreaterThanOrEqual(
        pages === 'first' ? 1 : 2,
      );
      const wanted = [indexes].flat();
      for (const q of reading) {
        const plan = await planOf(q);
        const large = plan.seqScans.filter((t) => t === 'tickets' || t === 'conversations');
        if (large.length > 0) failures.push(`${label}: Seq Scan on ${large.join(', ')} in ${q.sql}`);
        if (!wanted.some((i) => plan.indexes.includes(i)))
          failures.push(
            `${label}: ${wanted.join(' or ')} not read (${plan.indexes.join(', ') || 'no index'}) by ${q.sql}`,
          );
      }
      expect(failures).toEqual([]);
    }

    const tickets =
      (input: Record<string, string>, custom?: Record<string, string>) => async (cursor?: string) => {
        const query = { ...ListTicketsQuery.parse(input), cursor };
        const custom_fields = custom
          ? customFieldFilters(await ticketFieldDefs(db, TENANT), TENANT, custom)
          : undefined;
        return listTickets(db, TENANT, { ...query, custom_fields });
      };
    const conversations = (input: Record<string, string>) => (cursor?: string) =>
      conversationPage(db, TENANT, { ...ListConversationsQuery.parse(input), cursor });

    it('tickets: custom_fields.<key>=<value> reads the tenant-first custom field index, for a rare and a common value', async () => {
      await expectServed(
        'order_ref (one ticket)',
        'tickets',
        'tickets_tenant_custom_fields_idx',
        tickets({}, { 'custom_fields.order_ref': 'ord-7' }),
        'first',
      );
      // a third of the rows match: walking the tenant's newest rows fills a page as soon
      await expectServed(
        'plan=gold (a third)',
        'tickets',
        ['tickets_tenant_custom_fields_idx', 'tickets_tenant_created_idx'],
        tickets({}, { 'custom_fields.plan': 'gold' }),
      );
    });

    for (const [name, table, run] of [
      ['tickets', 'tickets', tickets] as const,
      ['conversations', 'conversations', conversations] as const,
    ]) {
      it(`${name}: sla_breached, sla_due_before and sort=sla_due_at read the tenant-first SLA indexes`, async () => {
        const breached = `${table}_tenant_sla_breached_created_idx`;
        const due = `${table}_tenant_sla_due_idx`;
        await expectServed(`${name} sla_breached=true`, table, breached, run({ sla_breached: 'true' }));
        // most rows are not breached: walking the tenant's newest rows fills the page as soon
        await expectServed(
          `${name} sla_breached=false`,
          table,
          [breached, `${table}_tenant_created_idx`],
          run({ sla_breached: 'false' }),
        );
        await expectServed(
          `${name} sla_due_before`,
          table,
          [due, `${table}_tenant_sla_due_created_idx`],
          run({ sla_due_before: DUE_BEFORE }),
        );
        await expectServed(`${name} sort=sla_due_at`, table, due, run({ sort: 'sla_due_at' }));
      });
    }
  },
);
