import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyEndUserToken } from '../../shared/auth/jwt';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('end-user API (/api/v1/app)', () => {
  let h: Harness;
  let t: TestTenant;
  let other: TestTenant;
  const register = (body: Record<string, unknown>) =>
    h.request('POST', '/api/v1/app/auth/register', { body });

  beforeAll(async () => {
    h = await startHarness();
    // these tests log in many times from one (unknown) client IP: the per-IP limit has its own test
    h.runtime.services.rateLimiter = undefined;
    t = await h.tenant();
    other = await h.tenant();
  }, 120_000);
  afterAll(() => h?.close());

  it('registers (201 + token), logs in, and the same email cannot register twice', async () => {
    const reg = await register({
      tenant_id: t.id,
      email: 'Eve@Example.com',
      password: 'correct horse',
      name: 'Eve',
    });
    expect(reg.status).toBe(201);
    expect(reg.body).toMatchObject({
      token_type: 'bearer',
      expires_in: 3600,
      user: { email: 'eve@example.com', name: 'Eve' },
    });
    const claims = await verifyEndUserToken(reg.body.access_token, h.config.END_USER_JWT_SECRET);
    expect(claims).toEqual({ endUserId: reg.body.user.id, tenantId: t.id, email: 'eve@example.com' });

    const dup = await register({ tenant_id: t.id, email: 'eve@example.com', password: 'another one' });
    expect(dup.status).toBe(409);
    // the same email in another tenant is another person
    expect(
      (await register({ tenant_id: other.id, email: 'eve@example.com', password: 'correct horse' })).status,
    ).toBe(201);

    const login = await h.request('POST', '/api/v1/app/auth/login', {
      body: { tenant_id: t.id, email: 'EVE@example.com', password: 'correct horse' },
    });
    expect(login.status).toBe(200);
    expect(login.body.user.id).toBe(reg.body.user.id);
  });

  it('unknown email, wrong password and unknown tenant are the same 401', async () => {
    for (const body of [
      { tenant_id: t.id, email: 'nobody@example.com', password: 'correct horse' },
      { tenant_id: t.id, email: 'eve@example.com', password: 'wrong horse' },
      { tenant_id: 'ten_nope', email: 'eve@example.com', password: 'correct horse' },
    ]) {
      const res = await h.request('POST', '/api/v1/app/auth/login', { body });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Invalid email or password' });
    }
  });

  it('validates bodies (422)', async () => {
    const short = await register({ tenant_id: t.id, email: 'x@example.com', password: 'short' });
    expect(short.status).toBe(422);
    expect(short.body.detail[0].loc).toEqual(['body', 'password']);
    const extra = await register({
      tenant_id: t.id,
      email: 'x@example.com',
      password: 'long enough',
      role: 'admin',
    });
    expect(extra.status).toBe(422);
    expect(
      (await register({ tenant_id: 'ten_nope', email: 'x@example.com', password: 'long enough' })).status,
    ).toBe(404);
  });

  it('magic link: same answer for unknown addresses, single use, 15 minutes', async () => {
    const unknown = await h.request('POST', '/api/v1/app/auth/magic-link', {
      body: { tenant_id: t.id, email: 'ghost@example.com' },
    });
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual({
      detail: 'If the address belongs to an account, a sign-in link has been sent',
      expires_in: 900,
    });
    const sent = await h.request('POST', '/api/v1/app/auth/magic-link', {
      body: { tenant_id: t.id, email: 'eve@example.com' },
    });
    // the same answer as for an unknown address: the token is only in the mail
    expect([sent.status, sent.body]).toEqual([202, unknown.body]);
    const token = await mailedMagicToken('eve@example.com');
    expect(sent.text).not.toContain(token);
    const stored = await h.db.selectFrom('end_user_magic_links').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(token);
    expect((await h.outbox()).some((m) => m.to === 'ghost@example.com')).toBe(false);

    const ok = await h.request('POST', '/api/v1/app/auth/magic-link/verify', {
      body: { token },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.user.email).toBe('eve@example.com');
    const again = await h.request('POST', '/api/v1/app/auth/magic-link/verify', {
      body: { token },
    });
    expect(again.status).toBe(401);
    expect(again.body).toEqual({ detail: 'Invalid or expired magic link' });

    await h.request('POST', '/api/v1/app/auth/magic-link', {
      body: { tenant_id: t.id, email: 'eve@example.com' },
    });
    const late = await mailedMagicToken('eve@example.com');
    await h.db
      .updateTable('end_user_magic_links')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('used_at', 'is', null)
      .execute();
    const expired = await h.request('POST', '/api/v1/app/auth/magic-link/verify', {
      body: { token: late },
    });
    expect(expired.status).toBe(401);
  });

  /** the token of the newest sign-in link mailed to `to` (the test runtime's outbox) */
  const mailedMagicToken = async (to: string) => {
    const mail = (await h.outbox()).filter((m) => m.to === to).at(-1);
    if (!mail) throw new Error(`no mail to ${to}`);
    expect(mail.link).toMatch(/\/app\/login\/magic\?token=/);
    return new URL(mail.link).searchParams.get('token') as string;
  };

  it('production does not return the link in the response', async () => {
    const config = h.runtime.services.config as { APP_ENV: string };
    config.APP_ENV = 'production';
    try {
      const res = await h.request('POST', '/api/v1/app/auth/magic-link', {
        body: { tenant_id: t.id, email: 'eve@example.com' },
      });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        detail: 'If the address belongs to an account, a sign-in link has been sent',
        expires_in: 900,
      });
    } finally {
      config.APP_ENV = 'test';
    }
  });

  it('end users list and create only their own tickets', async () => {
    const a = (await register({ tenant_id: t.id, email: 'a@example.com', password: 'correct horse' })).body
      .access_token;
    const b = (
      await register({ tenant_id: t.id, email: 'b@example.com', password: 'correct horse', name: 'Bee' })
    ).body.access_token;

    const created = await h.request('POST', '/api/v1/app/tickets', {
      bearer: b,
      body: { subject: 'Printer on fire', priority: 'high' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      subject: 'Printer on fire',
      priority: 'high',
      requester_email: 'b@example.com',
      requester_name: 'Bee',
      source: 'end_user',
    });
    await h.request('POST', '/api/v1/app/tickets', { bearer: a, body: { subject: 'A1' } });
    await h.request('POST', '/api/v1/app/tickets', { bearer: a, body: { subject: 'A2' } });
    // an agent's ticket for nobody in particular
    const staffKey = await t.key(['tickets:write']);
    await h.request('POST', '/api/v1/tickets', { apiKey: staffKey, body: { subject: 'internal' } });

    const mine = await h.request('GET', '/api/v1/app/tickets', { bearer: a });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(mine.body.tickets.map((x: any) => x.subject).sort()).toEqual(['A1', 'A2']);
    const open = await h.request('GET', '/api/v1/app/tickets?status=open', { bearer: a });
    expect(open.body.total).toBe(2);
    // a status that does not exist is a mistake to report, as on the agents' list, not an empty page
    const bogus = await h.request('GET', '/api/v1/app/tickets?status=bogus', { bearer: a });
    expect(bogus.status).toBe(422);
    expect(bogus.body.detail[0].loc).toEqual(['query', 'status']);
    expect((await h.request('GET', `/api/v1/app/tickets/${created.body.id}`, { bearer: a })).status).toBe(
      404,
    );
    expect((await h.request('GET', `/api/v1/app/tickets/${created.body.id}`, { bearer: b })).status).toBe(
      200,
    );

    // an end user cannot set agent-only fields
    const sneaky = await h.request('POST', '/api/v1/app/tickets', {
      bearer: a,
      body: { subject: 'x', requester_id: 'usr_other' },
    });
    expect(sneaky.status).toBe(422);
    // ticket.created was emitted for the end user's ticket
    const evs = await h.db
      .selectFrom('events')
      .select('payload')
      .where('tenant_id', '=', t.id)
      .where('event_type', '=', 'ticket.created')
      .execute();
    expect(evs.map((e: any) => e.payload.ticket.subject)).toContain('Printer on fire');
  });

  it('the app paths need an end-user token', async () => {
    expect((await h.request('GET', '/api/v1/app/tickets')).status).toBe(401);
    const key = await t.key(['tickets:read']);
    const withKey = await h.request('GET', '/api/v1/app/tickets', { apiKey: key });
    expect([401, 403]).toContain(withKey.status);
    const me = await h.request('POST', '/api/v1/app/auth/login', {
      body: { tenant_id: t.id, email: 'a@example.com', password: 'correct horse' },
    });
    const profile = await h.request('GET', '/api/v1/app/me', { bearer: me.body.access_token });
    expect(profile.body).toMatchObject({ email: 'a@example.com', tenant_id: t.id });
  });
});
