import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDashboardToken } from '../../shared/auth/jwt';
import { KEY_DENIED_PREFIXES } from '../../shared/context/scopes';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('credentials and surfaces', () => {
  let h: Harness;
  let t: TestTenant;
  let key: string;
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    key = await t.key([
      'tickets:read',
      'tickets:write',
      'webhooks:read',
      'webhooks:write',
      'config:write',
      'calls:write',
    ]);
  });
  afterAll(() => h?.close());

  it('no credential: 401 Missing authentication credentials, with WWW-Authenticate', async () => {
    for (const path of [
      '/api/v1/tickets',
      '/api/v2/contacts',
      '/api/v1/does-not-exist',
      '/api/internal/calls',
    ]) {
      const res = await h.request('GET', path);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Missing authentication credentials' });
    }
  });

  it('the key works in X-API-Key and in Authorization: Bearer', async () => {
    expect((await h.request('GET', '/api/v1/tickets', { apiKey: key })).status).not.toBe(401);
    expect((await h.request('GET', '/api/v1/tickets', { bearer: key })).status).not.toBe(401);
  });

  it.each([
    ['an altered env prefix', (k: string) => k.replace('_live_', '_test_')],
    ['a changed character', (k: string) => `${k.slice(0, -1)}${k.endsWith('a') ? 'b' : 'a'}`],
    ['a truncated key', (k: string) => k.slice(0, -3)],
    ['a made-up key', () => 'itsm_sk_live_not-a-real-key'],
    ['garbage', () => 'hello'],
  ])('%s is 401 Invalid API key with WWW-Authenticate: Bearer', async (_, alter) => {
    for (const opts of [{ apiKey: alter(key) }, { bearer: alter(key) }]) {
      const res = await h.request('GET', '/api/v1/tickets', opts);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Invalid API key' });
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('denied prefixes refuse API keys with the spec detail', async () => {
    for (const prefix of KEY_DENIED_PREFIXES) {
      for (const method of ['GET', 'POST']) {
        const res = await h.request(method, `${prefix}/anything`, { apiKey: key, body: {} });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ detail: 'API keys are not permitted for this endpoint' });
      }
    }
  });

  it('every /api/v2 path, analytics, csat and unknown v1 paths refuse API keys', async () => {
    for (const path of [
      '/api/v2/contacts',
      '/api/v2/companies/x/restore',
      '/api/v2/conversations',
      '/api/v2/webhooks/event-types',
      '/api/v2/anything/at/all',
      '/api/v1/analytics',
      '/api/v1/analytics/overview',
      '/api/v1/csat',
      '/api/kb/create-v2',
      '/api/sync/contacts',
      '/api/v1/not-on-the-allowlist',
    ]) {
      const res = await h.request('GET', path, { apiKey: key });
      expect(res.status, path).toBe(403);
      expect(res.body).toEqual({ detail: 'API keys are not permitted for this endpoint' });
    }
  });

  it('prefixes match whole segments: /api/v1/tenants is denied though /api/v1/tenant is allowlisted', async () => {
    const res = await h.request('GET', '/api/v1/tenants', { apiKey: key });
    expect(res.body).toEqual({ detail: 'API keys are not permitted for this endpoint' });
    const tenant = await h.request('GET', '/api/v1/tenant/settings', { apiKey: key });
    expect(tenant.body).toEqual({ detail: 'API key missing required scope: config:read' });
  });

  it('GET /api/v2/health answers 200 with or without a credential', async () => {
    for (const opts of [{}, { apiKey: key }, { bearer: t.adminToken }, { apiKey: 'itsm_sk_live_bogus' }]) {
      const res = await h.request('GET', '/api/v2/health', opts);
      expect(res.status).toBe(200);
      expect(res.body.database.status).toBe('ok');
    }
  });

  it('unrouted paths: 401 without credential, 403 for keys, 404 for sessions', async () => {
    expect((await h.request('GET', '/api/nowhere')).status).toBe(401);
    expect((await h.request('GET', '/api/nowhere', { apiKey: key })).status).toBe(403);
    const res = await h.request('GET', '/api/nowhere', { bearer: t.adminToken });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not Found' });
  });

  it('internal endpoints take only the internal token', async () => {
    const wrong = await h.request('POST', '/api/internal/calls', { bearer: 'nope', body: {} });
    expect(wrong.status).toBe(401);
    const asKey = await h.request('POST', '/api/internal/calls', { apiKey: key, body: {} });
    expect(asKey.status).toBe(403);
    expect(asKey.body).toEqual({ detail: 'API keys are not permitted for this endpoint' });
    const session = await h.request('POST', '/api/internal/calls', { bearer: t.adminToken, body: {} });
    expect(session.status).toBe(401);
    const ok = await h.request('POST', '/api/internal/calls', { bearer: 'test-internal-token', body: {} });
    expect([401, 403]).not.toContain(ok.status);
  });

  it('an oversized body is 413 with a detail', async () => {
    const small = await startHarness({ MAX_BODY_BYTES: '1000' });
    try {
      const tt = await small.tenant();
      const res = await small.request('POST', '/api/v1/api-keys', {
        bearer: tt.adminToken,
        body: { name: 'x', description: 'd'.repeat(2000), scopes: ['tickets:read'] },
      });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ detail: 'Request body too large' });
    } finally {
      await small.close();
    }
  });

  it('POST /api/v1/tenants needs a super_admin; GET one is for its own admins', async () => {
    const denied = await h.request('POST', '/api/v1/tenants', {
      bearer: t.adminToken,
      body: { name: 'x', plan: 'free', environment: 'production' },
    });
    expect(denied.status).toBe(403);
    const bad = await h.request('POST', '/api/v1/tenants', {
      bearer: await h.superToken(),
      body: { name: 'x', plan: 'platinum', environment: 'production' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'plan']);
    const mine = await h.request('GET', `/api/v1/tenants/${t.id}`, { bearer: t.adminToken });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ id: t.id, plan: 'enterprise', environment: 'production' });
    const other = await h.tenant();
    expect((await h.request('GET', `/api/v1/tenants/${t.id}`, { bearer: other.adminToken })).status).toBe(
      404,
    );
  });

  it('a session for a tenant works on v1 endpoints too', async () => {
    const token = await signDashboardToken(h.config.DASHBOARD_JWT_SECRET, {
      sub: 'u1',
      tenant_id: t.id,
      role: 'agent',
    });
    const res = await h.request('GET', '/api/v1/tickets', { bearer: token });
    expect([401, 403]).not.toContain(res.status);
  });
});
