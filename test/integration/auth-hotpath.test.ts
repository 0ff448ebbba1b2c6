import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('key verification hot path', () => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
  });
  afterAll(() => h?.close());

  it('a warm key costs no lookup; revocation still bites on the next request', async () => {
    const key = await t.key(['tickets:read']);
    const cache = h.runtime.services.keyCache!;
    await h.request('GET', '/api/v1/usage/summary', { apiKey: key }); // refused for scope, but verified
    const misses = cache.misses;
    for (let i = 0; i < 20; i++) {
      const res = await h.request('GET', '/api/v1/calls', { apiKey: key });
      expect(res.body).toEqual({ detail: 'API key missing required scope: calls:read' });
    }
    expect(cache.misses).toBe(misses);
    const list = await h.request('GET', '/api/v1/api-keys', { bearer: t.adminToken });
    const id = list.body.api_keys[0].id;
    await h.request('POST', `/api/v1/api-keys/${id}/revoke`, { bearer: t.adminToken });
    expect((await h.request('GET', '/api/v1/calls', { apiKey: key })).status).toBe(401);
  });

  it('refusals write nothing', async () => {
    const key = await t.key(['tickets:read']);
    await h.request('GET', '/api/v1/tickets', { apiKey: key });
    await h.runtime.drain();
    const before = await h.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('tenant_id', '=', t.id)
      .execute();
    const other = await t.key(['calls:read']);
    await h.request('GET', '/api/v1/tickets', { apiKey: other }); // 403 missing scope
    await h.request('GET', '/api/v1/tickets', { apiKey: `${other.slice(0, -1)}x` }); // 401
    await h.runtime.drain();
    const row = await h.db
      .selectFrom('api_keys')
      .select(['last_used_at'])
      .where('key_prefix', '=', other.slice(13, 25))
      .executeTakeFirstOrThrow();
    expect(row.last_used_at).toBeNull();
    expect(before.length).toBeGreaterThan(0);
  });
});

describe.skipIf(postgresUnavailable())('dashboard JWT through DASHBOARD_JWKS_URL', () => {
  let h: Harness;
  let server: ReturnType<typeof createServer>;
  let privateKey: CryptoKey;
  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey as CryptoKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    server = createServer((_, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as AddressInfo;
    h = await startHarness({ DASHBOARD_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json` });
  });
  afterAll(async () => {
    await h?.close();
    server?.close();
  });

  const sign = (role: string, key: CryptoKey, kid = 'k1') =>
    new SignJWT({ tenant_id: 'ten_jwks', role })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setSubject('u1')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(key);

  it('accepts a token signed by the JWKS key and refuses others', async () => {
    const ok = await h.request('GET', '/api/nowhere', { bearer: await sign('agent', privateKey) });
    expect(ok.status).toBe(404); // authenticated, then no such route
    const stranger = (await generateKeyPair('RS256')).privateKey as CryptoKey;
    const bad = await h.request('GET', '/api/nowhere', { bearer: await sign('agent', stranger) });
    expect(bad.status).toBe(401);
    const hs = await new SignJWT({ tenant_id: 'ten_jwks', role: 'agent' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('u1')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(h.config.DASHBOARD_JWT_SECRET));
    expect((await h.request('GET', '/api/nowhere', { bearer: hs })).status).toBe(401);
  });
});
