import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('audit log of key management', () => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
  });
  afterAll(() => h?.close());

  const log = (bearer: string, query = '') => h.request('GET', `/api/v2/audit-log${query}`, { bearer });

  it('records create, rotate, revoke and delete with actor, target and time', async () => {
    const created = await h.request('POST', '/api/v1/api-keys', {
      bearer: t.adminToken,
      body: { name: 'audited', scopes: ['tickets:read'] },
    });
    const id = created.body.id;
    const rotated = await h.request('POST', `/api/v1/api-keys/${id}/rotate`, { bearer: t.adminToken });
    const newId = rotated.body.id;
    expect(
      (await h.request('POST', `/api/v1/api-keys/${newId}/revoke`, { bearer: t.adminToken })).status,
    ).toBe(204);
    // a second revoke changes nothing and records nothing
    expect(
      (await h.request('POST', `/api/v1/api-keys/${newId}/revoke`, { bearer: t.adminToken })).status,
    ).toBe(204);
    expect((await h.request('DELETE', `/api/v1/api-keys/${newId}`, { bearer: t.adminToken })).status).toBe(
      204,
    );

    const res = await log(t.adminToken);
    expect(res.status).toBe(200);
    const mine = res.body.entries.filter((e: any) => e.target_id === id || e.target_id === newId);
    expect(mine.map((e: any) => `${e.action}:${e.target_id}`)).toEqual([
      `api_key.deleted:${newId}`,
      `api_key.revoked:${newId}`,
      `api_key.rotated:${id}`,
      `api_key.created:${id}`,
    ]);
    for (const e of mine) {
      expect(e.actor).toBe('user:user_admin');
      expect(e.target_type).toBe('api_key');
      expect(Date.parse(e.created_at)).not.toBeNaN();
    }
    expect(mine[2].metadata).toEqual({ replaced_by: newId });
    expect(res.text).not.toContain(created.body.api_key);
    expect(res.body).toMatchObject({ total: expect.any(Number), limit: 50, offset: 0 });
  });

  it('records team changes: invite, role and name changes, removal; a change of nothing records nothing', async () => {
    const invited = await h.request('POST', '/api/v1/tenant/users', {
      bearer: t.adminToken,
      body: { email: 'audited.colleague@acme.example', name: 'Ana', role: 'agent' },
    });
    expect(invited.status, invited.text).toBe(201);
    const id = invited.body.id;
    const patch = (body: unknown) =>
      h.request('PATCH', `/api/v1/tenant/users/${id}`, { bearer: t.adminToken, body });
    expect((await patch({ role: 'tenant_admin' })).status).toBe(200);
    expect((await patch({ role: 'tenant_admin' })).status).toBe(200);
    expect((await patch({ name: 'Ana Silva', role: 'agent' })).status).toBe(200);
    expect((await h.request('DELETE', `/api/v1/tenant/users/${id}`, { bearer: t.adminToken })).status).toBe(
      204,
    );

    const res = await log(t.adminToken, `?target_id=${id}`);
    expect(res.status).toBe(200);
    expect(res.body.entries.map((e: any) => [e.action, e.target_type, e.actor, e.metadata])).toEqual([
      ['user.removed', 'user', 'user:user_admin', { email: 'audited.colleague@acme.example', role: 'agent' }],
      [
        'user.updated',
        'user',
        'user:user_admin',
        {
          email: 'audited.colleague@acme.example',
          name: { from: 'Ana', to: 'Ana Silva' },
          role: { from: 'tenant_admin', to: 'agent' },
        },
      ],
      [
        'user.updated',
        'user',
        'user:user_admin',
        { email: 'audited.colleague@acme.example', role: { from: 'agent', to: 'tenant_admin' } },
      ],
      ['user.invited', 'user', 'user:user_admin', { email: 'audited.colleague@acme.example', role: 'agent' }],
    ]);
    const mail = (await h.outbox()).filter((m) => m.to === 'audited.colleague@acme.example').at(-1);
    expect(res.text).not.toContain(new URL(mail?.link ?? '').searchParams.get('token'));
    const filtered = await log(t.adminToken, '?action=user.invited');
    expect(filtered.body.entries.every((e: any) => e.action === 'user.invited')).toBe(true);
    expect(filtered.body.entries.some((e: any) => e.target_id === id)).toBe(true);
  });

  it('a refused team change records nothing', async () => {
    const before = (await log(t.adminToken)).body.total;
    const missing = await h.request('DELETE', '/api/v1/tenant/users/tus_0000000000000000000000', {
      bearer: t.adminToken,
    });
    expect(missing.status).toBe(404);
    const unknown = await h.request('PATCH', '/api/v1/tenant/users/tus_0000000000000000000000', {
      bearer: t.adminToken,
      body: { role: 'agent' },
    });
    expect(unknown.status).toBe(404);
    expect((await log(t.adminToken)).body.total).toBe(before);
  });

  it('paginates and filters', async () => {
    for (let i = 0; i < 3; i++) {
      await h.request('POST', '/api/v1/api-keys', {
        bearer: t.adminToken,
        body: { name: `p${i}`, scopes: ['tickets:read'] },
      });
    }
    const page = await log(t.adminToken, '?limit=2&offset=1&action=api_key.created');
    expect(page.body.entries).toHaveLength(2);
    expect(page.body.entries.every((e: any) => e.action === 'api_key.created')).toBe(true);
    expect(page.body.total).toBeGreaterThanOrEqual(4);
    expect((await log(t.adminToken, '?limit=0')).status).toBe(422);
    expect((await log(t.adminToken, '?action=nope')).status).toBe(422);
  });

  it('is readable by tenant admins only and never across tenants', async () => {
    const other = await h.tenant();
    const theirs = await log(other.adminToken);
    expect(theirs.status).toBe(200);
    expect(theirs.body.entries).toEqual([]);
    expect((await log(await t.token('agent'))).status).toBe(403);
    const key = await t.key(['tickets:read']);
    const asKey = await h.request('GET', '/api/v2/audit-log', { apiKey: key });
    expect(asKey.status).toBe(403);
  });
});
