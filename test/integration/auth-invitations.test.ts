/**
 * Invitations an admin can manage (list pending, resend with a new link, revoke), the console's
 * credential-free preview of an invite, and a pending invitation not counting as a membership at
 * sign-in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  login,
  mailedLink,
  mailedToken,
  PASSWORD,
  type SignedUpAdmin,
  signUpAdmin,
} from '../support/accounts';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

describe.skipIf(postgresUnavailable())('invitations', () => {
  let h: Harness;
  let admin: SignedUpAdmin;
  beforeAll(async () => {
    h = await startHarness();
    admin = await signUpAdmin(h, 'owner@invitations.example');
  }, 120_000);
  afterAll(() => h?.close());

  const as = () => ({ bearer: admin.pair.access_token });
  const invite = async (email: string, role = 'agent', by = as()) => {
    const res = await h.request('POST', '/api/v1/tenant/users', { ...by, body: { email, role } });
    expect(res.status).toBe(201);
    // outside development the invite's token travels by mail only
    expect(res.body.invite).toEqual({ expires_at: expect.any(String) });
    const body = res.body as {
      id: string;
      invite: { token: string; accept_url: string; expires_at: string };
    };
    return {
      ...body,
      invite: { ...body.invite, token: await mailedToken(h, email), accept_url: await mailedLink(h, email) },
    };
  };
  const accept = (token: string) =>
    h.request('POST', '/api/v1/auth/accept-invite', { body: { token, password: PASSWORD } });

  it('GET lists the pending ones only, newest first, paginated, with id, email, role, expires_at, created_at', async () => {
    const a = await invite('pending-a@invitations.example');
    const b = await invite('pending-b@invitations.example', 'tenant_admin');
    const joined = await invite('joined@invitations.example');
    expect((await accept(joined.invite.token)).status).toBe(200);

    const list = await h.request('GET', '/api/v1/tenant/invitations', as());
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(list.body.invitations).toEqual([
      {
        id: b.id,
        email: 'pending-b@invitations.example',
        role: 'tenant_admin',
        expires_at: b.invite.expires_at,
        created_at: expect.any(String),
      },
      expect.objectContaining({ id: a.id, email: 'pending-a@invitations.example', role: 'agent' }),
    ]);
    const page = await h.request('GET', '/api/v1/tenant/invitations?limit=1&offset=1', as());
    expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1, invitations: [{ id: a.id }] });
    expect((await h.request('GET', '/api/v1/tenant/invitations?limit=0', as())).status).toBe(422);

    // the same roles and scopes as /tenant/users: an agent reads, a key needs users:read + roles:write
    const agent = await h.tenant();
    expect(
      (await h.request('GET', '/api/v1/tenant/invitations', { bearer: await agent.token('agent') })).status,
    ).toBe(200);
    const reader = await agent.key(['users:read', 'roles:write']);
    expect((await h.request('GET', '/api/v1/tenant/invitations', { apiKey: reader })).status).toBe(200);
    const noRoles = await agent.key(['users:read']);
    const refused = await h.request('GET', '/api/v1/tenant/invitations', { apiKey: noRoles });
    expect([refused.status, refused.body]).toEqual([
      403,
      { detail: 'Insufficient permissions: requires roles:write' },
    ]);
  });

  it('resend: a new link, mailed (not returned outside development); the old link is void', async () => {
    const first = await invite('resend@invitations.example');
    const resent = await h.request('POST', `/api/v1/tenant/invitations/${first.id}/resend`, as());
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ id: first.id, email: 'resend@invitations.example', role: 'agent' });
    expect(resent.body.invite).toEqual({ expires_at: resent.body.expires_at });
    const link = await mailedLink(h, 'resend@invitations.example');
    expect(link).toContain('/console/accept-invite?token=itsm_inv_');
    const token = await mailedToken(h, 'resend@invitations.example');
    expect(token).not.toBe(first.invite.token);

    const old = await accept(first.invite.token);
    expect([old.status, old.body]).toEqual([400, { detail: 'Invalid or expired invite' }]);
    expect((await accept(token)).status).toBe(200);
    // accepted: no longer an invitation
    const again = await h.request('POST', `/api/v1/tenant/invitations/${first.id}/resend`, as());
    expect([again.status, again.body]).toEqual([404, { detail: 'Invitation not found' }]);
  });

  it('revoke: 204, the link stops working, the invitee is gone; accepted users are not invitations', async () => {
    const pending = await invite('revoke@invitations.example');
    const revoked = await h.request('DELETE', `/api/v1/tenant/invitations/${pending.id}`, as());
    expect(revoked.status).toBe(204);
    expect((await accept(pending.invite.token)).status).toBe(400);
    expect((await h.request('GET', `/api/v1/tenant/users/${pending.id}`, as())).status).toBe(404);
    const twice = await h.request('DELETE', `/api/v1/tenant/invitations/${pending.id}`, as());
    expect([twice.status, twice.body]).toEqual([404, { detail: 'Invitation not found' }]);
    const member = await h.request('DELETE', `/api/v1/tenant/invitations/${admin.userId}`, as());
    expect(member.status).toBe(404);
    expect((await h.request('GET', `/api/v1/tenant/users/${admin.userId}`, as())).status).toBe(200);
  });

  it("another tenant's invitation is 404 for every action", async () => {
    const other = await signUpAdmin(h, 'other-owner@invitations.example');
    const theirs = await invite('theirs@invitations.example', 'agent', { bearer: other.pair.access_token });
    for (const [method, path] of [
      ['POST', `/api/v1/tenant/invitations/${theirs.id}/resend`],
      ['DELETE', `/api/v1/tenant/invitations/${theirs.id}`],
    ] as const)
      expect((await h.request(method, path, as())).status).toBe(404);
    const list = await h.request('GET', '/api/v1/tenant/invitations', as());
    expect(list.body.invitations.map((i: { id: string }) => i.id)).not.toContain(theirs.id);
  });

  it('a pending invitation is no membership: tenant B inviting an address keeps its sign-in to A working', async () => {
    const b = await signUpAdmin(h, 'b-owner@invitations.example');
    await invite(admin.email, 'agent', { bearer: b.pair.access_token });
    const res = await login(h, { email: admin.email, password: PASSWORD });
    expect(res.status).toBe(200);
    const me = await h.request('GET', '/api/v1/auth/me', { bearer: res.body.access_token });
    expect(me.body.tenant.id).toBe(admin.tenantId);
  });

  describe('POST /api/v1/auth/invite-preview (credential-free, for the accept page)', () => {
    it('answers the tenant, address, role and expiry, without spending the token', async () => {
      const pending = await invite('preview@invitations.example', 'tenant_admin');
      const preview = await h.request('POST', '/api/v1/auth/invite-preview', {
        body: { token: pending.invite.token },
      });
      expect(preview.status).toBe(200);
      expect(preview.body).toEqual({
        tenant: { id: admin.tenantId, name: 'Acme' },
        email: 'preview@invitations.example',
        role: 'tenant_admin',
        expires_at: pending.invite.expires_at,
        // the name the inviter gave, for the accept page to pre-fill (none given here)
        name: null,
      });
      expect((await accept(pending.invite.token)).status).toBe(200);
      const spent = await h.request('POST', '/api/v1/auth/invite-preview', {
        body: { token: pending.invite.token },
      });
      expect([spent.status, spent.body]).toEqual([404, { detail: 'Invitation not found or expired' }]);
    });

    it('an unknown token, or a reset token, is the same 404', async () => {
      for (const token of ['itsm_inv_nope', 'x'.repeat(200)]) {
        const res = await h.request('POST', '/api/v1/auth/invite-preview', { body: { token } });
        expect([res.status, res.body]).toEqual([404, { detail: 'Invitation not found or expired' }]);
      }
      const bad = await h.request('POST', '/api/v1/auth/invite-preview', { body: {} });
      expect(bad.status).toBe(422);
    });
  });
});
