import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresHandle, LISTENER_APPLICATION_NAME } from '../../shared/db/adapters/pg';
import type { DatabaseHandle } from '../../shared/db/handle';
import {
  type Harness,
  postgresUnavailable,
  startHarness,
  TEST_DB,
  type TestTenant,
} from '../support/harness';

// GET /api/v1/tickets/{id} is served from a process-local cache (shared/db/row-cache.ts). Whatever
// path changes a ticket, the next read must show it.
describe.skipIf(postgresUnavailable())('ticket reads through the row cache', () => {
  let h: Harness;
  let t: TestTenant;
  let key: string;

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    key = await t.key(['tickets:read', 'tickets:write']);
  });
  afterAll(() => h?.close());

  const create = async (subject: string) => {
    const res = await h.request('POST', '/api/v1/tickets', { apiKey: key, body: { subject } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const read = (id: string, apiKey = key) => h.request('GET', `/api/v1/tickets/${id}`, { apiKey });
  const version = () => h.handle.writes?.current();

  it('a second read of an unchanged ticket is served without moving the write version', async () => {
    const id = await create('cached');
    const before = version();
    expect((await read(id)).body.subject).toBe('cached');
    expect((await read(id)).body.subject).toBe('cached');
    expect(version()).toBe(before);
  });

  it('a PATCH through the API is seen by the next read', async () => {
    const id = await create('before patch');
    await read(id);
    const patched = await h.request('PATCH', `/api/v1/tickets/${id}`, {
      apiKey: key,
      body: { subject: 'after patch', priority: 'urgent' },
    });
    expect(patched.status).toBe(200);
    expect((await read(id)).body).toMatchObject({ subject: 'after patch', priority: 'urgent' });
  });

  it('a reply (reply_count) is seen by the next read', async () => {
    const id = await create('reply count');
    expect((await read(id)).body.reply_count).toBe(0);
    const reply = await h.request('POST', `/api/v1/tickets/${id}/replies`, {
      apiKey: key,
      body: { body: 'hello' },
    });
    expect(reply.status).toBe(201);
    expect((await read(id)).body.reply_count).toBe(1);
  });

  it('a direct SQL update, in and out of a transaction, is seen by the next read', async () => {
    const id = await create('direct');
    await read(id);
    await sql`UPDATE tickets SET subject = 'by sql' WHERE id = ${id}`.execute(h.db);
    expect((await read(id)).body.subject).toBe('by sql');
    await h.db.transaction().execute(async (trx) => {
      await trx.updateTable('tickets').set({ subject: 'in a transaction' }).where('id', '=', id).execute();
    });
    expect((await read(id)).body.subject).toBe('in a transaction');
    await h.handle.exec(`UPDATE tickets SET subject = 'by script' WHERE id = '${id}'`);
    expect((await read(id)).body.subject).toBe('by script');
  });

  it('a transaction moves the version at its write and again at its commit or rollback', async () => {
    const id = await create('versions');
    const start = version()!;
    let during = -1;
    await h.db.transaction().execute(async (trx) => {
      await trx.updateTable('tickets').set({ subject: 'v' }).where('id', '=', id).execute();
      during = version()!;
    });
    expect(during).toBeGreaterThan(start);
    expect(version()).toBeGreaterThan(during);

    const beforeRollback = version()!;
    await expect(
      h.db.transaction().execute(async (trx) => {
        await trx.updateTable('tickets').set({ subject: 'rolled back' }).where('id', '=', id).execute();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(version()).toBeGreaterThan(beforeRollback + 1);
    expect((await read(id)).body.subject).toBe('v');
  });

  it('writes to unrelated tables (usage rows, key touches) leave cached tickets alone', async () => {
    const before = version();
    await h.db
      .updateTable('api_keys')
      .set({ last_used_at: new Date() })
      .where('tenant_id', '=', t.id)
      .execute();
    await read(await create('x')); // creating moves it; reading again must not
    const after = version();
    await h.db
      .updateTable('api_keys')
      .set({ last_used_at: new Date() })
      .where('tenant_id', '=', t.id)
      .execute();
    expect(version()).toBe(after);
    expect(after).not.toBe(before);
  });

  it("deleting the linked call clears the ticket's call_id (a foreign-key action) on the next read", async () => {
    const call = await h.request('POST', '/api/internal/calls', {
      bearer: h.config.INTERNAL_API_TOKEN,
      body: { tenant_id: t.id },
    });
    expect(call.status).toBe(201);
    const created = await h.request('POST', '/api/v1/tickets', {
      apiKey: key,
      body: { subject: 'from a call', call_id: call.body.id },
    });
    expect(created.status).toBe(201);
    expect((await read(created.body.id)).body.call_id).toBe(call.body.id);
    await h.db.deleteFrom('calls').where('id', '=', call.body.id).execute();
    expect((await read(created.body.id)).body.call_id).toBeNull();
  });

  it("another tenant's key never gets a cached ticket", async () => {
    const id = await create('tenant a');
    await read(id);
    const other = await h.tenant();
    const otherKey = await other.key(['tickets:read']);
    const res = await read(id, otherKey);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Ticket not found' });
  });
});

// Several processes on one Postgres: a write by another process reaches this one's cache through
// LISTEN/NOTIFY (schema/0008_change_notify.sql).
describe.skipIf(TEST_DB !== 'postgres' || postgresUnavailable())('row cache across processes', () => {
  let h: Harness;
  let other: DatabaseHandle;
  let key: string;

  beforeAll(async () => {
    h = await startHarness();
    other = createPostgresHandle(h.databaseUrl!, { max: 1 });
    key = await (await h.tenant()).key(['tickets:read', 'tickets:write']);
  });
  afterAll(async () => {
    await other?.close();
    await h?.close();
  });

  const until = async (check: () => Promise<boolean>, ms = 5_000) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (await check()) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  };

  it('listens before it caches, and sees a write made through another handle', async () => {
    expect(await until(async () => h.handle.writes?.current() !== null)).toBe(true);
    const created = await h.request('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'one' } });
    const id = created.body.id as string;
    const read = async () => (await h.request('GET', `/api/v1/tickets/${id}`, { apiKey: key })).body.subject;
    expect(await read()).toBe('one');
    const cachedAt = h.handle.writes?.current();
    await other.db.updateTable('tickets').set({ subject: 'two' }).where('id', '=', id).execute();
    expect(await until(async () => h.handle.writes?.current() !== cachedAt)).toBe(true);
    expect(await read()).toBe('two');
  });

  it('stands aside while it cannot hear other writers (listener connection killed)', async () => {
    const before = h.handle.writes?.current();
    expect(before).not.toBeNull();
    // found by its name: the session's last statement is a lease renewal as often as its LISTEN
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = ${LISTENER_APPLICATION_NAME}
        AND pid <> pg_backend_pid()`.execute(other.db);
    // the listener's own handle is the harness's: its LISTEN connection is gone until it reconnects
    expect(await until(async () => h.handle.writes?.current() === null, 3_000)).toBe(true);
    expect(await until(async () => h.handle.writes?.current() !== null, 5_000)).toBe(true);
  });
});
