import { type CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type After, searchPage } from '../../functions/search/data';
import type { SearchType } from '../../functions/search/schemas';
import type { Database } from '../../shared/db/schema';
import { parseQuery } from '../../shared/search/query';
import { type Harness, postgresUnavailable, startHarness, TEST_DB } from '../support/harness';
import { mostRowsRemoved } from '../support/plans';

/**
 * A search page of filters alone (`tag:x`, `custom_fields.k:v`, no words) reads about as many rows
 * for a value one row carries as for a common one: the planner guesses such a condition's matches
 * (about 0.5% of the rows, whatever the value), so left to it a small page of a rare value walks
 * the tenant's newest-first index and throws away every other row. Postgres only: the plans are
 * Postgres's. EXPLAIN ANALYZE of every statement of a page counts the rows its filters threw away;
 * the pages are compared with the same filter written plainly.
 */

const ROWS = 30_000;
const TENANT = 'ten_sfp_a';
const OTHER = 'ten_sfp_b';
const EACH_ROW = sql`FROM (VALUES (1, ${TENANT}, ${ROWS}::int), (2, ${OTHER}, 5000)) AS t (n, id, rows),
                     generate_series(1, t.rows) AS g`;
const AT = sql`timestamptz '2026-01-01' + g * interval '1 minute'`;
/** at most this many rows thrown away by any statement: a twentieth of the tenant's */
const MOST_REMOVED = ROWS / 20;

describe.skipIf(TEST_DB !== 'postgres' || postgresUnavailable())('filter-only search pages', () => {
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
      SELECT 'tf_sfp_' || t.n, t.id, 'order_ref', 'order_ref', 'text', ARRAY[]::text[]
        FROM (VALUES (1, ${TENANT}), (2, ${OTHER})) AS t (n, id)`.execute(db);
    const tags = sql`CASE WHEN g = 777 THEN ARRAY['rare'] WHEN g % 10 = 0 THEN ARRAY['vip'] ELSE ARRAY['std'] END`;
    await sql`
      INSERT INTO tickets (id, tenant_id, subject, tags, created_by, custom_fields, created_at, updated_at)
      SELECT 'tkt_sfp_' || t.n || '_' || g, t.id, 's', ${tags}, 'seed',
             jsonb_build_object('order_ref', 'ord-' || g), ${AT}, ${AT}
        ${EACH_ROW}`.execute(db);
    await sql`
      INSERT INTO contacts (id, tenant_id, first_name, email, tags, custom_attrs, created_at, updated_at)
      SELECT 'ctc_sfp_' || t.n || '_' || g, t.id, 'Name' || g, 'p' || g || '@example.com', ${tags}, '{}', ${AT}, ${AT}
        ${EACH_ROW}`.execute(db);
    await sql`ANALYZE tickets, contacts`.execute(db);
  }, 300_000);
  afterAll(async () => {
    await db?.destroy();
    await h?.close();
  });

  const mostRemoved = (query: CompiledQuery) => mostRowsRemoved(db, query);

  async function expectedIds(table: string, where: ReturnType<typeof sql>) {
    const rows = await sql<{ id: string }>`
      SELECT id FROM ${sql.table(table)} WHERE tenant_id = ${TENANT} AND ${where}
       ORDER BY created_at DESC, id DESC`.execute(db);
    return rows.rows.map((r) => r.id);
  }

  /** The first page and the one after it: the plain query's rows, no statement throwing rows away. */
  async function expectServed(query: string, type: SearchType, expected: string[], limit: number) {
    captured.length = 0;
    const search = (after: After | null) =>
      searchPage(
        db,
        { tenantId: TENANT, userId: null },
        parseQuery(query),
        [type],
        'relevance',
        limit,
        after,
      );
    const first = await search(null);
    expect(
      first.hits.map((hit) => (hit.record as { id: string }).id),
      `${query}: first page`,
    ).toEqual(expected.slice(0, limit));
    if (first.next) {
      const second = await search(first.next);
      expect(
        second.hits.map((hit) => (hit.record as { id: string }).id),
        `${query}: next page`,
      ).toEqual(expected.slice(limit, 2 * limit));
    } else expect(expected.length, `${query}: no next page`).toBeLessThanOrEqual(limit);
    const table = type === 'ticket' ? 'tickets' : 'contacts';
    const statements = captured.filter((q) => new RegExp(`from "?${table}"? t`).test(q.sql));
    expect(statements.length, `${query}: statements over ${table}`).toBeGreaterThanOrEqual(1);
    const failures: string[] = [];
    for (const q of statements) {
      const removed = await mostRemoved(q);
      if (removed > MOST_REMOVED) failures.push(`${query}: ${removed} rows filtered out by ${q.sql}`);
    }
    expect(failures).toEqual([]);
  }

  for (const limit of [1, 2, 20]) {
    it(`tickets and contacts, limit=${limit}: a rare and a common tag, a custom field value`, async () => {
      await expectServed('tag:rare', 'ticket', await expectedIds('tickets', sql`'rare' = ANY (tags)`), limit);
      await expectServed('tag:none-has-it', 'ticket', [], limit);
      await expectServed('tag:vip', 'ticket', await expectedIds('tickets', sql`'vip' = ANY (tags)`), limit);
      await expectServed(
        'custom_fields.order_ref:ord-77',
        'ticket',
        await expectedIds('tickets', sql`custom_fields->>'order_ref' = 'ord-77'`),
        limit,
      );
      await expectServed(
        'tag:rare status:open',
        'ticket',
        await expectedIds('tickets', sql`'rare' = ANY (tags) AND status = 'open'`),
        limit,
      );
      await expectServed(
        'tag:rare',
        'contact',
        await expectedIds('contacts', sql`'rare' = ANY (tags)`),
        limit,
      );
    }, 120_000);
  }
});
