/**
 * How dashboard users get and lose access: invites (POST /tenants admin_email, POST /tenant/users),
 * accept, password reset, role lowering and removal ending sessions, tenant isolation, lockout,
 * and no password or token in clear in any table or log line.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PUBLIC_BASE } from '../../shared/auth/accounts';
import { verifyDashboardToken } from '../../shared/auth/jwt';
import { login, PASSWORD, refresh, type SignedUpAdmin, signUpAdmin } from '../support/accounts';
import { databaseText } from '../support/database-text';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

describe.skipIf(postgresUnavailable())('dashboard accounts: invites, resets, revocation, lockout', () => {
  let h: Harness;
  let admin: SignedUpAdmin;
  const logged: string[] = [];
  /** every token, password and link handed out in this file: none may be stored or logged */
  const secrets: string[] = [];

  beforeAll(async () => {
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(' '));
      });
    }
    // the client address from X-Real-IP when sent (a proxy of ours would set it); else one unknown address
    h = await startHarness({ TRUSTED_PROXY_HEADER: 'X-Real-IP' });
    admin = await signUpAdmin(h, 'owner@acme.example');
    secrets.push(admin.pair.refresh_token, PASSWORD);
  }, 120_000);
  // every test here signs in from the same (unknown) client IP: each starts with no failures counted
  beforeEach(async () => {
    await h.db.deleteFrom('auth_throttle').execute();
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await h?.close();
  });

  const lastMailTo = async (to: string) => {
    const mail = (await h.outbox()).filter((m) => m.to === to).at(-1);
    if (!mail) throw new Error(`no mail to ${to}`);
    return mail;
  };
  const tokenOf = (link: string) => new URL(link).searchParams.get('token') as string;

  it('POST /tenants with admin_email: a one-time invite in the mail (the 201 carries no token)', async () => {
    const created = await h.request('POST', '/api/v1/tenants', {
      bearer: await h.superToken(),
      body: { name: 'Beta', plan: 'starter', environment: 'sandbox', admin_email: 'Founder@Beta.example' },
    });
    expect(created.status).toBe(201);
    const invite = created.body.invite;
    expect(Object.keys(invite).sort()).toEqual(['email', 'expires_at', 'user_id']);
    expect(invite).toMatchObject({ email: 'founder@beta.example', user_id: expect.stringMatching(/^tus_/) });
    expect(Date.parse(invite.expires_at) - Date.now()).toBeGreaterThan(6 * 24 * 3600 * 1000);

    const mail = await lastMailTo('founder@beta.example');
    expect(mail.subject).toBe('Your invitation to "Beta"');
    invite.token = tokenOf(mail.link);
    expect(invite.token).toMatch(/^itsm_inv_/);
    expect(mail.link).toBe(`${DEFAULT_PUBLIC_BASE}/console/accept-invite?token=${invite.token}`);
    expect(mail.text).toContain(mail.link);
    secrets.push(invite.token);

    // no password yet: signing in fails like any other failure
    expect((await login(h, { email: 'founder@beta.example', password: 'anything at all' })).status).toBe(401);

    const short = await h.request('POST', '/api/v1/auth/accept-invite', {
      body: { token: invite.token, password: 'short' },
    });
    expect(short.status).toBe(422);
    expect(short.body.detail[0]).toMatchObject({ loc: ['body', 'password'], type: 'string_too_short' });

    const accepted = await h.request('POST', '/api/v1/auth/accept-invite', {
      body: { token: invite.token, password: 'founders password', name: 'Fiona' },
    });
    expect(accepted.status).toBe(200);
    secrets.push('founders password', accepted.body.refresh_token);
    const claims = await verifyDashboardToken(accepted.body.access_token, {
      secret: h.config.DASHBOARD_JWT_SECRET,
    });
    expect(claims).toMatchObject({ userId: invite.user_id, tenantId: created.body.id, role: 'tenant_admin' });

    const again = await h.request('POST', '/api/v1/auth/accept-invite', {
      body: { token: invite.token, password: 'another password' },
    });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: 'Invalid or expired invite' });
    expect((await login(h, { email: 'founder@beta.example', password: 'founders password' })).status).toBe(
      200,
    );

    const users = await h.request('GET', '/api/v1/tenant/users', { bearer: accepted.body.access_token });
    expect(users.body.users).toEqual([
      expect.objectContaining({ email: 'founder@beta.example', name: 'Fiona' }),
    ]);
    expect(users.text).not.toContain('pbkdf2');
  });

  it('POST /tenant/users invites a colleague with a role, who accepts and signs in as that role', async () => {
    const invited = await h.request('POST', '/api/v1/tenant/users', {
      bearer: admin.pair.access_token,
      body: { email: 'agent@acme.example', role: 'agent' },
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email: 'agent@acme.example', role: 'agent' });
    expect(invited.body.invite).toEqual({ expires_at: expect.any(String) });
    const mail = await lastMailTo('agent@acme.example');
    secrets.push(tokenOf(mail.link));

    const accepted = await h.request('POST', '/api/v1/auth/accept-invite', {
      body: { token: tokenOf(mail.link), password: 'agent password 1' },
    });
    expect(accepted.status).toBe(200);
    secrets.push('agent password 1');
    const claims = await verifyDashboardToken(accepted.body.access_token, {
      secret: h.config.DASHBOARD_JWT_SECRET,
    });
    expect(claims).toMatchObject({ tenantId: admin.tenantId, role: 'agent' });
    // an agent is not a tenant_admin
    const keys = await h.request('GET', '/api/v1/api-keys', { bearer: accepted.body.access_token });
    expect(keys.status).toBe(403);
  });

  it('password reset: the same answer for any address; confirm ends every session and signs in anew', async () => {
    const before = [
      (await login(h, { email: admin.email, password: PASSWORD })).body,
      (await login(h, { email: admin.email, password: PASSWORD })).body,
    ];
    const known = await h.request('POST', '/api/v1/auth/password-reset', { body: { email: admin.email } });
    const unknown = await h.request('POST', '/api/v1/auth/password-reset', {
      body: { email: 'ghost@acme.example' },
    });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(known.body);
    expect((await h.outbox()).some((m) => m.to === 'ghost@acme.example')).toBe(false);
    // a domain label ending in a hyphen is no host's: refused like a malformed address, as the document's format says
    const hostless = await h.request('POST', '/api/v1/auth/password-reset', {
      body: { email: 'ana@mail-.example.com' },
    });
    expect(hostless.status).toBe(422);
    expect(hostless.body.detail[0].loc).toEqual(['body', 'email']);

    const mail = await lastMailTo(admin.email);
    expect(mail.link).toMatch(new RegExp(`^${DEFAULT_PUBLIC_BASE}/console/reset-password\\?token=itsm_pwr_`));
    const token = tokenOf(mail.link);
    secrets.push(token);
    const weak = await h.request('POST', '/api/v1/auth/password-reset/confirm', {
      body: { token, password: 'x' },
    });
    expect(weak.status).toBe(422);

    const confirmed = await h.request('POST', '/api/v1/auth/password-reset/confirm', {
      body: { token, password: 'a brand new passphrase' },
    });
    expect(confirmed.status).toBe(200);
    secrets.push('a brand new passphrase', confirmed.body.refresh_token);
    for (const pair of before) expect((await refresh(h, pair.refresh_token)).status).toBe(401);
    expect((await refresh(h, admin.pair.refresh_token)).status).toBe(401);
    expect((await refresh(h, confirmed.body.refresh_token)).status).toBe(200);

    expect((await login(h, { email: admin.email, password: PASSWORD })).status).toBe(401);
    const relogin = await login(h, { email: admin.email, password: 'a brand new passphrase' });
    expect(relogin.status).toBe(200);
    admin.pair = relogin.body;
    admin.password = 'a brand new passphrase';

    const reused = await h.request('POST', '/api/v1/auth/password-reset/confirm', {
      body: { token, password: 'yet another passphrase' },
    });
    expect(reused.status).toBe(400);
    expect(reused.body).toEqual({ detail: 'Invalid or expired password reset token' });
  });

  it('password-reset requests share the per-IP auth budget (they send mail)', async () => {
    const flood = [];
    for (let i = 0; i < 12; i++)
      flood.push(
        await h.request('POST', '/api/v1/auth/password-reset', { body: { email: 'x@flood.example' } }),
      );
    const statuses = flood.map((r) => r.status);
    expect(statuses).toContain(429);
    expect(statuses.every((s) => s === 202 || s === 429)).toBe(true);
    expect(flood.find((r) => r.status === 429)?.body).toEqual({ detail: 'Rate limit exceeded' });
  });

  it('lowering a role or removing a user ends their refresh tokens at once', async () => {
    const invited = await h.request('POST', '/api/v1/tenant/users', {
      bearer: admin.pair.access_token,
      body: { email: 'deputy@acme.example', role: 'tenant_admin' },
    });
    const deputyToken = tokenOf((await lastMailTo('deputy@acme.example')).link);
    const accepted = await h.request('POST', '/api/v1/auth/accept-invite', {
      body: { token: deputyToken, password: 'deputy password' },
    });
    secrets.push(deputyToken, 'deputy password');
    const id = invited.body.id;
    const deputy = accepted.body;

    // a name change is not a demotion: the session lives on
    await h.request('PATCH', `/api/v1/tenant/users/${id}`, {
      bearer: admin.pair.access_token,
      body: { name: 'D' },
    });
    const stillThere = await refresh(h, deputy.refresh_token);
    expect(stillThere.status).toBe(200);

    // the access token of that session works until the role is lowered, and not a request longer
    const asAdmin = stillThere.body.access_token;
    expect((await h.request('GET', '/api/v1/api-keys', { bearer: asAdmin })).status).toBe(200);
    const lowered = await h.request('PATCH', `/api/v1/tenant/users/${id}`, {
      bearer: admin.pair.access_token,
      body: { role: 'agent' },
    });
    expect(lowered.status).toBe(200);
    expect((await refresh(h, stillThere.body.refresh_token)).status).toBe(401);
    const keysBefore = await h.db.selectFrom('api_keys').select('id').execute();
    for (const [method, path, body] of [
      ['GET', '/api/v1/api-keys', undefined],
      ['POST', '/api/v1/api-keys', { name: 'back door', scopes: ['tickets:read'] }],
      ['POST', '/api/v1/tenant/users', { email: 'again@acme.example', role: 'tenant_admin' }],
    ] as const) {
      const res = await h.request(method, path, { bearer: asAdmin, body });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body).toEqual({ detail: 'Invalid or expired session token' });
    }
    expect(await h.db.selectFrom('api_keys').select('id').execute()).toHaveLength(keysBefore.length);

    // signing in again carries the new role
    const again = await login(h, { email: 'deputy@acme.example', password: 'deputy password' });
    const claims = await verifyDashboardToken(again.body.access_token, {
      secret: h.config.DASHBOARD_JWT_SECRET,
    });
    expect(claims?.role).toBe('agent');

    const removed = await h.request('DELETE', `/api/v1/tenant/users/${id}`, {
      bearer: admin.pair.access_token,
    });
    expect(removed.status).toBe(204);
    expect((await refresh(h, again.body.refresh_token)).status).toBe(401);
    expect((await h.request('GET', '/api/v1/tickets', { bearer: again.body.access_token })).status).toBe(401);
    expect((await login(h, { email: 'deputy@acme.example', password: 'deputy password' })).status).toBe(401);
  });

  it('isolates tenants: a user of A never gets a token for B', async () => {
    const b = await signUpAdmin(h, 'boss@other.example');
    const crossed = await login(h, { email: admin.email, password: admin.password, tenant_id: b.tenantId });
    expect(crossed.status).toBe(401);

    // the same address in two tenants: tenant_id picks the account; without it the password picks
    const invited = await h.request('POST', '/api/v1/tenant/users', {
      bearer: b.pair.access_token,
      body: { email: admin.email, role: 'agent' },
    });
    expect(invited.status).toBe(201);
    const secondToken = tokenOf((await lastMailTo(admin.email)).link);
    await h.request('POST', '/api/v1/auth/accept-invite', {
      body: { token: secondToken, password: 'second tenant pw' },
    });
    secrets.push(secondToken, 'second tenant pw');
    const inB = await login(h, { email: admin.email, password: 'second tenant pw', tenant_id: b.tenantId });
    expect(inB.status).toBe(200);
    const claims = await verifyDashboardToken(inB.body.access_token, {
      secret: h.config.DASHBOARD_JWT_SECRET,
    });
    expect(claims).toMatchObject({ tenantId: b.tenantId, role: 'agent' });
    // A's password does not open B's account, nor B's password A's
    expect(
      (await login(h, { email: admin.email, password: admin.password, tenant_id: b.tenantId })).status,
    ).toBe(401);
    expect(
      (await login(h, { email: admin.email, password: 'second tenant pw', tenant_id: admin.tenantId }))
        .status,
    ).toBe(401);
    expect((await login(h, { email: admin.email, password: admin.password })).status).toBe(200);
    // B's refresh tokens refresh into B only
    const refreshed = await refresh(h, inB.body.refresh_token);
    const again = await verifyDashboardToken(refreshed.body.access_token, {
      secret: h.config.DASHBOARD_JWT_SECRET,
    });
    expect(again?.tenantId).toBe(b.tenantId);
  });

  it('locks an account at one address after 5 failures (429, the right password included); the owner elsewhere still signs in', async () => {
    const victim = await signUpAdmin(h, 'victim@acme.example');
    const attacker = { 'X-Real-IP': '203.0.113.7' };
    for (let i = 1; i <= 5; i++) {
      const res = await login(h, { email: victim.email, password: `wrong guess ${i}` }, attacker);
      expect(res.status).toBe(401);
    }
    const locked = await login(h, { email: victim.email, password: PASSWORD }, attacker);
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ detail: 'Too many failed sign-in attempts; try again later' });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    // five failures from anywhere no longer keep the owner out: their right password from their address works
    const owner = await login(
      h,
      { email: victim.email, password: PASSWORD },
      { 'X-Real-IP': '198.51.100.20' },
    );
    expect(owner.status).toBe(200);
    // an unknown address locks the same way (a lock says nothing about existence)
    const guesses = [1, 2, 3, 4, 5].map((i) =>
      login(h, { email: 'nobody@acme.example', password: `guess ${i}` }, attacker),
    );
    expect((await Promise.all(guesses)).map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expect((await login(h, { email: 'nobody@acme.example', password: 'x' }, attacker)).status).toBe(429);
    // other accounts are not locked by it, from that address either
    expect((await login(h, { email: 'boss@other.example', password: PASSWORD }, attacker)).status).toBe(200);
  }, 60_000);

  it('locks a client IP after 20 failures across accounts', async () => {
    const fresh = await signUpAdmin(h, 'fresh@acme.example');
    // concurrent (their delays overlap): each failure counts, none is lost to a race
    const spray = Array.from({ length: 20 }, (_, i) =>
      login(h, { email: `spray${i}@acme.example`, password: 'Winter2026!' }),
    );
    expect((await Promise.all(spray)).every((r) => r.status === 401)).toBe(true);
    const blocked = await login(h, { email: fresh.email, password: PASSWORD });
    expect(blocked.status).toBe(429);
    await h.db.deleteFrom('auth_throttle').execute();
    expect((await login(h, { email: fresh.email, password: PASSWORD })).status).toBe(200);
  }, 60_000);

  it('no password, refresh, invite or reset token in clear in any table or log line', async () => {
    const all = await databaseText(h.db);
    const logs = logged.join('\n');
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of secrets) {
      expect(all.includes(secret), `stored in clear: ${secret.slice(0, 12)}…`).toBe(false);
      expect(logs.includes(secret), `logged in clear: ${secret.slice(0, 12)}…`).toBe(false);
    }
    // and the hashes are there: the check above looked at the right tables
    // account passwords are kept per address (one derivation whatever the accounts: docs/auth.md)
    expect(all).toContain('pbkdf2-sha256-address$100000$');
    const stored = await h.db.selectFrom('dashboard_refresh_tokens').select('token_hash').execute();
    expect(stored.length).toBeGreaterThan(5);
    for (const row of stored) expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
