import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context/app-env';
import type { Credential } from '../context/credential';
import { type Role, roleAtLeast } from '../context/roles';
import { Detail, forbidden, unauthorized } from './errors';

/** Dashboard session with at least `role` (API keys never reach these paths: the gate refuses them). */
export function requireRole(c: Context<AppEnv>, role: Role): Extract<Credential, { kind: 'dashboard' }> {
  const auth = c.get('auth');
  if (auth.kind === 'api_key') throw forbidden(Detail.apiKeyNotPermitted);
  if (auth.kind !== 'dashboard') throw unauthorized(Detail.missingCredentials);
  if (!roleAtLeast(auth.role, role)) throw forbidden(Detail.roleRequired(role));
  return auth;
}

/**
 * Mounted by `register` (shared/http/route.ts) on a route that declares `access.role`: every caller
 * but an API key needs a dashboard session of at least `role`. API keys answer to their scopes alone
 * (and where a path refuses keys, the gate has refused them already).
 */
export function roleGuard(role: Role): MiddlewareHandler<AppEnv> {
  return function roleGuard(c, next) {
    if (c.get('auth').kind !== 'api_key') requireRole(c, role);
    return next();
  };
}
