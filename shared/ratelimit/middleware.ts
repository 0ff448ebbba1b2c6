import type { Context, MiddlewareHandler } from 'hono';
import { clientIp } from '../http/client-ip';
import { ApiError, Detail } from '../http/errors';
import type { AppEnv } from '../runtime/app-env';
import { type RateDecision, ruleOf } from './limiter';
import { AUTH_IP_LIMIT, isAuthPath, type KindLimit, limitFor, rateKindOf } from './limits';
import { planOf } from './plan-cache';

/**
 * After the gate (it needs the tenant): one check per request against the tenant's plan and the
 * endpoint's kind; key `t:<tenant>:<kind>`. Every limited response carries X-RateLimit-Limit,
 * -Remaining and -Reset (seconds until the reported window resets); a refused one is 429
 * `{"detail": "Rate limit exceeded"}` with Retry-After too. Not limited: internal-token calls,
 * super_admin sessions (platform operators), and public surfaces other than end-user login.
 */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(Math.max(0, Math.ceil((d.reset - d.now) / 1000))),
  };
}

async function subjectOf(c: Context<AppEnv>): Promise<{ key: string; limit: KindLimit } | null> {
  const auth = c.get('auth');
  const path = c.req.path;
  if (auth.kind === 'anonymous') {
    if (!isAuthPath(path)) return null;
    return { key: `ip:${clientIp(c) ?? 'unknown'}:auth`, limit: AUTH_IP_LIMIT };
  }
  if (auth.kind === 'internal') return null;
  if (auth.kind === 'dashboard' && auth.role === 'super_admin') return null;
  const kind = rateKindOf(c.req.method, path);
  const plan = await planOf(c.var.services.db, auth.tenantId);
  return {
    key: `t:${auth.tenantId}:${kind}`,
    limit: limitFor(plan, kind, c.var.services.config.RATE_LIMIT_SCALE),
  };
}

export function rateLimit(): MiddlewareHandler<AppEnv> {
  return async function rateLimit(c, next) {
    const limiter = c.var.services.rateLimiter;
    if (!limiter) return next();
    const subject = await subjectOf(c);
    if (!subject) return next();
    const decision = await limiter.check(subject.key, ruleOf(subject.limit));
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      throw new ApiError(429, Detail.rateLimited, { ...headers, 'Retry-After': String(decision.retryAfter) });
    }
    // prepared before the handler runs, so they are part of the response it builds (setting
    // them on c.res afterwards would make the Node adapter copy every response)
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    await next();
  };
}
