/**
 * Generated from GRANTS (shared/auth/grants.ts), as the scope tests are from SCOPE_RULES: for every
 * credential and every action on a tenant user, the action succeeds exactly when the credential may
 * grant every role it touches, and otherwise is 403 and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRANTS, type Grantor, type TenantRole } from '../../shared/auth/grants';
import { newId } from '../../shared/ids';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

const ROLES: TenantRole[] = ['agent', 'tenant_admin'];
const REFUSED = { detail: 'This action requires the tenant_admin role' };

interface Action {
  name: string;
  /** roles the action gives or takes away */
  touches: TenantRole[];
  /** the role of the existing user it acts on, if any */
  target?: TenantRole;
  /** the user it acts on has been invited and not accepted yet */
  pending?: boolean;
  run(h: Harness, cred: Cred, targetId: string): Promise<{ status: number; body: any }>;
  /** what the database shows when the action was refused */
  unchanged(h: Harness, tenantId: string, targetId: string): Promise<boolean>;
}
type Cred = { apiKey?: string; bearer?: string };

const roleOf = async (h: Harness, id: string) =>
  (await h.db.selectFrom('tenant_users').select('role').where('id', '=', id).executeTakeFirst())?.role;
let seq = 0;

function actions(): Action[] {
  const out: Action[] = [];
  for (const role of ROLES) {
    out.push({
      name: `invite a new ${role}`,
      touches: [role],
      run: (h, cred) =>
        h.request('POST', '/api/v1/tenant/users', {
          ...cred,
          body: { email: `new${++seq}@grants.example`, role },
        }),
      unchanged: async (h, tenantId) => {
        const n = await h.db
          .selectFrom('tenant_users')
          .select((e) => e.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', tenantId)
          .where('email', 'like', 'new%')
          .executeTakeFirstOrThrow();
        return Number(n.n) === 0;
      },
    });
    out.push({
      name: `remove a ${role}`,
      touches: [role],
      target: role,
      run: (h, cred, id) => h.request('DELETE', `/api/v1/tenant/users/${id}`, cred),
      unchanged: async (h, _t, id) => (await roleOf(h, id)) === role,
    });
    out.push({
      name: `rename a ${role}`,
      touches: [role],
      target: role,
      run: (h, cred, id) =>
        h.request('PATCH', `/api/v1/tenant/users/${id}`, { ...cred, body: { name: 'Renamed' } }),
      unchanged: async (h, _t, id) =>
        (await h.db.selectFrom('tenant_users').select('name').where('id', '=', id).executeTakeFirst())
          ?.name !== 'Renamed',
    });
    for (const [verb, method, suffix] of [
      ['resend', 'POST', '/resend'],
      ['revoke', 'DELETE', ''],
    ] as const)
      out.push({
        name: `${verb} an invitation to ${role}`,
        touches: [role],
        target: role,
        pending: true,
        run: (h, cred, id) => h.request(method, `/api/v1/tenant/invitations/${id}${suffix}`, cred),
        unchanged: async (h, _t, id) =>
          (
            await h.db
              .selectFrom('tenant_user_tokens')
              .select('token_hash')
              .where('user_id', '=', id)
              .execute()
          ).length === 1,
      });
    for (const to of ROLES)
      if (to !== role)
        out.push({
          name: `change a ${role} to ${to}`,
          touches: [role, to],
          target: role,
          run: (h, cred, id) =>
            h.request('PATCH', `/api/v1/tenant/users/${id}`, { ...cred, body: { role: to } }),
          unchanged: async (h, _t, id) => (await roleOf(h, id)) === role,
        });
  }
  return out;
}

const ACTIONS = actions();
const GRANTORS = Object.keys(GRANTS) as Grantor[];

describe.skipIf(postgresUnavailable())('what each credential may grant, table-driven over GRANTS', () => {
  let h: Harness;
  let t: TestTenant;
  const creds = {} as Record<Grantor, Cred>;

  /** a user invited by a tenant_admin session, who has not accepted yet */
  const pendingUser = async (role: TenantRole) => {
    const res = await h.request('POST', '/api/v1/tenant/users', {
      bearer: t.adminToken,
      body: { email: `pending${++seq}@grants.example`, role },
    });
    if (res.status !== 201) throw new Error(`invite: ${res.status} ${res.text}`);
    return res.body.id as string;
  };
  /** an active (signed-up) user of the tenant */
  const activeUser = async (role: TenantRole) => {
    const id = newId('tenantUser');
    await h.db
      .insertInto('tenant_users')
      .values({
        id,
        tenant_id: t.id,
        email: `${id.toLowerCase()}@grants.example`,
        name: null,
        role,
        password_hash: 'pbkdf2-sha256$1$AA==$AA==',
        updated_at: new Date(),
      })
      .execute();
    return id;
  };

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    for (const grantor of GRANTORS)
      creds[grantor] =
        grantor === 'api_key'
          ? { apiKey: await t.key(['users:read', 'users:write', 'roles:write']) }
          : { bearer: await t.token(grantor) };
    // two admins who are never acted on: the last-admin rule never decides these cases
    await activeUser('tenant_admin');
    await activeUser('tenant_admin');
  }, 120_000);
  afterAll(() => h?.close());

  it('the table: a key grants up to agent; a tenant_admin session grants tenant_admin', () => {
    expect(GRANTS.api_key).toEqual(['agent']);
    expect(GRANTS.tenant_admin).toContain('tenant_admin');
    expect(GRANTS.agent).toEqual([]);
  });

  for (const grantor of GRANTORS)
    for (const action of ACTIONS) {
      const allowed = action.touches.every((r) => GRANTS[grantor].includes(r));
      it(`${grantor}: ${action.name} -> ${allowed ? 'allowed' : '403'}`, async () => {
        const targetId = action.target
          ? await (action.pending ? pendingUser : activeUser)(action.target)
          : '';
        // a fresh tenant-wide view for the invite count
        await h.db
          .deleteFrom('tenant_users')
          .where('tenant_id', '=', t.id)
          .where('email', 'like', 'new%')
          .execute();
        const res = await action.run(h, creds[grantor], targetId);
        if (allowed) {
          expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(200);
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
        } else {
          expect([res.status, res.body]).toEqual([403, REFUSED]);
          expect(await action.unchanged(h, t.id, targetId)).toBe(true);
        }
      });
    }

  it('a users:write + roles:write key cannot mint an admin (the probe, replayed)', async () => {
    const key = creds.api_key;
    const invite = await h.request('POST', '/api/v1/tenant/users', {
      ...key,
      body: { email: 'escalate@grants.example', role: 'tenant_admin' },
    });
    expect(invite.status).toBe(403);
    expect(invite.text).not.toContain('itsm_inv_');
    const agent = await activeUser('agent');
    const raise = await h.request('PATCH', `/api/v1/tenant/users/${agent}`, {
      ...key,
      body: { role: 'tenant_admin' },
    });
    expect([raise.status, raise.body]).toEqual([403, REFUSED]);
    expect(await roleOf(h, agent)).toBe('agent');
    // up to agent it still manages colleagues
    const ok = await h.request('POST', '/api/v1/tenant/users', {
      ...key,
      body: { email: 'helper@grants.example', role: 'agent' },
    });
    expect(ok.status).toBe(201);
  });
});
