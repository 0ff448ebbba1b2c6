/**
 * Sign-in hardening: the credential-free auth POSTs take only application/json (415 otherwise, so
 * a foreign page cannot send them without a preflight), and the throttle counts per (account,
 * address) and per address, so nobody can lock the owner out from elsewhere. Unknown and known
 * addresses get the same answer for the same work.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as signIn from '../../functions/auth/routes';
import * as endUser from '../../functions/end-user/routes';
import { routesOf } from '../../shared/http/route';
import { login, PASSWORD, type SignedUpAdmin, signUpAdmin } from '../support/accounts';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

const JSON_REQUIRED = { detail: 'Content-Type must be application/json' };
/** every credential-free auth POST, from the route tables themselves */
const AUTH_POSTS = [...routesOf(signIn), ...routesOf(endUser)]
  .filter((r) => r.method === 'post' && /^\/api\/v1\/(app\/)?auth\//.test(r.path))
  .map((r) => r.path);
/** what a foreign page can send without a preflight (or a client that forgot the header) */
let seq = 0;
const SIMPLE_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  undefined,
];

describe.skipIf(postgresUnavailable())('sign-in hardening', () => {
  let h: Harness;
  let admin: SignedUpAdmin;
  beforeAll(async () => {
    h = await startHarness({ TRUSTED_PROXY_HEADER: 'X-Real-IP' });
    admin = await signUpAdmin(h, 'owner@throttle.example');
  }, 120_000);
  afterEach(async () => {
    vi.restoreAllMocks();
    await h.db.deleteFrom('auth_throttle').execute();
  });
  afterAll(() => h?.close());

  it('covers every credential-free auth POST', () => {
    expect(AUTH_POSTS).toEqual(
      expect.arrayContaining([
        '/api/v1/auth/login',
        '/api/v1/auth/accept-invite',
        '/api/v1/auth/password-reset',
        '/api/v1/auth/password-reset/confirm',
        '/api/v1/app/auth/login',
        '/api/v1/app/auth/register',
        '/api/v1/app/auth/magic-link',
      ]),
    );
  });

  for (const path of AUTH_POSTS)
    it(`${path}: a body that is not application/json is 415, and nothing is counted or written`, async () => {
      const body = JSON.stringify({
        email: admin.email,
        password: 'wrong password here',
        tenant_id: admin.tenantId,
      });
      for (const type of SIMPLE_TYPES) {
        const res = await h.request('POST', path, {
          rawBody: body,
          // an address of its own each: the end-user auth paths' per-address rate limit stays out of it
          headers: { 'X-Real-IP': `192.0.2.${++seq}`, ...(type ? { 'Content-Type': type } : {}) },
        });
        expect([type, res.status, res.body]).toEqual([type, 415, JSON_REQUIRED]);
      }
      expect(await h.db.selectFrom('auth_throttle').selectAll().execute()).toEqual([]);
    });

  it('application/json with parameters, in any case, is JSON', async () => {
    const res = await h.request('POST', '/api/v1/auth/login', {
      rawBody: JSON.stringify({ email: admin.email, password: PASSWORD }),
      headers: { 'Content-Type': 'Application/JSON; charset=utf-8' },
    });
    expect(res.status).toBe(200);
  });

  it('one address failing cannot lock the owner out from another; it locks only itself', async () => {
    const attacker = { 'X-Real-IP': '203.0.113.50' };
    for (let i = 0; i < 5; i++)
      expect((await login(h, { email: admin.email, password: `nope ${i}` }, attacker)).status).toBe(401);
    expect((await login(h, { email: admin.email, password: PASSWORD }, attacker)).status).toBe(429);
    expect(
      (await login(h, { email: admin.email, password: PASSWORD }, { 'X-Real-IP': '198.51.100.9' })).status,
    ).toBe(200);
  }, 60_000);

  it('30 wrong passwords at once: exactly the 5 the budget allows get a password check, the rest 429', async () => {
    const burst = { 'X-Real-IP': '203.0.113.60' };
    const derive = vi.spyOn(crypto.subtle, 'deriveBits');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => login(h, { email: admin.email, password: `burst ${i}` }, burst)),
    );
    expect(derive.mock.calls.length).toBe(5);
    expect(answers.filter((r) => r.status === 401)).toHaveLength(5);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused).toHaveLength(25);
    for (const r of refused) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    // the account is locked at this address, and only there
    expect((await login(h, { email: admin.email, password: PASSWORD }, burst)).status).toBe(429);
    expect(
      (await login(h, { email: admin.email, password: PASSWORD }, { 'X-Real-IP': '198.51.100.11' })).status,
    ).toBe(200);
  }, 60_000);

  it('failures are slowed down with a growing delay from the third on', async () => {
    const from = { 'X-Real-IP': '203.0.113.51' };
    const took: number[] = [];
    for (let i = 0; i < 4; i++) {
      const start = performance.now();
      expect((await login(h, { email: admin.email, password: `slow ${i}` }, from)).status).toBe(401);
      took.push(performance.now() - start);
    }
    expect(took[2]).toBeGreaterThanOrEqual(240);
    expect(took[3]).toBeGreaterThanOrEqual(490);
  }, 60_000);

  it('an address spraying many accounts is locked for all of them (20 failures)', async () => {
    const sprayer = { 'X-Real-IP': '203.0.113.52' };
    const spray = Array.from({ length: 20 }, (_, i) =>
      login(h, { email: `spray${i}@throttle.example`, password: 'Winter2026!' }, sprayer),
    );
    expect((await Promise.all(spray)).every((r) => r.status === 401)).toBe(true);
    expect((await login(h, { email: admin.email, password: PASSWORD }, sprayer)).status).toBe(429);
    expect(
      (await login(h, { email: admin.email, password: PASSWORD }, { 'X-Real-IP': '198.51.100.10' })).status,
    ).toBe(200);
  }, 60_000);

  it('unknown, pending and known addresses: the same 401, each after one password derivation', async () => {
    await h.request('POST', '/api/v1/tenant/users', {
      bearer: admin.pair.access_token,
      body: { email: 'pending@throttle.example', role: 'agent' },
    });
    const derive = vi.spyOn(crypto.subtle, 'deriveBits');
    const answers = [];
    for (const email of [admin.email, 'ghost@throttle.example', 'pending@throttle.example']) {
      derive.mockClear();
      const res = await login(h, { email, password: 'not the password' }, { 'X-Real-IP': '203.0.113.53' });
      answers.push([res.status, res.body, derive.mock.calls.length]);
    }
    expect(answers).toEqual([
      [401, { detail: 'Invalid email or password' }, 1],
      [401, { detail: 'Invalid email or password' }, 1],
      [401, { detail: 'Invalid email or password' }, 1],
    ]);
  });

  it('password reset: the same answer for known and unknown addresses, the mail sent after it', async () => {
    // The token is made and mailed after the answer (deferred work), so the answer itself carries
    // nothing that tells a known address from an unknown one.
    const answer = async (email: string) => {
      const res = await h.request('POST', '/api/v1/auth/password-reset', { body: { email } });
      await h.runtime.drain();
      return { status: res.status, body: res.body };
    };
    const known = await answer(admin.email);
    const unknown = await answer('ghost@throttle.example');
    expect(known).toEqual(unknown);
    const resets = (await h.outbox()).filter(
      (m) => m.to === admin.email && m.link.includes('/reset-password?'),
    );
    expect(resets).toHaveLength(1);
  });
});
