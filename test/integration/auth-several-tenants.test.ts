/**
 * One address, several tenants: sign-in without tenant_id checks the password against each active
 * account of the address. One match signs in, several answer 409 with the tenants to choose from,
 * none is the one 401; another tenant's account or invitation never turns a right password into a
 * refusal or a throttle count.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyDashboardToken } from '../../shared/auth/jwt';
import { login, mailedToken, signUpAdmin } from '../support/accounts';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

describe.skipIf(postgresUnavailable())('sign-in of an address with accounts in several tenants', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  }, 120_000);
  beforeEach(async () => {
    await h.db.deleteFrom('auth_throttle').execute();
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Tenant B's admin invites `email` as an agent; the invitee accepts with `password` when given. */
  async function inviteToB(b: { pair: { access_token: string } }, email: string, password?: string) {
    const invited = await h.request('POST', '/api/v1/tenant/users', {
      bearer: b.pair.access_token,
      body: { email, role: 'agent' },
    });
    expect(invited.status).toBe(201);
    if (password === undefined) return;
    const accepted = await h.request('POST', '/api/v1/auth/accept-invite', {
      body: { token: await mailedToken(h, email), password },
    });
    expect(accepted.status).toBe(200);
  }
  const tenantOf = async (accessToken: string) =>
    (await verifyDashboardToken(accessToken, { secret: h.config.DASHBOARD_JWT_SECRET }))?.tenantId;

  it("another tenant's accepted invitation of the address keeps A's sign-in working and uncounted", async () => {
    const a = await signUpAdmin(h, 'agent1@demo.example');
    const b = await signUpAdmin(h, 'boss1@beta.example');
    await inviteToB(b, a.email, 'beta tenant password');
    // more sign-ins than the 5 failures that would lock the account at this address
    for (let i = 0; i < 7; i++) {
      const res = await login(h, { email: a.email, password: a.password });
      expect(res.status).toBe(200);
      expect(await tenantOf(res.body.access_token)).toBe(a.tenantId);
    }
    const inB = await login(h, { email: a.email, password: 'beta tenant password' });
    expect(inB.status).toBe(200);
    expect(await tenantOf(inB.body.access_token)).toBe(b.tenantId);
    // tenant_id still picks, and still refuses the other tenant's password
    expect((await login(h, { email: a.email, password: a.password, tenant_id: a.tenantId })).status).toBe(
      200,
    );
    expect((await login(h, { email: a.email, password: a.password, tenant_id: b.tenantId })).status).toBe(
      401,
    );
    const counted = await h.db.selectFrom('auth_throttle').select(['key', 'failures']).execute();
    expect(counted.filter((r) => r.key.startsWith('account_ip:')).map((r) => r.failures)).toEqual([1]);
  });

  it('a pending invitation from another tenant changes nothing', async () => {
    const a = await signUpAdmin(h, 'agent2@demo.example');
    const b = await signUpAdmin(h, 'boss2@beta.example');
    await inviteToB(b, a.email);
    for (let i = 0; i < 6; i++)
      expect((await login(h, { email: a.email, password: a.password })).status).toBe(200);
  });

  it('the same password in two tenants: 409 naming both tenants; tenant_id then signs in', async () => {
    const a = await signUpAdmin(h, 'agent3@demo.example');
    const b = await signUpAdmin(h, 'boss3@beta.example');
    await h.request('PATCH', '/api/v1/tenant', { bearer: b.pair.access_token, body: { name: 'Beta' } });
    await inviteToB(b, a.email, a.password);
    const both = await login(h, { email: a.email, password: a.password });
    expect(both.status).toBe(409);
    expect(both.body.detail).toBe('This address has accounts in several tenants: send tenant_id');
    const tenants = [...both.body.tenants].sort((x: { id: string }, y: { id: string }) =>
      x.id.localeCompare(y.id),
    );
    const names = await h.db
      .selectFrom('tenants')
      .select(['id', 'name'])
      .where('id', 'in', [a.tenantId, b.tenantId])
      .orderBy('id')
      .execute();
    expect(tenants).toEqual(names.map((t) => ({ id: t.id, name: t.name })));
    expect(Object.keys(both.body).sort()).toEqual(['detail', 'tenants']);
    // a 409 is no failure: no count for this account
    const counted = await h.db.selectFrom('auth_throttle').select('key').execute();
    expect(counted.filter((r) => r.key.startsWith(`account_ip:${a.email}`))).toEqual([]);
    const chosen = await login(h, { email: a.email, password: a.password, tenant_id: b.tenantId });
    expect(chosen.status).toBe(200);
    expect(await tenantOf(chosen.body.access_token)).toBe(b.tenantId);
    // a wrong password is the one 401, whatever the number of accounts
    const wrong = await login(h, { email: a.email, password: 'not the password at all' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ detail: 'Invalid email or password' });
  });

  it('a disabled account in one tenant leaves the other the one match', async () => {
    const a = await signUpAdmin(h, 'agent4@demo.example');
    const b = await signUpAdmin(h, 'boss4@beta.example');
    await inviteToB(b, a.email, a.password);
    await h.db
      .updateTable('tenant_users')
      .set({ disabled_at: new Date() })
      .where('tenant_id', '=', b.tenantId)
      .where('email', '=', a.email)
      .execute();
    const res = await login(h, { email: a.email, password: a.password });
    expect(res.status).toBe(200);
    expect(await tenantOf(res.body.access_token)).toBe(a.tenantId);
  });
});
