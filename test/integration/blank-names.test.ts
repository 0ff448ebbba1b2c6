import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

/** Every create or PATCH whose name is required (or, when given, must say something) refuses whitespace. */
describe.skipIf(postgresUnavailable())('blank names are 422 everywhere a name is required', () => {
  let h: Harness;
  let t: TestTenant;

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  const BLANKS = ['   ', '\t\n ', ''];

  it('API keys: {"name":"   "} is a 422 and no key is made; a padded name is stored trimmed', async () => {
    for (const name of BLANKS) {
      const res = await h.request('POST', '/api/v1/api-keys', {
        bearer: t.adminToken,
        body: { name, scopes: ['tickets:read'] },
      });
      expect(res.status, JSON.stringify(name)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'name']);
    }
    const keys = await h.db.selectFrom('api_keys').select('name').where('tenant_id', '=', t.id).execute();
    expect(keys.some((k) => k.name.trim() === '')).toBe(false);
    const padded = await h.request('POST', '/api/v1/api-keys', {
      bearer: t.adminToken,
      body: { name: '  CI deploy  ', scopes: ['tickets:read'] },
    });
    expect(padded.status).toBe(201);
    expect(padded.body.name).toBe('CI deploy');
  });

  it('tenants, the tenant profile and tenant users', async () => {
    const superToken = await h.superToken();
    for (const name of BLANKS) {
      const tenant = await h.request('POST', '/api/v1/tenants', {
        bearer: superToken,
        body: { name, plan: 'pro', environment: 'production' },
      });
      expect(tenant.status, JSON.stringify(name)).toBe(422);
      const key = await t.key(['config:read', 'config:write', 'users:read', 'users:write', 'roles:write']);
      const profile = await h.request('PATCH', '/api/v1/tenant', { apiKey: key, body: { name } });
      expect(profile.status, JSON.stringify(name)).toBe(422);
      const user = await h.request('POST', '/api/v1/tenant/users', {
        apiKey: key,
        body: { email: `blank${BLANKS.indexOf(name)}@example.com`, name },
      });
      expect(user.status, JSON.stringify(name)).toBe(422);
    }
  });
});
