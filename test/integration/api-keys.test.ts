import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_CATALOG } from '../../shared/context/scopes';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('API-key management (section A)', () => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
  });
  afterAll(() => h?.close());

  const create = (body: unknown, bearer = t.adminToken) =>
    h.request('POST', '/api/v1/api-keys', { bearer, body });

  it('lists every key under `api_keys` alone, past any page size (spec: no query, no pagination fields)', async () => {
    const own = await h.tenant({ name: 'Many keys' });
    const rows = Array.from({ length: 150 }, (_, i) => ({
      id: `key_many_${String(i).padStart(3, '0')}`,
      tenant_id: own.id,
      name: `k${i}`,
      key_prefix: `prefix${String(i).padStart(6, '0')}`,
      key_hash: `hash_many_${i}`,
      environment: 'live' as const,
      scopes: ['tickets:read'],
      created_by: 'user:user_admin',
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    }));
    await h.db.insertInto('api_keys').values(rows).execute();
    const list = await h.request('GET', '/api/v1/api-keys?limit=2', { bearer: own.adminToken });
    expect(list.status).toBe(200);
    expect(Object.keys(list.body)).toEqual(['api_keys']);
    expect(list.body.api_keys).toHaveLength(150);
    // newest first
    expect(list.body.api_keys[0].id).toBe('key_many_149');
    expect(list.body.api_keys.at(-1).id).toBe('key_many_000');
  });

  it('creates a key: 201, secret once, live prefix, normalised scopes', async () => {
    const res = await create({
      name: 'CI',
      description: 'for CI',
      scopes: ['Tickets:Read', 'tickets:read', ' calls:read'],
      expires_in_days: 30,
    });
    expect(res.status).toBe(201);
    const k = res.body;
    expect(Object.keys(k).sort()).toEqual(
      ['api_key', 'created_at', 'description', 'expires_at', 'id', 'key_prefix', 'name', 'scopes'].sort(),
    );
    expect(k.api_key).toMatch(/^itsm_sk_live_[0-9A-Za-z]{38}$/);
    expect(k.key_prefix).toBe(k.api_key.slice('itsm_sk_live_'.length, 'itsm_sk_live_'.length + 12));
    expect(k.scopes).toEqual(['tickets:read', 'calls:read']);
    const days = (Date.parse(k.expires_at) - Date.parse(k.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(30, 1);

    const list = await h.request('GET', '/api/v1/api-keys', { bearer: t.adminToken });
    expect(list.status).toBe(200);
    const listed = list.body.api_keys.find((x: any) => x.id === k.id);
    expect(listed).toMatchObject({
      name: 'CI',
      created_by: 'user:user_admin',
      is_active: true,
      revoked_at: null,
      last_used_at: null,
    });
    expect(list.text).not.toContain(k.api_key);
    expect(JSON.stringify(listed)).not.toContain('hash');
  });

  it('issues test keys for sandbox tenants', async () => {
    const sandbox = await h.tenant({ environment: 'sandbox' });
    const key = await sandbox.key(['tickets:read']);
    expect(key).toMatch(/^itsm_sk_test_/);
  });

  it.each([
    [{ name: '', scopes: ['tickets:read'] }, ['body', 'name']],
    [{ name: 'x'.repeat(101), scopes: ['tickets:read'] }, ['body', 'name']],
    [{ name: 'ok', description: 'd'.repeat(501), scopes: ['tickets:read'] }, ['body', 'description']],
    [{ name: 'ok', scopes: [] }, ['body', 'scopes']],
    [{ name: 'ok' }, ['body', 'scopes']],
    [{ name: 'ok', scopes: ['tickets:read'], expires_in_days: 0 }, ['body', 'expires_in_days']],
    [{ name: 'ok', scopes: ['tickets:read'], expires_in_days: 3651 }, ['body', 'expires_in_days']],
    [{ name: 'ok', scopes: ['tickets:read'], expires_in_days: 1.5 }, ['body', 'expires_in_days']],
    [{ name: 'ok', scopes: 'tickets:read' }, ['body', 'scopes']],
  ])('refuses %j with 422 at %j', async (body, loc) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String) }),
      ]),
    );
  });

  it('accepts the limits themselves', async () => {
    const res = await create({
      name: 'n'.repeat(100),
      description: 'd'.repeat(500),
      scopes: ['tickets:read'],
      expires_in_days: 3650,
    });
    expect(res.status).toBe(201);
    expect((await create({ name: 'n', scopes: ['tickets:read'], expires_in_days: 1 })).status).toBe(201);
  });

  it('refuses unknown scopes, * included, with 400 naming them and listing the catalog', async () => {
    const valid = `Valid scopes: ${SCOPE_CATALOG.join(', ')}`;
    const res = await create({ name: 'x', scopes: ['tickets:read', '*', 'tickets:admin'] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: `Unknown API key scope(s): *, tickets:admin. ${valid}` });
    expect(valid).toContain('tickets:read, tickets:write');
    const star = await create({ name: 'x', scopes: ['*'] });
    expect(star.body.detail).toBe(`Unknown API key scope(s): *. ${valid}`);
    expect(await h.db.selectFrom('api_keys').select('id').where('name', '=', 'x').execute()).toEqual([]);
  });

  it('malformed JSON is a 422, not a 500', async () => {
    const res = await h.request('POST', '/api/v1/api-keys', {
      bearer: t.adminToken,
      rawBody: '{"name":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].type).toBe('json_invalid');
  });

  it('rotate: new key with the same scopes, old key refused on the next request', async () => {
    const old = await t.key(['tickets:read']);
    const oldId = (await h.request('GET', '/api/v1/api-keys', { bearer: t.adminToken })).body.api_keys[0].id;
    expect((await h.request('GET', '/api/v1/tickets', { apiKey: old })).status).not.toBe(401);
    const rotated = await h.request('POST', `/api/v1/api-keys/${oldId}/rotate`, { bearer: t.adminToken });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ scopes: ['tickets:read'], key_prefix: expect.any(String) });
    expect(rotated.body.id).not.toBe(oldId);
    const stale = await h.request('GET', '/api/v1/tickets', { apiKey: old });
    expect(stale.status).toBe(401);
    expect(stale.body).toEqual({ detail: 'Invalid API key' });
    expect((await h.request('GET', '/api/v1/tickets', { apiKey: rotated.body.api_key })).status).not.toBe(
      401,
    );
    const listed = (await h.request('GET', '/api/v1/api-keys', { bearer: t.adminToken })).body.api_keys.find(
      (k: any) => k.id === oldId,
    );
    expect(listed.is_active).toBe(false);
    expect(listed.revoked_at).not.toBeNull();
    const again = await h.request('POST', `/api/v1/api-keys/${oldId}/rotate`, { bearer: t.adminToken });
    expect(again.status).toBe(409);
  });

  it('revoke and delete are 204 and bite on the very next request', async () => {
    const a = await create({ name: 'a', scopes: ['tickets:read'] });
    expect((await h.request('GET', '/api/v1/tickets', { apiKey: a.body.api_key })).status).not.toBe(401);
    const revoked = await h.request('POST', `/api/v1/api-keys/${a.body.id}/revoke`, { bearer: t.adminToken });
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    expect((await h.request('GET', '/api/v1/tickets', { apiKey: a.body.api_key })).status).toBe(401);

    const b = await create({ name: 'b', scopes: ['tickets:read'] });
    expect((await h.request('GET', '/api/v1/tickets', { apiKey: b.body.api_key })).status).not.toBe(401);
    expect(
      (await h.request('DELETE', `/api/v1/api-keys/${b.body.id}`, { bearer: t.adminToken })).status,
    ).toBe(204);
    expect((await h.request('GET', '/api/v1/tickets', { apiKey: b.body.api_key })).status).toBe(401);
    const gone = await h.request('DELETE', `/api/v1/api-keys/${b.body.id}`, { bearer: t.adminToken });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: 'API key not found' });
  });

  it('an expired key is refused', async () => {
    const k = await create({ name: 'e', scopes: ['tickets:read'], expires_in_days: 1 });
    await h.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', k.body.id)
      .execute();
    h.runtime.services.keyCache?.clear();
    const res = await h.request('GET', '/api/v1/tickets', { apiKey: k.body.api_key });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('roles below tenant_admin get 403; API keys get the spec 403', async () => {
    const agent = await t.token('agent');
    const res = await create({ name: 'x', scopes: ['tickets:read'] }, agent);
    expect(res.status).toBe(403);
    const key = await t.key(['tickets:read', 'webhooks:write']);
    for (const [method, path] of [
      ['GET', '/api/v1/api-keys'],
      ['POST', '/api/v1/api-keys'],
      ['POST', '/api/v1/api-keys/key_x/rotate'],
      ['DELETE', '/api/v1/api-keys/key_x'],
    ] as const) {
      const r = await h.request(method, path, { apiKey: key, body: { name: 'x', scopes: ['tickets:read'] } });
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ detail: 'API keys are not permitted for this endpoint' });
    }
  });

  it('tenant B can neither see nor touch tenant A keys', async () => {
    const other = await h.tenant();
    const a = await create({ name: 'mine', scopes: ['tickets:read'] });
    const list = await h.request('GET', '/api/v1/api-keys', { bearer: other.adminToken });
    expect(list.body.api_keys.map((k: any) => k.id)).not.toContain(a.body.id);
    for (const [method, path] of [
      ['POST', `/api/v1/api-keys/${a.body.id}/rotate`],
      ['POST', `/api/v1/api-keys/${a.body.id}/revoke`],
      ['DELETE', `/api/v1/api-keys/${a.body.id}`],
    ] as const) {
      const r = await h.request(method, path, { bearer: other.adminToken });
      expect(r.status).toBe(404);
    }
    expect((await h.request('GET', '/api/v1/tickets', { apiKey: a.body.api_key })).status).not.toBe(401);
  });

  it('last_used_at is recorded off the request path', async () => {
    const k = await create({ name: 'used', scopes: ['tickets:read'] });
    await h.request('GET', '/api/v1/tickets', { apiKey: k.body.api_key });
    await h.runtime.drain();
    const row = await h.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', k.body.id)
      .executeTakeFirstOrThrow();
    expect(row.last_used_at).not.toBeNull();
  });

  it('stores only a keyed hash, never the key', async () => {
    const k = await create({ name: 'secret', scopes: ['tickets:read'] });
    const row = await h.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', k.body.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(k.body.api_key);
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
