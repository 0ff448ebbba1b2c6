import { type CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCompanies, listContacts } from '../../functions/contacts/data';
import { ListCompaniesQuery, ListContactsQuery } from '../../functions/contacts/schemas';
import { listTickets } from '../../functions/tickets/data';
import { ListTicketsQuery } from '../../functions/tickets/schemas';
import { filtersHash, writeCursor } from '../../shared/db/paging';
import type { Database } from '../../shared/db/schema';
import { customFieldFilters, ticketFieldDefs } from '../../shared/helpdesk/fields';
import { type Harness, postgresUnavailable, startHarness, TEST_DB } from '../support/harness';
import { mostRowsRemoved, rowsRead } from '../support/plans';

/**
 * A list filtered by a tag or a custom field's value (conditions only a GIN index serves) reads
 * about as many rows for a value one row carries as for one a third of the rows carry. The planner
 * guesses such a condition's matches (about 0.5% of the rows, whatever the value), so a small page
 * of a rare value was read by walking the tenant's newest-first index and filtering out every row
 * of it. Postgres only: the plans are Postgres's. EXPLAIN ANALYZE of every statement a list runs
 * (first page with its total, a cursor page) counts the rows its filters threw away; the pages
 * themselves are compared with the same filter written plainly.
 */

const ROWS = 60_000;
const TENANT = 'ten_rare_a';
const OTHER = 'ten_rare_b';
const EACH_ROW = sql`FROM (VALUES (1, ${TENANT}, ${ROWS}::int), (2, ${OTHER}, 20000)) AS t (n, id, rows),
                     generate_series(1, t.rows) AS g`;
const AT = sql`timestamptz '2026-01-01' + g * interval '1 minute'`;
/** at most this many rows thrown away by any statement: a twentieth of the tenant's */
const MOST_REMOVED = ROWS / 20;

type Table = 'tickets' | 'contacts' | 'companies';

describe.skipIf(TEST_DB !== 'postgres' || postgresUnavailable())(
  'lists filtered by a rare tag or custom field value',
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
      // a third on each plan and each its own order reference; a tenth tagged vip, one tagged rare
      const tags = sql`CASE WHEN g = 777 THEN ARRAY['rare'] WHEN g % 10 = 0 THEN ARRAY['vip'] ELSE ARRAY['std'] END`;
      await sql`
        INSERT INTO tickets (id, tenant_id, subject, tags, created_by, custom_fields, created_at, updated_at)
        SELECT 'tkt_' || t.n || '_' || g, t.id, 's', ${tags}, 'seed',
               jsonb_build_object('plan', (ARRAY['gold', 'silver', 'bronze'])[1 + g % 3], 'order_ref', 'ord-' || g),
               ${AT}, ${AT}
          ${EACH_ROW}`.execute(db);
      await sql`
        INSERT INTO contacts (id, tenant_id, first_name, email, tags, custom_attrs, created_at, updated_at)
        SELECT 'ctc_' || t.n || '_' || g, t.id, 'Name' || g, 'p' || g || '@example.com', ${tags}, '{}', ${AT}, ${AT}
          ${EACH_ROW}`.execute(db);
      await sql`
        INSERT INTO companies (id, tenant_id, name, tags, custom_attrs, created_at, updated_at)
        SELECT 'cmp_' || t.n || '_' || g, t.id, 'Company ' || g, ${tags}, '{}', ${AT}, ${AT}
          ${EACH_ROW}`.execute(db);
      await sql`ANALYZE tickets, contacts, companies, ticket_filter_counts, list_filter_counts`.execute(db);
    }, 600_000);
    afterAll(async () => {
      await db?.destroy();
      await h?.close();
    });

    const mostRemoved = (query: CompiledQuery) => mostRowsRemoved(db, query);

    /** The ids the filter matches, in the list's order (newest first), written plainly. */
    async function expectedIds(table: Table, where: ReturnType<typeof sql>) {
      const rows = await sql<{ id: string }>`
        SELECT id FROM ${sql.table(table)} WHERE tenant_id = ${TENANT} AND ${where}
         ORDER BY created_at DESC, id DESC`.execute(db);
      return rows.rows.map((r) => r.id);
    }

    type Lister = (
      cursor?: string,
    ) => Promise<{ rows: { id: string }[]; total: number | null; next: { key: string; id: string } | null }>;

    /**
     * Runs the first page and, when there is a next one, the cursor page after it: the same rows as
     * `expected`, and no statement over `table` throws away more than MOST_REMOVED rows.
     */
    async function expectServed(label: string, table: Table, run: Lister, expected: string[], limit: number) {
      captured.length = 0;
      const first = await run();
      expect(
        first.rows.map((r) => r.id),
        `${label}: first page`,
      ).toEqual(expected.slice(0, limit));
      expect(first.total, `${label}: total`).toBe(expected.length);
      if (first.next) {
        const cursor = writeCursor({ list: 'x', filters: filtersHash({}, []), ...first.next });
        const second = await run(cursor);
        expect(
          second.rows.map((r) => r.id),
          `${label}: cursor page`,
        ).toEqual(expected.slice(limit, 2 * limit));
      }
      const statements = captured.filter((q) => new RegExp(`from "${table}"`).test(q.sql));
      expect(statements.length, `${label}: statements over ${table}`).toBeGreaterThanOrEqual(1);
      const failures: string[] = [];
      for (const q of statements) {
        const removed = await mostRemoved(q);
        if (removed > MOST_REMOVED) failures.push(`${label}: ${removed} rows filtered out by ${q.sql}`);
      }
      expect(failures).toEqual([]);
    }

    const tickets =
      (input: Record<string, string>, custom: Record<string, string> = {}) =>
      async (cursor?: string) => {
        const query = { ...ListTicketsQuery.parse(input), cursor };
        const keys = Object.keys(custom).length
          ? customFieldFilters(await ticketFieldDefs(db, TENANT), TENANT, custom)
          : undefined;
        return listTickets(db, TENANT, { ...query, custom_fields: keys });
      };

    // a page of one or two rows: a lookup ("the ticket of this order"), where the planner's guess
    // of 0.5% makes the walk look cheapest from a few ten thousand rows on
    for (const limit of [1, 2]) {
      it(`tickets, limit=${limit}: a rare and a common custom field value and tag`, async () => {
        const page = { limit: String(limit) };
        await expectServed(
          'custom_fields.order_ref (one ticket)',
          'tickets',
          tickets(page, { 'custom_fields.order_ref': 'ord-77' }),
          await expectedIds('tickets', sql`custom_fields->>'order_ref' = 'ord-77'`),
          limit,
        );
        await expectServed(
          'custom_fields.order_ref (no ticket)',
          'tickets',
          tickets(page, { 'custom_fields.order_ref': 'ord-none' }),
          [],
          limit,
        );
        await expectServed(
          'custom_fields.plan=gold (a third)',
          'tickets',
          tickets(page, { 'custom_fields.plan': 'gold' }),
          await expectedIds('tickets', sql`custom_fields->>'plan' = 'gold'`),
          limit,
        );
        await expectServed(
          'tag=rare (one ticket)',
          'tickets',
          tickets({ ...page, tag: 'rare' }),
          await expectedIds('tickets', sql`'rare' = ANY (tags)`),
          limit,
        );
        await expectServed(
          'tag=vip (a tenth)',
          'tickets',
          tickets({ ...page, tag: 'vip' }),
          await expectedIds('tickets', sql`'vip' = ANY (tags)`),
          limit,
        );
        await expectServed(
          'tag=rare with custom_fields.plan (one ticket, two conditions)',
          'tickets',
          tickets({ ...page, tag: 'rare' }, { 'custom_fields.plan': 'bronze' }),
          await expectedIds('tickets', sql`'rare' = ANY (tags) AND custom_fields->>'plan' = 'bronze'`),
          limit,
        );
      }, 120_000);

      it(`contacts and companies, limit=${limit}: a rare and a common tag`, async () => {
        for (const tag of ['rare', 'vip']) {
          const input = { limit: String(limit), tag };
          await expectServed(
            `contacts tag=${tag}`,
            'contacts',
            (cursor) => listContacts(db, TENANT, { ...ListContactsQuery.parse(input), cursor }),
            await expectedIds('contacts', sql`${tag} = ANY (tags)`),
            limit,
          );
          await expectServed(
            `companies tag=${tag}`,
            'companies',
            (cursor) => listCompanies(db, TENANT, { ...ListCompaniesQuery.parse(input), cursor }),
            await expectedIds('companies', sql`${tag} = ANY (tags)`),
            limit,
          );
        }
      }, 120_000);
    }

    it('an offset page of a rare value past its matches is empty, of a common one the plain order', async () => {
      const gold = await expectedIds('tickets', sql`custom_fields->>'plan' = 'gold'`);
      const deep = await tickets({ limit: '5', offset: '40' }, { 'custom_fields.plan': 'gold' })();
      expect(deep.rows.map((r) => r.id)).toEqual(gold.slice(40, 45));
      const past = await tickets({ limit: '5', offset: '3' }, { 'custom_fields.order_ref': 'ord-77' })();
      expect(past).toEqual({ rows: [], total: 1, next: null });
    }, 60_000);

    it('a tag and a status no ticket has together: the kept count answers, no ticket is read', async () => {
      // pending: every ticket not tagged vip, so each filter alone matches thousands, both none
      await sql`UPDATE tickets SET status = 'pending' WHERE tenant_id = ${TENANT} AND NOT ('vip' = ANY (tags))`.execute(
        db,
      );
      await sql`ANALYZE tickets`.execute(db);
      captured.length = 0;
      const none = await tickets({ status: 'pending', tag: 'vip' })();
      expect(none).toEqual({ rows: [], total: 0, next: null });
      const [statement] = captured.filter((q) => /from "tickets"/.test(q.sql));
      expect(await rowsRead(db, statement!, 'tickets')).toBe(0);
      // the same shape with tickets to show is read as before
      captured.length = 0;
      const open = await tickets({ status: 'open', tag: 'vip', limit: '3' })();
      const expected = await expectedIds('tickets', sql`status = 'open' AND 'vip' = ANY (tags)`);
      expect([open.rows.map((r) => r.id), open.total]).toEqual([expected.slice(0, 3), expected.length]);
      const [read] = captured.filter((q) => /from "tickets"/.test(q.sql));
      expect(await rowsRead(db, read!, 'tickets')).toBeGreaterThan(0);
      await sql`UPDATE tickets SET status = 'open' WHERE tenant_id = ${TENANT}`.execute(db);
      await sql`ANALYZE tickets`.execute(db);
    }, 60_000);

    it('a tag and a company no contact has together: the kept count answers, no row is read', async () => {
      // without it the page read every row carrying the tag through the GIN index, to find none
      const company = 'cmp_1_1';
      await sql`UPDATE contacts SET company_id = ${company} WHERE tenant_id = ${TENANT} AND id LIKE 'ctc_1_%1'`.execute(
        db,
      );
      captured.length = 0;
      const input = { tag: 'vip', company_id: company };
      const none = await listContacts(db, TENANT, ListContactsQuery.parse(input));
      expect(none).toEqual({ rows: [], total: 0, next: null });
      expect(captured.filter((q) => /from "contacts"/.test(q.sql)).map((q) => q.sql)).toEqual([]);
      // a pair that has rows is still read and counted
      const std = await listContacts(
        db,
        TENANT,
        ListContactsQuery.parse({ ...input, tag: 'std', limit: '3' }),
      );
      const expected = await expectedIds('contacts', sql`company_id = ${company} AND 'std' = ANY (tags)`);
      expect([std.rows.map((r) => r.id), std.total]).toEqual([expected.slice(0, 3), expected.length]);
      await sql`UPDATE contacts SET company_id = NULL WHERE tenant_id = ${TENANT}`.execute(db);
    }, 60_000);
  },
);
