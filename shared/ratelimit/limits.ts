import type { TenantPlan } from '../db/schema';

/**
 * Rate limits per tenant plan and kind of endpoint (spec: Limits). Each cell has a per-minute
 * limit and a 10-second burst limit; staging and production use this same table. The
 * documentation (docs/rate-limits.md) is this table; test/unit/ratelimit-limiter.test.ts ("limits
 * table") keeps the two in step and checks that the free plan's kinds together stay within 600
 * requests a minute.
 */
export const RATE_KINDS = ['read', 'write', 'export'] as const;
export type RateKind = (typeof RATE_KINDS)[number];

export interface KindLimit {
  perMinute: number;
  per10s: number;
}

export const PLANS: readonly TenantPlan[] = ['free', 'starter', 'pro', 'enterprise'];

export const RATE_LIMITS: Record<TenantPlan, Record<RateKind, KindLimit>> = {
  free: {
    read: { perMinute: 400, per10s: 80 },
    write: { perMinute: 180, per10s: 40 },
    export: { perMinute: 20, per10s: 5 },
  },
  starter: {
    read: { perMinute: 1200, per10s: 240 },
    write: { perMinute: 600, per10s: 120 },
    export: { perMinute: 60, per10s: 15 },
  },
  pro: {
    read: { perMinute: 3000, per10s: 600 },
    write: { perMinute: 1500, per10s: 300 },
    export: { perMinute: 120, per10s: 30 },
  },
  enterprise: {
    read: { perMinute: 12000, per10s: 2400 },
    write: { perMinute: 6000, per10s: 1200 },
    export: { perMinute: 600, per10s: 120 },
  },
};

/**
 * The unauthenticated end-user login surface (`/api/v1/app/auth/*`) and dashboard password resets
 * are limited per client IP (credential stuffing, mail flooding; dashboard sign-in failures have
 * their own lock, functions/auth/throttle.ts); other public surfaces (health, help-center reads, docs, widget) are not
 * limited here (the edge's WAF rules cover them).
 */
export const AUTH_IP_LIMIT: KindLimit = { perMinute: 30, per10s: 10 };

/** Paths of the `export` kind: they produce whole data sets, so they get a tighter budget. */
const EXPORT_PATHS = [/^\/api\/v1\/tenant\/exports\/?$/, /^\/api\/v1\/conversations\/[^/]+\/export\/?$/];

/** Which kind of endpoint (method, path) is: export creation, other writes, reads. */
export function rateKindOf(method: string, path: string): RateKind {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'OPTIONS') return 'read';
  if (m === 'POST' && EXPORT_PATHS.some((re) => re.test(path))) return 'export';
  return 'write';
}

/** Unauthenticated paths on the per-IP budget: declared in shared/http/paths.ts, which the OpenAPI document reads too. */
export { isAuthPath } from '../http/paths';

export function limitFor(plan: TenantPlan, kind: RateKind, scale = 1): KindLimit {
  const base = (RATE_LIMITS[plan] ?? RATE_LIMITS.free)[kind];
  return scale === 1 ? base : { perMinute: base.perMinute * scale, per10s: base.per10s * scale };
}
