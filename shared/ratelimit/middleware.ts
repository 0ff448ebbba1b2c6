import type { Context, MiddlewareHandler, Next } from 'hono';
import type { AppEnv } from '../context/app-env';
import type { Surface } from '../context/surface';
import type { TenantPlan } from '../db/schema';
import { clientIp } from '../http/client-ip';
import { ApiError, Detail } from '../http/errors';
import type { MiddlewareDoc } from '../http/openapi';
import { setResponseHeader } from '../http/response-headers';
import { andThen } from '../sync-first';
import { type RateDecision, type RateRule, ruleOf } from './limiter';
import { AUTH_IP_LIMIT, isAuthPath, limitFor, type RateKind, rateKindOf } from './limits';
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

const AUTH_IP_RULE = ruleOf(AUTH_IP_LIMIT);
/** Rules are built once per (plan, kind, scale), not per request. */
const rules = new Map<string, RateRule>();
function ruleFor(plan: TenantPlan, kind: RateKind, scale: number): RateRule {
  const id = `${plan}:${kind}:${scale}`;
  let rule = rules.get(id);
  if (!rule) {
    rule = ruleOf(limitFor(plan, kind, scale));
    rules.set(id, rule);
  }
  return rule;
}

type Subject = { key: string; rule: RateRule };

function subjectOf(c: Context<AppEnv>): Subject | null | Promise<Subject> {
  const auth = c.get('auth');
  const path = c.req.path;
  if (auth.kind === 'anonymous') {
    if (!isAuthPath(path)) return null;
    return { key: `ip:${clientIp(c) ?? 'unknown'}:auth`, rule: AUTH_IP_RULE };
  }
  if (auth.kind === 'internal') return null;
  if (auth.kind === 'dashboard' && auth.role === 'super_admin') return null;
  const kind = rateKindOf(c.req.method, path);
  const { db, config } = c.get('services');
  return andThen(planOf(db, auth.tenantId), (plan) => ({
    key: `t:${auth.tenantId}:${kind}`,
    rule: ruleFor(plan, kind, config.RATE_LIMIT_SCALE),
  }));
}

function admit(c: Context<AppEnv>, next: Next, decision: RateDecision) {
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    throw new ApiError(429, Detail.rateLimited, { ...headers, 'Retry-After': String(decision.retryAfter) });
  }
  // set before the handler runs, so whatever response it builds carries them
  for (const name in headers) setResponseHeader(c, name, headers[name]!);
  return next();
}

/**
 * Not an async function, like the gate: with the tenant's plan cached and the in-memory limiter
 * (the embedded runtime, every request but a tenant's first in 30 s) it decides without a promise.
 */
function limit(c: Context<AppEnv>, next: Next) {
  const limiter = c.get('services').rateLimiter;
  const auth = c.get('auth');
  // a key read from the shared cache was counted in that same round trip
  if (auth.kind === 'api_key' && auth.rate) return admit(c, next, auth.rate);
  const subject = limiter ? subjectOf(c) : null;
  if (!limiter || !subject) return next();
  return andThen(subject, (s) =>
    andThen(limiter.check(s.key, s.rule), (decision) => admit(c, next, decision)),
  );
}

// Hono awaits whatever a middleware returns; its type only admits promises (as for the gate)
export const rateLimit = (): MiddlewareHandler<AppEnv> => limit as unknown as MiddlewareHandler<AppEnv>;

/**
 * The callers `subjectOf` counts, by the surface a path takes: a tenant's credential (API key,
 * dashboard session below super_admin, end-user token; on a sign-in route, the session it may
 * carry: GET /api/v1/auth/me, logout), and anyone on the auth paths (by IP).
 */
const LIMITED_SURFACES: ReadonlySet<Surface> = new Set(['api', 'dashboard', 'end_user', 'sign_in']);
const isLimited = (surface: Surface, path: string) => LIMITED_SURFACES.has(surface) || isAuthPath(path);

/**
 * Answers made before this middleware runs carry no X-RateLimit-* headers: the gate's 413 and 415,
 * its 401 and its 403 (a missing scope, a credential the path refuses). A role refusal (403) comes
 * after it, from the route (`roleGuard`), so an operation with a role carries them on its 403 too.
 */
const ANSWERED_BEFORE: ReadonlySet<string> = new Set(['401', '403', '413', '415']);

/** The limiter as the OpenAPI document shows it (functions/docs/document.ts hands it to the builder). */
export const RATE_LIMIT_DOC: MiddlewareDoc = {
  appliesTo: (t) => isLimited(t.surface, t.honoPath),
  refusals: {
    '429': {
      description: 'Rate limit exceeded (per tenant and plan; see the X-RateLimit-* headers)',
      detail: Detail.rateLimited,
      name: 'rateLimited',
      summary: 'Too many requests in the current window',
      headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
    },
  },
  responseHeaders: {
    components: {
      'X-RateLimit-Limit': {
        description: 'Requests allowed in the current window for this tenant, plan and kind of endpoint',
        schema: { type: 'integer', minimum: 0 },
      },
      'X-RateLimit-Remaining': {
        description: 'Requests left in the current window',
        schema: { type: 'integer', minimum: 0 },
      },
      'X-RateLimit-Reset': {
        description: 'Seconds until the current window resets',
        schema: { type: 'integer', minimum: 0 },
      },
    },
    carriedBy: (status, t) =>
      !ANSWERED_BEFORE.has(status) ||
      (status === '403' && t.route.access.role !== undefined && t.route.access.role !== 'agent'),
  },
};
