/**
 * The PGlite pool (test/support/pglite-pool.ts) lends one instance to file after file: each of
 * these fails if a borrower could see what the previous one left, or if an instance whose catalog a
 * test changed were lent again. PGlite only: the postgres tier gives every file its own database.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { borrowPglite, idleInstances } from '../support/pglite-pool';

const template = process.env.TEST_PGLITE_TEMPLATE;

describe.skipIf(process.env.TEST_DB !== 'pglite' || !template)('PGlite pool', () => {
  it('the next borrower finds no rows, settings, temp tables or open transaction of the last', async () => {
    const first = await borrowPglite(template);
    await first.handle.exec(`
      INSERT INTO tenants (id, name, plan, environment) VALUES ('ten_pool_left', 'Left behind', 'starter', 'production');
      SET statement_timeout = 1234;
      CREATE TEMP TABLE left_behind (x int);
    `);
    await sql`BEGIN`.execute(first.handle.db);
    const idleBefore = idleInstances();
    await first.giveBack();
    expect(idleInstances()).toBe(idleBefore + 1);

    const next = await borrowPglite(template);
    expect(idleInstances()).toBe(idleBefore); // the same instance, lent again
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM tenants`.execute(next.handle.db);
    expect(rows[0]!.n).toBe(0);
    const timeout = await sql<{ statement_timeout: string }>`SHOW statement_timeout`.execute(next.handle.db);
    expect(timeout.rows[0]!.statement_timeout).toBe('0');
    const temp = await sql<{ t: string | null }>`SELECT to_regclass('left_behind')::text AS t`.execute(
      next.handle.db,
    );
    expect(temp.rows[0]!.t).toBeNull();
    const migrations = await sql<{ n: number }>`SELECT count(*)::int AS n FROM schema_migrations`.execute(
      next.handle.db,
    );
    expect(migrations.rows[0]!.n).toBeGreaterThan(0); // the migrations' seeded rows survive
    const locales = await sql<{ n: number }>`SELECT count(*)::int AS n FROM search_locales`.execute(
      next.handle.db,
    );
    expect(locales.rows[0]!.n).toBeGreaterThan(0);
    await next.giveBack();
  });

  it.each([
    ['an index added', 'CREATE INDEX pool_extra ON tenants (name)'],
    ['a trigger disabled', 'ALTER TABLE tickets DISABLE TRIGGER ALL'],
    ['a database setting', "ALTER DATABASE template1 SET work_mem = '8MB'"],
    ['a seeded row changed', "DELETE FROM search_locales WHERE language = 'de'"],
    [
      'statistics gathered',
      "INSERT INTO tenants (id, name, plan, environment) VALUES ('ten_pool_stats', 'Stats', 'free', 'production'); ANALYZE tenants",
    ],
  ])('an instance with %s is not lent again', async (_change, statement) => {
    const borrowed = await borrowPglite(template);
    await borrowed.handle.exec(statement);
    const idleBefore = idleInstances();
    await borrowed.giveBack();
    expect(idleInstances()).toBe(idleBefore);
  });

  it("a finished borrower's handle no longer reaches the instance", async () => {
    const borrowed = await borrowPglite(template);
    const { db } = borrowed.handle;
    await borrowed.giveBack();
    const next = await borrowPglite(template);
    await expect(sql`SELECT 1`.execute(db)).rejects.toThrow();
    await next.giveBack();
  });
});
