/**
 * No credential grants more than it holds. A key with users:write + roles:write could otherwise
 * invite a tenant_admin, accept the invite itself, and so hold a session that mints keys with every
 * scope the key never had. This table is the whole rule: which tenant roles each credential may
 * give, take away, or act on (create, change, remove a user, resend or revoke an invitation). The
 * tests in test/integration/auth-grants.test.ts are generated from it.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../context/app-env';
import type { Role } from '../context/roles';
import { Detail, forbidden } from '../http/errors';

/** The roles a tenant user can have. */
export type TenantRole = 'agent' | 'tenant_admin';
/** Who is granting: an API key, or a dashboard session of a role. */
export type Grantor = 'api_key' | Role;

export const GRANTS: Record<Grantor, readonly TenantRole[]> = {
  // a key holds scopes, not a role: it manages colleagues up to agent
  api_key: ['agent'],
  // an agent manages no one (the routes' role guard refuses it first)
  agent: [],
  tenant_admin: ['agent', 'tenant_admin'],
  super_admin: ['agent', 'tenant_admin'],
};

/** The session role that may grant `role` when the caller may not: named in the 403. */
const NEEDED: Record<TenantRole, Role> = { agent: 'tenant_admin', tenant_admin: 'tenant_admin' };

export function grantorOf(c: Context<AppEnv>): Grantor | null {
  const auth = c.get('auth');
  if (auth.kind === 'api_key') return 'api_key';
  if (auth.kind === 'dashboard') return auth.role;
  return null;
}

export const mayGrant = (grantor: Grantor | null, role: TenantRole) =>
  grantor !== null && GRANTS[grantor].includes(role);

/**
 * 403 `This action requires the tenant_admin role` unless the caller may grant every role the
 * action touches (the role given, and the one the user held before).
 */
export function requireGrant(c: Context<AppEnv>, ...roles: TenantRole[]): void {
  const grantor = grantorOf(c);
  for (const role of roles) if (!mayGrant(grantor, role)) throw forbidden(Detail.roleRequired(NEEDED[role]));
}
