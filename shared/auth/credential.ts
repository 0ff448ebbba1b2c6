import type { Context } from 'hono';
import type { AppEnv } from '../context/app-env';
import { Detail, unauthorized } from '../http/errors';

export type { Credential } from '../context/credential';
// the role checks sit in http, below auth: `register` mounts them on a route's declaration
export { requireRole, roleGuard } from '../http/role-guard';

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
