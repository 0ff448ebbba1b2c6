// The writes whose later statements (audit row, closed deliveries, outbox event) only need what the
// app already knows are one statement each (data-modifying CTEs), not an interactive transaction:
// on the edge (shared/db/adapters/neon-http.ts) `db.transaction()` opens a WebSocket client, a
// connection set-up per request. docs/deploy.md, "Edge data path".
import { afterAll, afterEach, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { periodOf } from '../../shared/usage/plans';
import { reportUsage } from '../../shared/usage/report';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('write-then-write management operations: one statement each', () => {
  let h: Harness;
  let t: TestTenant;
  let transaction: MockInstance;
  beforeAll(async () => {
    h = await startHarness({ WEBHOOK_SSRF_ALLOW: 'localhost' });
    // the SLA checker opens a transaction on every poll, which the spy below would count
    await h.runtime.slaChecker.stop();
    t = await h.tenant();
  }, 120_000);
  afterAll(() => h?.close(), 60_000);
  afterEach(() => transaction?.mockRestore());

  /** Runs `request` with `db.transaction` watched: none may be opened (an unconverted handler would). */
  async function withoutTransaction<T>(request: () => Promise<T>): Promise<T> {
    transaction = vi.spyOn(h.db, 'transaction');
    const res = await request();
    expect(transaction).not.toHaveBeenCalled();
    transaction.mockRestore();
    return res;
  }

  const as = { bearer: '' };
  beforeAll(() => {
    as.bearer = t.adminToken;
  });

  const auditOf = (targetId: string, action: string) =>
    h.db
      .selectFrom('audit_log')
      .selectAll()
      .where('tenant_id', '=', t.id)
      .where('target_id', '=', targetId)
      .where('action', '=', action)
      .execute();

  /** The one audit row of this action on this target (fails on none or several). */
  async function oneAudit(targetId: string, action: string) {
    const rows = await auditOf(targetId, action);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    if (!row) throw new Error('unreachable');
    return row;
  }

  it('the spy sees a transaction where one is still opened (a lock case: a tenant user update)', async () => {
    const invited = await h.request('POST', '/api/v1/tenant/users', {
      ...as,
      body: { email: 'spy.check@acme.example', role: 'agent' },
    });
    transaction = vi.spyOn(h.db, 'transaction');
    const res = await h.request('PATCH', `/api/v1/tenant/users/${invited.body.id}`, {
      ...as,
      body: { name: 'Spy' },
    });
    expect(res.status, res.text).toBe(200);
    expect(transaction).toHaveBeenCalled();
  });

  it('creates an API key, revokes it (twice) and deletes it, each write with its audit row', async () => {
    const created = await withoutTransaction(() =>
      h.request('POST', '/api/v1/api-keys', {
        ...as,
        body: { name: 'one statement', scopes: ['tickets:read'] },
      }),
    );
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const audit = await oneAudit(id, 'api_key.created');
    expect(audit).toMatchObject({
      actor: 'user:user_admin',
      target_type: 'api_key',
      metadata: { name: 'one statement', scopes: ['tickets:read'] },
    });
    expect(audit.id).toMatch(/^aud/);

    for (let i = 0; i < 2; i++) {
      const revoked = await withoutTransaction(() => h.request('POST', `/api/v1/api-keys/${id}/revoke`, as));
      expect(revoked.status).toBe(204);
    }
    expect(await auditOf(id, 'api_key.revoked')).toHaveLength(1); // the second revoke records nothing

    const deleted = await withoutTransaction(() => h.request('DELETE', `/api/v1/api-keys/${id}`, as));
    expect(deleted.status).toBe(204);
    expect((await oneAudit(id, 'api_key.deleted')).metadata).toEqual({ name: 'one statement' });
    const again = await withoutTransaction(() => h.request('DELETE', `/api/v1/api-keys/${id}`, as));
    expect(again.status).toBe(404);
    expect(await auditOf(id, 'api_key.deleted')).toHaveLength(1);
  });

  it('is atomic: when the audit row cannot be written, the key is neither created nor deleted', async () => {
    const kept = await h.request('POST', '/api/v1/api-keys', {
      ...as,
      body: { name: 'doomed', scopes: ['tickets:read'] },
    });
    expect(kept.status, kept.text).toBe(201);
    await h.handle.exec(`
      CREATE FUNCTION refuse_doomed_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.metadata->>'name' = 'doomed' THEN RAISE EXCEPTION 'audit refused'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_doomed_audit BEFORE INSERT ON audit_log
        FOR EACH ROW EXECUTE FUNCTION refuse_doomed_audit();`);
    try {
      const created = await h.request('POST', '/api/v1/api-keys', {
        ...as,
        body: { name: 'doomed', scopes: ['tickets:read'] },
      });
      expect(created.status).toBe(500);
      const deleted = await h.request('DELETE', `/api/v1/api-keys/${kept.body.id}`, as);
      expect(deleted.status).toBe(500);
    } finally {
      await h.handle.exec(
        'DROP TRIGGER refuse_doomed_audit ON audit_log; DROP FUNCTION refuse_doomed_audit();',
      );
    }
    const keys = await h.db.selectFrom('api_keys').select('id').where('name', '=', 'doomed').execute();
    expect(keys.map((k) => k.id)).toEqual([kept.body.id]);
  });

  it('creates a tenant user with its audit row; a taken email is still the 409', async () => {
    const body = { email: 'one.statement@acme.example', name: 'Una', role: 'agent' };
    const res = await withoutTransaction(() => h.request('POST', '/api/v1/tenant/users', { ...as, body }));
    expect(res.status, res.text).toBe(201);
    const audit = await oneAudit(res.body.id, 'user.invited');
    expect(audit).toMatchObject({ target_type: 'user', metadata: { email: body.email, role: 'agent' } });
    const taken = await h.request('POST', '/api/v1/tenant/users', {
      ...as,
      body: { ...body, email: body.email.toUpperCase() },
    });
    expect(taken.status).toBe(409);
  });

  it('creates, updates, rotates the secret of and deletes a webhook, each write with its audit row', async () => {
    const url = 'https://localhost:9/one-statement';
    const created = await withoutTransaction(() =>
      h.request('POST', '/api/v1/webhooks', {
        ...as,
        body: { url, events: ['ticket.created'], description: 'd' },
      }),
    );
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    expect((await oneAudit(id, 'webhook.created')).metadata).toEqual({
      url,
      events: ['ticket.created'],
      description: 'd',
    });

    const patched = await withoutTransaction(() =>
      h.request('PATCH', `/api/v2/webhooks/${id}`, { ...as, body: { is_active: false } }),
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ id, url, is_active: false });
    expect((await oneAudit(id, 'webhook.updated')).metadata).toEqual({ is_active: false });

    const rotated = await withoutTransaction(() =>
      h.request('POST', `/api/v2/webhooks/${id}/rotate-secret`, as),
    );
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(await auditOf(id, 'webhook.secret_rotated')).toHaveLength(1);

    const deleted = await withoutTransaction(() => h.request('DELETE', `/api/v1/webhooks/${id}`, as));
    expect(deleted.status).toBe(204);
    expect((await oneAudit(id, 'webhook.deleted')).metadata).toEqual({ url });

    // a deleted webhook is not found, and nothing more is recorded
    for (const [method, path, body] of [
      ['PATCH', `/api/v2/webhooks/${id}`, { is_active: true }],
      ['POST', `/api/v2/webhooks/${id}/rotate-secret`, undefined],
      ['DELETE', `/api/v1/webhooks/${id}`, undefined],
    ] as const) {
      const res = await withoutTransaction(() => h.request(method, path, { ...as, body }));
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const all = await h.db.selectFrom('audit_log').select('action').where('target_id', '=', id).execute();
    expect(all.map((a) => a.action).sort()).toEqual([
      'webhook.created',
      'webhook.deleted',
      'webhook.secret_rotated',
      'webhook.updated',
    ]);
  });

  it('the usage report claims the period and writes its event in one statement, once', async () => {
    const period = periodOf(new Date());
    const first = await withoutTransaction(() => reportUsage(h.db, period));
    expect(first.reported).toContain(t.id);
    const claim = await h.db
      .selectFrom('usage_reports')
      .selectAll()
      .where('tenant_id', '=', t.id)
      .where('period', '=', period.period)
      .executeTakeFirstOrThrow();
    const events = await h.db
      .selectFrom('events')
      .select(['id', 'payload'])
      .where('tenant_id', '=', t.id)
      .where('event_type', '=', 'usage.reported')
      .execute();
    expect(events.map((e) => e.id)).toEqual([claim.event_id]);
    expect(events[0]?.payload).toMatchObject({ usage: { tenant_id: t.id, period: period.period } });

    const second = await withoutTransaction(() => reportUsage(h.db, period));
    expect(second.reported).not.toContain(t.id);
    const again = await h.db
      .selectFrom('events')
      .select('id')
      .where('tenant_id', '=', t.id)
      .where('event_type', '=', 'usage.reported')
      .execute();
    expect(again).toHaveLength(1);
  });
});
