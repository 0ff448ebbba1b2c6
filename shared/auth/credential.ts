import type { Context } from 'hono';
import { Detail, forbidden, unauthorized } from '../http/errors';
import type { AppEnv } from '../runtime/app-env';
import { type Role, roleAtLeast } from './jwt';

/** Who is calling, as established by the gate. Handlers take the tenant from here, never from the body. */
export type Credential =
  | { kind: 'anonymous' }
  | { kind: 'internal' }
  | { kind: 'api_key'; tenantId: string; keyId: string; scopes: ReadonlySet<string> }
  | { kind: 'dashboard'; tenantId: string; userId: string; role: Role; sessionId?: string }
  | { kind: 'end_user'; tenantId: string; endUserId: string; email: string | null };

/** The tenant of an API key, dashboard session or end-user token. */
export function tenantOf(c: Context<AppEnv>): string {
  const auth = c.get('auth');
  if (auth.kind === 'api_key' || auth.kind === 'dashboard' || auth.kind === 'end_user') return auth.tenantId;
  throw unauthorized(Detail.missingCredentials);
}

/** A short actor string for created_by / audit columns: `user:<sub>` or `api_key:<id>`. */
export function actorOf(c: Context<AppEnv>): string {
  const auth = c.get('auth');
  switch (auth.kind) {
    case 'dashboard':
      return `user:${auth.userId}`;
    case 'api_key':
      return `api_key:${auth.keyId}`;
    case 'end_user':
      return `end_user:${auth.endUserId}`;
    case 'internal':
      return 'internal';
    default:
      return 'anonymous';
  }
}

/** Dashboard session with at least `role` (API keys never reach these paths: the gate refuses them). */
export function requireRole(c: Context<AppEnv>, role: Role): Extract<Credential, { kind: 'dashboard' }> {
  const auth = c.get('auth');
  if (auth.kind === 'api_key') throw forbidden(Detail.apiKeyNotPermitted);
  if (auth.kind !== 'dashboard') throw unauthorized(Detail.missingCredentials);
  if (!roleAtLeast(auth.role, role)) throw forbidden(Detail.roleRequired(role));
  return auth;
}
