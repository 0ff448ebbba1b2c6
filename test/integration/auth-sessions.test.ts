import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDashboardToken } from '../../shared/auth/jwt';
import { login, PASSWORD, refresh, type SignedUpAdmin, signUpAdmin } from '../support/accounts';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

describe.skipIf(postgresUnavailable())('dashboard sign-in: login, refresh, logout (/api/v1/auth)', () => {
  let h: Harness;
  let admin: SignedUpAdmin;
  const jwtConfig = () => ({ secret: h.config.DASHBOARD_JWT_SECRET });

  beforeAll(async () => {
    h = await startHarness();
    admin = await signUpAdmin(h);
  }, 120_000);
  afterAll(() => h?.close());

  it('signs in: the access token is a dashboard JWT every dashboard route takes', async () => {
    const res = await login(h, { email: admin.email.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
    expect(res.body.refresh_token).toMatch(/^itsm_rt_[0-9A-Za-z]{43}$/);
    const claims = await verifyDashboardToken(res.body.access_token, jwtConfig());
    expect(claims).toMatchObject({ userId: admin.userId, tenantId: admin.tenantId, role: 'tenant_admin' });
    expect(claims?.sessionId).toMatch(/^ses_/);
    const [, payload] = res.body.access_token.split('.');
    const { iat, exp } = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(exp - iat).toBe(900);

    const keys = await h.request('GET', '/api/v1/api-keys', { bearer: res.body.access_token });
    expect(keys.status).toBe(200);
    // the tenant_id in the body names the tenant: right one signs in, another one does not
    expect(
      (await login(h, { email: admin.email, password: PASSWORD, tenant_id: admin.tenantId })).status,
    ).toBe(200);
  });

  it('answers every failure with the same 401 body', async () => {
    const other = await signUpAdmin(h);
    const failures = [
      { email: admin.email, password: 'wrong password!' },
      { email: 'nobody@nowhere.example', password: PASSWORD },
      { email: admin.email, password: PASSWORD, tenant_id: other.tenantId },
      { email: admin.email, password: PASSWORD, tenant_id: 'ten_does_not_exist' },
    ];
    for (const body of failures) {
      const res = await login(h, body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Invalid email or password' });
    }
  });

  it('rotates refresh tokens: each is single use, and a reused one revokes the session', async () => {
    const first = (await login(h, { email: admin.email, password: PASSWORD })).body;
    const second = await refresh(h, first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    const claims = await verifyDashboardToken(second.body.access_token, jwtConfig());
    const firstClaims = await verifyDashboardToken(first.access_token, jwtConfig());
    expect(claims?.sessionId).toBe(firstClaims?.sessionId);

    const third = await refresh(h, second.body.refresh_token);
    expect(third.status).toBe(200);

    // the first token again: reuse. Refused, and the whole session with it (the newest token too)
    const reused = await refresh(h, first.refresh_token);
    expect(reused.status).toBe(401);
    expect(reused.body).toEqual({ detail: 'Invalid or expired refresh token' });
    expect((await refresh(h, third.body.refresh_token)).status).toBe(401);
    const session = await h.db
      .selectFrom('dashboard_sessions')
      .select(['revoked_reason'])
      .where('id', '=', claims?.sessionId as string)
      .executeTakeFirstOrThrow();
    expect(session.revoked_reason).toBe('refresh_token_reuse');

    // another session of the same user is untouched
    const other = (await login(h, { email: admin.email, password: PASSWORD })).body;
    expect((await refresh(h, other.refresh_token)).status).toBe(200);
    expect((await refresh(h, 'itsm_rt_unknown')).status).toBe(401);
  });

  it('two concurrent exchanges of one refresh token: one wins, the other is a reuse and ends the session', async () => {
    const pair = (await login(h, { email: admin.email, password: PASSWORD })).body;
    const both = await Promise.all([refresh(h, pair.refresh_token), refresh(h, pair.refresh_token)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 401]);
    const winner = both.find((r) => r.status === 200)!;
    expect((await refresh(h, winner.body.refresh_token)).status).toBe(401);
  });

  it('logs out with the access token or the refresh token: the refresh token stops working', async () => {
    const a = (await login(h, { email: admin.email, password: PASSWORD })).body;
    expect((await h.request('GET', '/api/v1/api-keys', { bearer: a.access_token })).status).toBe(200);
    const out = await h.request('POST', '/api/v1/auth/logout', { bearer: a.access_token });
    expect(out.status).toBe(204);
    expect((await refresh(h, a.refresh_token)).status).toBe(401);
    // the access token ends with its session, not 15 minutes later; logging out again is still a 204
    const after = await h.request('GET', '/api/v1/api-keys', { bearer: a.access_token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ detail: 'Invalid or expired session token' });
    expect((await h.request('POST', '/api/v1/auth/logout', { bearer: a.access_token })).status).toBe(204);

    const b = (await login(h, { email: admin.email, password: PASSWORD })).body;
    const outByRefresh = await h.request('POST', '/api/v1/auth/logout', {
      body: { refresh_token: b.refresh_token },
    });
    expect(outByRefresh.status).toBe(204);
    expect((await refresh(h, b.refresh_token)).status).toBe(401);

    const nothing = await h.request('POST', '/api/v1/auth/logout');
    expect(nothing.status).toBe(401);
    expect(nothing.body).toEqual({ detail: 'Missing authentication credentials' });
  });

  it('GET /api/v1/auth/me: the user and the tenant of a live session; 401 without one or once it ended', async () => {
    const pair = (await login(h, { email: admin.email, password: PASSWORD })).body;
    const me = await h.request('GET', '/api/v1/auth/me', { bearer: pair.access_token });
    expect(me.status, me.text).toBe(200);
    expect(me.body).toEqual({
      user: { id: admin.userId, email: admin.email, name: null, role: 'tenant_admin' },
      tenant: {
        id: admin.tenantId,
        name: expect.any(String),
        plan: expect.any(String),
        environment: expect.any(String),
        created_at: expect.stringMatching(/Z$/),
      },
    });
    // a token minted without an account: its ids, no email or name
    const t = await h.tenant();
    const minted = await h.request('GET', '/api/v1/auth/me', { bearer: t.adminToken });
    expect(minted.status).toBe(200);
    expect(minted.body.user).toMatchObject({ email: null, name: null, role: 'tenant_admin' });
    expect(minted.body.tenant.id).toBe(t.id);

    const none = await h.request('GET', '/api/v1/auth/me');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ detail: 'Missing authentication credentials' });
    const key = await h.request('GET', '/api/v1/auth/me', { apiKey: await t.key(['tickets:read']) });
    expect(key.status).toBe(403);

    await h.request('POST', '/api/v1/auth/logout', { bearer: pair.access_token });
    const ended = await h.request('GET', '/api/v1/auth/me', { bearer: pair.access_token });
    expect(ended.status).toBe(401);
    expect(ended.body).toEqual({ detail: 'Invalid or expired session token' });
  });

  it('refuses API keys on every /api/v1/auth path (403), and a bad key is 401', async () => {
    const t = await h.tenant();
    const key = await t.key(['tickets:read']);
    for (const path of [
      'login',
      'refresh',
      'logout',
      'accept-invite',
      'password-reset',
      'password-reset/confirm',
    ]) {
      const res = await h.request('POST', `/api/v1/auth/${path}`, { apiKey: key, body: {} });
      expect(res.status, path).toBe(403);
      expect(res.body).toEqual({ detail: 'API keys are not permitted for this endpoint' });
      const bearer = await h.request('POST', `/api/v1/auth/${path}`, { bearer: key, body: {} });
      expect(bearer.status, path).toBe(403);
    }
    const bad = await h.request('POST', '/api/v1/auth/login', { apiKey: 'itsm_sk_live_nope', body: {} });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ detail: 'Invalid API key' });
  });

  it('a disabled user can neither sign in nor refresh', async () => {
    const user = await signUpAdmin(h);
    const live = (await login(h, { email: user.email, password: PASSWORD })).body;
    await h.db
      .updateTable('tenant_users')
      .set({ disabled_at: new Date() })
      .where('id', '=', user.userId)
      .execute();
    const res = await login(h, { email: user.email, password: PASSWORD });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid email or password' });
    expect((await refresh(h, live.refresh_token)).status).toBe(401);
    expect((await h.request('GET', '/api/v1/api-keys', { bearer: live.access_token })).status).toBe(401);
  });

  it('a token minted without a session (npm run token) stands on its signature and expiry alone', async () => {
    const t = await h.tenant();
    expect((await h.request('GET', '/api/v1/api-keys', { bearer: t.adminToken })).status).toBe(200);
  });

  it('a stale session token sent along never blocks a sign-in', async () => {
    const res = await login(h, { email: admin.email, password: PASSWORD }, { Authorization: 'Bearer a.b.c' });
    expect(res.status).toBe(200);
  });

  it('validates bodies in the spec 422 shape and writes nothing', async () => {
    const res = await h.request('POST', '/api/v1/auth/login', { body: { email: 'not-an-email' } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([expect.objectContaining({ loc: ['body', 'password'], type: 'missing' })]),
    );
    const junk = await h.request('POST', '/api/v1/auth/refresh', {
      rawBody: '{nope',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(junk.status).toBe(422);
  });
});
