import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

// Dashboard roles on billing, requesters, tenant users and exports (docs/platform.md: every billing
// call, writes to tenant users and every export need tenant_admin). API keys answer to their scopes alone
// (platform-scopes.test.ts); these are the sessions' side, role checked before the body is validated.
describe.skipIf(postgresUnavailable())('dashboard roles on the platform routes', () => {
  let h: Harness;
  let t: TestTenant;
  let agent: string;
  const ROLE_REQUIRED = { detail: 'This action requires the tenant_admin role' };

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant({ plan: 'pro' });
    agent = await t.token('agent');
  }, 120_000);
  afterAll(() => h?.close());

  it('billing: every call needs tenant_admin, reads included; the role is checked before the body', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/v1/billing/plan'],
      ['GET', '/api/v1/billing/plans'],
      ['PUT', '/api/v1/billing/plan', { plan: 'gold' }],
      ['PATCH', '/api/v1/billing/plan', {}],
      ['GET', '/api/v1/billing/invoices?limit=0'],
      ['GET', '/api/v1/billing/invoices/inv_201001'],
      ['GET', '/api/v1/billing/payment-settings'],
      ['PUT', '/api/v1/billing/payment-settings', { tax_id: '' }],
      ['PATCH', '/api/v1/billing/payment-settings', { nope: 1 }],
    ];
    for (const [method, path, body] of calls) {
      const res = await h.request(method, path, { bearer: agent, body });
      expect([method, path, res.status, res.body]).toEqual([method, path, 403, ROLE_REQUIRED]);
    }
    const admin = await h.request('GET', '/api/v1/billing/plan', { bearer: t.adminToken });
    expect(admin.status).toBe(200);
    expect(admin.body.plan).toBe('pro');
    const bad = await h.request('PUT', '/api/v1/billing/plan', {
      bearer: t.adminToken,
      body: { plan: 'gold' },
    });
    expect(bad.status).toBe(422);
  });

  it('tenant users: an agent reads, only a tenant_admin adds, changes or removes', async () => {
    const created = await h.request('POST', '/api/v1/tenant/users', {
      bearer: t.adminToken,
      body: { email: 'eve@acme.test', name: 'Eve', role: 'agent' },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const list = await h.request('GET', '/api/v1/tenant/users', { bearer: agent });
    expect(list.status).toBe(200);
    expect(list.body.users.map((u: any) => u.id)).toContain(id);
    expect((await h.request('GET', `/api/v1/tenant/users/${id}`, { bearer: agent })).status).toBe(200);
    expect((await h.request('GET', '/api/v1/tenant/users/tus_unknown', { bearer: agent })).status).toBe(404);
    expect((await h.request('GET', '/api/v1/tenant/users?limit=0', { bearer: agent })).status).toBe(422);

    const writes: [string, string, unknown?][] = [
      ['POST', '/api/v1/tenant/users', { email: 'mallory@acme.test' }],
      ['POST', '/api/v1/tenant/users', { email: 'not an email' }],
      ['PATCH', `/api/v1/tenant/users/${id}`, { role: 'tenant_admin' }],
      ['PATCH', `/api/v1/tenant/users/${id}`, { role: 'super_admin' }],
      ['DELETE', `/api/v1/tenant/users/${id}`],
    ];
    for (const [method, path, body] of writes) {
      const res = await h.request(method, path, { bearer: agent, body });
      expect([method, path, res.status, res.body]).toEqual([method, path, 403, ROLE_REQUIRED]);
    }
    const still = await h.request('GET', `/api/v1/tenant/users/${id}`, { bearer: t.adminToken });
    expect(still.body).toMatchObject({ id, role: 'agent' });
    expect((await h.request('DELETE', `/api/v1/tenant/users/${id}`, { bearer: t.adminToken })).status).toBe(
      204,
    );
  });

  it('requesters: any dashboard session', async () => {
    const requesters = await h.request('GET', '/api/v1/requesters', { bearer: agent });
    expect(requesters.status).toBe(200);
    expect(requesters.body).toMatchObject({ requesters: [], total: 0 });
    expect((await h.request('GET', '/api/v1/requesters/usr_unknown', { bearer: agent })).status).toBe(404);
  });

  // A tenant-wide export is the whole tenant's data: a key needs config:write for it, a session the
  // tenant_admin role (an agent must not get through on any of its routes)
  it('exports: tenant_admin only, every route', async () => {
    const asAgent = await h.request('POST', '/api/v1/tenant/exports', {
      bearer: agent,
      body: { resource: 'tickets', format: 'json' },
    });
    expect([asAgent.status, asAgent.body]).toEqual([403, ROLE_REQUIRED]);
    const job = await h.request('POST', '/api/v1/tenant/exports', {
      bearer: t.adminToken,
      body: { resource: 'tickets', format: 'json' },
    });
    expect(job.status).toBe(201);
    expect(job.body).toMatchObject({ status: 'completed' });
    for (const path of [
      '/api/v1/tenant/exports',
      `/api/v1/tenant/exports/${job.body.id}`,
      `/api/v1/tenant/exports/${job.body.id}/download`,
    ]) {
      const res = await h.request('GET', path, { bearer: agent });
      expect([path, res.status, res.body]).toEqual([path, 403, ROLE_REQUIRED]);
    }
    const file = await h.request('GET', `/api/v1/tenant/exports/${job.body.id}/download`, {
      bearer: t.adminToken,
    });
    expect([file.status, file.text]).toEqual([200, '[]']);
  });
});
