import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

const enc = new TextEncoder();
const now = () => Math.floor(Date.now() / 1000);

describe.skipIf(postgresUnavailable())('dashboard session JWT edge cases', () => {
  let h: Harness;
  let tenantId: string;
  beforeAll(async () => {
    h = await startHarness();
    tenantId = (await h.tenant()).id;
  });
  afterAll(() => h?.close());

  const sign = (
    claims: Record<string, unknown>,
    opts: { secret?: string; iat?: number; exp?: number | null } = {},
  ) => {
    let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(opts.iat ?? now());
    if (opts.exp !== null) jwt = jwt.setExpirationTime(opts.exp ?? now() + 600);
    return jwt.sign(enc.encode(opts.secret ?? h.config.DASHBOARD_JWT_SECRET));
  };
  const call = (token: string) => h.request('GET', '/api/v1/api-keys', { bearer: token });
  const good = { sub: 'u1', tenant_id: '', role: 'tenant_admin' };

  it('a valid token passes', async () => {
    const res = await call(await sign({ ...good, tenant_id: tenantId }));
    expect(res.status).toBe(200);
  });

  it.each([
    [
      'alg none',
      async () =>
        new UnsecuredJWT({ ...good, tenant_id: tenantId }).setIssuedAt().setExpirationTime('10m').encode(),
    ],
    ['a different key', async () => sign({ ...good, tenant_id: tenantId }, { secret: 'another-secret' })],
    ['expired', async () => sign({ ...good, tenant_id: tenantId }, { iat: now() - 3000, exp: now() - 60 })],
    ['no exp', async () => sign({ ...good, tenant_id: tenantId }, { exp: null })],
    ['living longer than 3600 s', async () => sign({ ...good, tenant_id: tenantId }, { exp: now() + 3601 })],
    ['missing tenant_id', async () => sign({ sub: 'u1', role: 'tenant_admin' })],
    ['missing sub', async () => sign({ tenant_id: tenantId, role: 'tenant_admin' })],
    ['an unknown role', async () => sign({ ...good, tenant_id: tenantId, role: 'owner' })],
    [
      'HS512 instead of HS256',
      async () =>
        new SignJWT({ ...good, tenant_id: tenantId })
          .setProtectedHeader({ alg: 'HS512' })
          .setIssuedAt()
          .setExpirationTime('10m')
          .sign(enc.encode(h.config.DASHBOARD_JWT_SECRET)),
    ],
    [
      'a tampered payload',
      async () => {
        const token = await sign({ ...good, tenant_id: tenantId, role: 'agent' });
        const [head, , sig] = token.split('.');
        const body = Buffer.from(
          JSON.stringify({ ...good, tenant_id: tenantId, iat: now(), exp: now() + 600 }),
        ).toString('base64url');
        return `${head}.${body}.${sig}`;
      },
    ],
  ])('%s is 401', async (_, make) => {
    const res = await call(await make());
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid or expired session token' });
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('exactly 3600 s of life is accepted', async () => {
    const iat = now();
    const res = await call(await sign({ ...good, tenant_id: tenantId }, { iat, exp: iat + 3600 }));
    expect(res.status).toBe(200);
  });
});
