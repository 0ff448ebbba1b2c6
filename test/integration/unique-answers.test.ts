import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorAnswerOf, UNIQUE_INDEX_ERRORS } from '../../shared/http/errors';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

/**
 * Two requests that both pass a handler's uniqueness check before either commits meet the unique
 * index instead. The second must hear what the check would have said (shared/http/errors.ts,
 * UNIQUE_INDEX_ERRORS), not the generic 409. A race cannot be ordered from outside, so each case
 * makes the index itself refuse a copy of a row the API created, with the driver's real error, and
 * compares that error's answer with the API's answer to the same duplicate sent again.
 */
describe.skipIf(postgresUnavailable())('a unique index answers as the check before it', () => {
  let h: Harness;
  let t: TestTenant;

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
  });
  afterAll(() => h?.close());

  interface Case {
    index: string;
    table: string;
    path: string;
    body: () => Record<string, unknown>;
    /** the credential: the tenant admin's session, or none (an end user's registration) */
    session: boolean;
    idOf: (body: any) => string;
  }
  const CASES: Case[] = [
    {
      index: 'ticket_fields_tenant_id_key_key',
      table: 'ticket_fields',
      path: '/api/v2/ticket-fields',
      body: () => ({ key: 'plan_tier', label: 'Plan tier', type: 'text' }),
      session: true,
      idOf: (b) => b.id,
    },
    {
      index: 'contacts_tenant_email_live_idx',
      table: 'contacts',
      path: '/api/v2/contacts',
      body: () => ({ first_name: 'Ana', email: 'ana@unique.example' }),
      session: true,
      idOf: (b) => b.id,
    },
    {
      index: 'contacts_tenant_external_live_idx',
      table: 'contacts',
      path: '/api/v2/contacts',
      body: () => ({ first_name: 'Rui', external_id: 'crm-42' }),
      session: true,
      idOf: (b) => b.id,
    },
    {
      index: 'end_users_tenant_email_idx',
      table: 'end_users',
      path: '/api/v1/app/auth/register',
      body: () => ({ tenant_id: t.id, email: 'eve@unique.example', password: 'correct horse battery' }),
      session: false,
      idOf: (b) => b.user.id,
    },
  ];

  it('every index named there exists in the migrated schema', async () => {
    const { rows } = await sql<{ indexname: string }>`
      SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()`.execute(h.db);
    const names = new Set(rows.map((r) => r.indexname));
    expect(Object.keys(UNIQUE_INDEX_ERRORS).filter((name) => !names.has(name))).toEqual([]);
    expect(CASES.map((c) => c.index).sort()).toEqual(Object.keys(UNIQUE_INDEX_ERRORS).sort());
  });

  it.each(CASES.map((c) => [c.index, c] as const))('%s', async (_name, c) => {
    const send = () =>
      h.request('POST', c.path, { ...(c.session ? { bearer: t.adminToken } : {}), body: c.body() });
    const first = await send();
    expect(first.status, first.text).toBe(201);
    const checked = await send();
    expect(checked.status).toBeGreaterThanOrEqual(400);

    // the row as it is under another id (generated columns are the database's to fill)
    const { rows: columns } = await sql<{ column_name: string }>`
      SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ${c.table} AND is_generated = 'NEVER'`.execute(
      h.db,
    );
    const names = columns.map((col) => col.column_name);
    const values = names.map((name) => (name === 'id' ? sql`'copy_' || id` : sql.ref(name)));
    const copied = await sql`
      INSERT INTO ${sql.table(c.table)} (${sql.join(names.map((name) => sql.ref(name)))})
      SELECT ${sql.join(values)} FROM ${sql.table(c.table)} WHERE id = ${c.idOf(first.body)}`
      .execute(h.db)
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect((copied as { constraint?: string } | null)?.constraint, String(copied)).toBe(c.index);
    const answer = errorAnswerOf(copied, { path: c.path });
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: checked.status,
      body: checked.body,
    });
  });
});
