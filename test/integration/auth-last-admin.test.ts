/**
 * A tenant keeps an administrator: demoting or removing its last active tenant_admin is 409 (a
 * tenant nobody can administer cannot invite, mint keys or recover). Pending invitees do not count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailedToken, PASSWORD, type SignedUpAdmin, signUpAdmin } from '../support/accounts';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

const LAST_ADMIN = { detail: 'A tenant keeps at least one active tenant_admin: this would leave it none' };

describe.skipIf(postgresUnavailable())('the last active tenant_admin stays', () => {
  let h: Harness;
  let owner: SignedUpAdmin;
  beforeAll(async () => {
    h = await startHarness();
    owner = await signUpAdmin(h, 'owner@last-admin.example');
  }, 120_000);
  afterAll(() => h?.close());

  const as = (token: string) => ({ bearer: token });
  const invite = async (email: string) => {
    const res = await h.request('POST', '/api/v1/tenant/users', {
      ...as(owner.pair.access_token),
      body: { email, role: 'tenant_admin' },
    });
    expect(res.status).toBe(201);
    return res.body as { id: string; invite: { token: string } };
  };

  it('the sole admin can neither demote nor remove themselves (409, nothing changed)', async () => {
    const token = owner.pair.access_token;
    const demote = await h.request('PATCH', `/api/v1/tenant/users/${owner.userId}`, {
      ...as(token),
      body: { role: 'agent' },
    });
    expect([demote.status, demote.body]).toEqual([409, LAST_ADMIN]);
    const remove = await h.request('DELETE', `/api/v1/tenant/users/${owner.userId}`, as(token));
    expect([remove.status, remove.body]).toEqual([409, LAST_ADMIN]);
    const still = await h.request('GET', `/api/v1/tenant/users/${owner.userId}`, as(token));
    expect(still.body.role).toBe('tenant_admin');
    // a rename is no demotion
    const rename = await h.request('PATCH', `/api/v1/tenant/users/${owner.userId}`, {
      ...as(token),
      body: { name: 'Owner', role: 'tenant_admin' },
    });
    expect(rename.status).toBe(200);
  });

  it('a pending admin invitation is no admin yet', async () => {
    await invite('pending@last-admin.example');
    const demote = await h.request('PATCH', `/api/v1/tenant/users/${owner.userId}`, {
      ...as(owner.pair.access_token),
      body: { role: 'agent' },
    });
    expect([demote.status, demote.body]).toEqual([409, LAST_ADMIN]);
  });

  it('with a second active admin, one may step down; the one left stays', async () => {
    const second = await invite('second@last-admin.example');
    const accepted = await h.request('POST', '/api/v1/auth/accept-invite', {
      body: { token: await mailedToken(h, 'second@last-admin.example'), password: PASSWORD },
    });
    expect(accepted.status).toBe(200);
    const demote = await h.request('PATCH', `/api/v1/tenant/users/${owner.userId}`, {
      ...as(accepted.body.access_token),
      body: { role: 'agent' },
    });
    expect(demote.status).toBe(200);
    const self = await h.request(
      'DELETE',
      `/api/v1/tenant/users/${second.id}`,
      as(accepted.body.access_token),
    );
    expect([self.status, self.body]).toEqual([409, LAST_ADMIN]);
  });

  it('two admins demoting each other at once: one wins, the other is refused', async () => {
    const a = await signUpAdmin(h, 'a@race.example');
    const invited = await h.request('POST', '/api/v1/tenant/users', {
      ...as(a.pair.access_token),
      body: { email: 'b@race.example', role: 'tenant_admin' },
    });
    const b = await h.request('POST', '/api/v1/auth/accept-invite', {
      body: { token: await mailedToken(h, 'b@race.example'), password: PASSWORD },
    });
    const [ab, ba] = await Promise.all([
      h.request('PATCH', `/api/v1/tenant/users/${invited.body.id}`, {
        ...as(a.pair.access_token),
        body: { role: 'agent' },
      }),
      h.request('PATCH', `/api/v1/tenant/users/${a.userId}`, {
        ...as(b.body.access_token),
        body: { role: 'agent' },
      }),
    ]);
    // the loser is 409, or 401 when the winner's demotion ended its session before it was read
    const statuses = [ab.status, ba.status].sort();
    expect(statuses[0]).toBe(200);
    expect([401, 409]).toContain(statuses[1]);
    const admins = await h.db
      .selectFrom('tenant_users')
      .select('id')
      .where('tenant_id', '=', a.tenantId)
      .where('role', '=', 'tenant_admin')
      .execute();
    expect(admins).toHaveLength(1);
  });
});
