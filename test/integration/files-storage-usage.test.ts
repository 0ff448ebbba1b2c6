// The bytes a tenant's files take, kept by triggers (schema/0037_storage_usage.sql) and read by every
// upload's per-plan cap: after each way a file row comes and goes (an upload, a delete through the
// API, a statement over several tenants' files, a hand-made update, the tenant's removal) the kept
// figure equals the sum over the files, and room freed by a delete is room an upload gets.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('storage usage kept per tenant', () => {
  let h: Harness;
  let dir: string;
  let a: TestTenant;
  let b: TestTenant;
  let keyA: string;
  let keyB: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'storage-usage-'));
    h = await startHarness({ DATA_DIR: dir });
    a = await h.tenant({ name: 'A', plan: 'free' });
    b = await h.tenant({ name: 'B' });
    keyA = await a.key(['tickets:read', 'tickets:write']);
    keyB = await b.key(['tickets:read', 'tickets:write']);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const newTicket = async (key: string) => {
    const res = await h.request('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'Files' } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const upload = async (key: string, ticket: string, text: string) => {
    const res = await h.runtime.app.request(`/api/v1/tickets/${ticket}/attachments?filename=n.txt`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'text/plain', 'Content-Length': String(text.length) },
      body: text,
    });
    return { status: res.status, body: (await res.json()) as { id: string; size: number; detail?: string } };
  };
  /** the figure the cap reads, and the sum it stands for */
  const usage = async (tenantId: string) => {
    const kept = await h.db
      .selectFrom('storage_usage')
      .select('bytes')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    const summed = await h.db
      .selectFrom('attachments')
      .select(sql<string>`coalesce(sum(size), 0)`.as('s'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return { kept: Number(kept?.bytes ?? 0), summed: Number(summed.s) };
  };
  const filler = (id: string, tenantId: string, owner: string, size: number) => ({
    id,
    tenant_id: tenantId,
    owner_type: 'ticket' as const,
    owner_id: owner,
    filename: 'filler.bin',
    content_type: 'application/octet-stream',
    size,
    sha256: '0'.repeat(64),
    storage_key: `${tenantId}/${id}`,
  });

  it('follows uploads, deletes, statements over several tenants and hand-made updates', async () => {
    const ticketA = await newTicket(keyA);
    const ticketB = await newTicket(keyB);
    const one = await upload(keyA, ticketA, 'twelve bytes');
    const two = await upload(keyA, ticketA, 'seven b');
    expect([one.status, two.status]).toEqual([201, 201]);
    expect((await upload(keyB, ticketB, 'five!')).status).toBe(201);
    expect(await usage(a.id)).toEqual({ kept: 19, summed: 19 });
    expect(await usage(b.id)).toEqual({ kept: 5, summed: 5 });

    const deleted = await h.request('DELETE', `/api/v1/tickets/${ticketA}/attachments/${one.body.id}`, {
      apiKey: keyA,
    });
    expect(deleted.status).toBe(204);
    expect(await usage(a.id)).toEqual({ kept: 7, summed: 7 });

    // one statement, several files of two tenants: each tenant's figure moves by its own files
    await h.db
      .insertInto('attachments')
      .values([
        filler('att_usage_a1', a.id, ticketA, 1000),
        filler('att_usage_a2', a.id, ticketA, 2000),
        filler('att_usage_b1', b.id, ticketB, 300),
      ])
      .execute();
    expect(await usage(a.id)).toEqual({ kept: 3007, summed: 3007 });
    expect(await usage(b.id)).toEqual({ kept: 305, summed: 305 });
    await h.db.deleteFrom('attachments').where('id', 'in', ['att_usage_a1', 'att_usage_b1']).execute();
    expect(await usage(a.id)).toEqual({ kept: 2007, summed: 2007 });
    expect(await usage(b.id)).toEqual({ kept: 5, summed: 5 });

    // the service never changes a file's size or tenant; a hand-made update is still counted
    await h.db.updateTable('attachments').set({ size: 20 }).where('id', '=', 'att_usage_a2').execute();
    expect(await usage(a.id)).toEqual({ kept: 27, summed: 27 });
    await h.db.updateTable('attachments').set({ tenant_id: b.id }).where('id', '=', 'att_usage_a2').execute();
    expect(await usage(a.id)).toEqual({ kept: 7, summed: 7 });
    expect(await usage(b.id)).toEqual({ kept: 25, summed: 25 });
    // a change to anything else leaves the figure alone
    await h.db
      .updateTable('attachments')
      .set({ filename: 'renamed.bin' })
      .where('tenant_id', '=', b.id)
      .execute();
    expect(await usage(b.id)).toEqual({ kept: 25, summed: 25 });
  });

  it('room freed by a delete is room an upload gets', async () => {
    const ticket = await newTicket(keyA);
    const { kept } = await usage(a.id);
    // the free plan keeps 100 MiB: fill it to ten bytes short
    await h.db
      .insertInto('attachments')
      .values(filler('att_usage_full', a.id, ticket, 100 * 1024 * 1024 - 10 - kept))
      .execute();
    const refused = await upload(keyA, ticket, 'more than ten bytes');
    expect(refused.status).toBe(413);
    expect(refused.body.detail).toBe('Storage limit reached: the free plan keeps at most 100 MiB of files');
    await h.db.deleteFrom('attachments').where('id', '=', 'att_usage_full').execute();
    expect((await upload(keyA, ticket, 'more than ten bytes')).status).toBe(201);
  });

  it("a tenant's removal takes its figure with it", async () => {
    const c = await h.tenant({ name: 'C' });
    const key = await c.key(['tickets:read', 'tickets:write']);
    expect((await upload(key, await newTicket(key), 'bytes')).status).toBe(201);
    expect(await usage(c.id)).toEqual({ kept: 5, summed: 5 });
    await h.db.deleteFrom('tenants').where('id', '=', c.id).execute();
    expect(await usage(c.id)).toEqual({ kept: 0, summed: 0 });
    const row = await h.db
      .selectFrom('storage_usage')
      .select('tenant_id')
      .where('tenant_id', '=', c.id)
      .execute();
    expect(row).toEqual([]);
  });
});
