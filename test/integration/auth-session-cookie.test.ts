// The console's session cookie (the refresh token out of script's reach, one sign-in for every tab)
// and its CSRF defences, and sign-ins written to the audit log (never the password).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, PASSWORD, type SignedUpAdmin, signUpAdmin } from '../support/accounts';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

const ORIGIN = 'http://localhost';
const CONSOLE = { 'X-Session-Cookie': '1', Origin: ORIGIN, 'Sec-Fetch-Site': 'same-origin' };

/** The `itsm_refresh` Set-Cookie of an answer, parsed. */
function sessionCookieOf(headers: Headers) {
  const line = headers.getSetCookie().find((c) => c.startsWith('itsm_refresh='));
  if (!line) return undefined;
  const [pair = '', ...attrs] = line.split(/;\s*/);
  return { value: pair.slice('itsm_refresh='.length), attrs: attrs.map((a) => a.toLowerCase()) };
}

describe.skipIf(postgresUnavailable())('the console’s session cookie (/api/v1/auth/session)', () => {
  let h: Harness;
  let admin: SignedUpAdmin;

  beforeAll(async () => {
    h = await startHarness();
    admin = await signUpAdmin(h);
  }, 120_000);
  afterAll(() => h?.close());

  const restore = (cookie: string | undefined, headers: Record<string, string> = CONSOLE) =>
    h.request('POST', '/api/v1/auth/session', {
      headers: { ...headers, ...(cookie ? { Cookie: `itsm_refresh=${cookie}` } : {}) },
      body: {},
    });

  it('sets the refresh token in an httpOnly, Secure, SameSite=Strict cookie on the auth path, only when asked', async () => {
    const plain = await login(h, { email: admin.email, password: PASSWORD });
    expect(plain.status).toBe(200);
    expect(sessionCookieOf(plain.headers)).toBeUndefined();

    const asked = await login(h, { email: admin.email, password: PASSWORD }, CONSOLE);
    expect(asked.status).toBe(200);
    // the sign-in contract holds: the body keeps its pair
    expect(asked.body).toMatchObject({ token_type: 'Bearer', refresh_token: expect.any(String) });
    const cookie = sessionCookieOf(asked.headers);
    expect(cookie?.value).toBe(asked.body.refresh_token);
    expect(cookie?.attrs).toEqual(
      expect.arrayContaining(['httponly', 'secure', 'samesite=strict', 'path=/api/v1/auth']),
    );
  });

  it('renews the session from the cookie, rotating it, with no refresh token in the body', async () => {
    const signedIn = await login(h, { email: admin.email, password: PASSWORD }, CONSOLE);
    const first = sessionCookieOf(signedIn.headers)?.value;
    const renewed = await restore(first);
    expect(renewed.status).toBe(200);
    expect(Object.keys(renewed.body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    const next = sessionCookieOf(renewed.headers)?.value;
    expect(next).toBeTruthy();
    expect(next).not.toBe(first);
    const me = await h.request('GET', '/api/v1/auth/me', { bearer: renewed.body.access_token });
    expect(me.body.user).toMatchObject({ id: admin.userId });
    // the successor works; the spent one is a reuse and ends the session
    expect((await restore(next)).status).toBe(200);
    const reused = await restore(first);
    expect(reused.status).toBe(401);
    expect(reused.body).toEqual({ detail: 'Invalid or expired refresh token' });
    // a refused cookie is cleared
    expect(sessionCookieOf(reused.headers)?.attrs).toContain('max-age=0');
    expect((await restore(undefined)).status).toBe(401);
  });

  it('refuses the cookie to a request a foreign page could make (no header, another Origin, cross-site)', async () => {
    const signedIn = await login(h, { email: admin.email, password: PASSWORD }, CONSOLE);
    const cookie = sessionCookieOf(signedIn.headers)?.value;
    const forged: Record<string, string>[] = [
      { Origin: ORIGIN },
      { 'X-Session-Cookie': '1' },
      { 'X-Session-Cookie': '1', Origin: 'https://evil.example' },
      { 'X-Session-Cookie': '1', Origin: ORIGIN, 'Sec-Fetch-Site': 'cross-site' },
      { 'X-Session-Cookie': '1', Origin: ORIGIN, 'Sec-Fetch-Site': 'same-site' },
    ];
    for (const headers of forged) {
      const res = await restore(cookie, headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body.detail).toMatch(/same-origin request with the X-Session-Cookie: 1 header/);
    }
    // a foreign page cannot plant a session cookie through sign-in either
    const planted = await login(
      h,
      { email: admin.email, password: PASSWORD },
      { ...CONSOLE, Origin: 'https://evil.example' },
    );
    expect(planted.status).toBe(403);
    expect(sessionCookieOf(planted.headers)).toBeUndefined();
    // none of the refusals spent the cookie
    expect((await restore(cookie)).status).toBe(200);
  });

  it('signs out through the cookie: the session ends and the cookie is cleared', async () => {
    const signedIn = await login(h, { email: admin.email, password: PASSWORD }, CONSOLE);
    const cookie = sessionCookieOf(signedIn.headers)?.value ?? '';
    const out = await h.request('POST', '/api/v1/auth/logout', {
      headers: { ...CONSOLE, Cookie: `itsm_refresh=${cookie}` },
    });
    expect(out.status).toBe(204);
    expect(sessionCookieOf(out.headers)?.attrs).toContain('max-age=0');
    expect((await restore(cookie)).status).toBe(401);
    expect((await h.request('GET', '/api/v1/auth/me', { bearer: signedIn.body.access_token })).status).toBe(
      401,
    );
  });

  it('writes each sign-in and each failed one to the tenant’s audit log, never the password', async () => {
    const wrong = 'not the right password at all';
    expect((await login(h, { email: admin.email, password: wrong })).status).toBe(401);
    expect((await login(h, { email: admin.email, password: PASSWORD })).status).toBe(200);
    await h.runtime.drain();
    const rows = await h.db
      .selectFrom('audit_log')
      .selectAll()
      .where('tenant_id', '=', admin.tenantId)
      .where('action', 'in', ['user.signed_in', 'user.sign_in_failed'])
      .orderBy('created_at', 'desc')
      .execute();
    const failed = rows.find((r) => r.action === 'user.sign_in_failed');
    const ok = rows.find((r) => r.action === 'user.signed_in');
    expect(failed).toMatchObject({ actor: 'anonymous', target_type: 'user', target_id: admin.userId });
    expect(ok).toMatchObject({ actor: `user:${admin.userId}`, target_type: 'user', target_id: admin.userId });
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(wrong);
    expect(stored).not.toContain(PASSWORD);
    // the audit API serves them to the tenant's admin
    const log = await h.request('GET', '/api/v2/audit-log?action=user.sign_in_failed', {
      bearer: admin.pair.access_token,
    });
    expect(log.status).toBe(200);
    expect(log.body.entries[0]).toMatchObject({ action: 'user.sign_in_failed', target_id: admin.userId });
  });
});
