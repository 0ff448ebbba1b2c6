import type { MiddlewareHandler } from 'hono';
import { requireRole } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/runtime/app-env';

/**
 * Dashboard sessions: tenant settings, billing and team changes need tenant_admin (an agent may
 * read settings but not change them). API keys are governed by their scopes alone.
 */
export function dashboardAdmin(options: { reads?: boolean } = {}): MiddlewareHandler<AppEnv> {
  return async function dashboardAdmin(c, next) {
    const auth = c.get('auth');
    const read = c.req.method === 'GET' || c.req.method === 'HEAD';
    if (auth.kind === 'dashboard' && (!read || options.reads)) requireRole(c, 'tenant_admin');
    await next();
  };
}
