import type { Db, TenantPlan } from '../db/schema';

/**
 * The tenant's plan without a query per request: cached in memory (per process / isolate) for
 * PLAN_TTL_MS. A plan change through /api/v1/billing/plan evicts the entry on the instance that
 * served it; other instances pick it up within the TTL.
 */
export const PLAN_TTL_MS = 30_000;
const cache = new Map<string, { plan: TenantPlan; expires: number }>();

/** A cached plan is answered without a promise (the rate limiter's hot path); a miss queries. */
export function planOf(db: Db, tenantId: string, now = Date.now()): TenantPlan | Promise<TenantPlan> {
  const hit = cache.get(tenantId);
  if (hit && hit.expires > now) return hit.plan;
  return loadPlan(db, tenantId, now);
}

async function loadPlan(db: Db, tenantId: string, now: number): Promise<TenantPlan> {
  const row = await db.selectFrom('tenants').select('plan').where('id', '=', tenantId).executeTakeFirst();
  // a credential for a tenant that no longer exists gets the smallest plan
  const plan = row?.plan ?? 'free';
  if (cache.size > 10_000) cache.clear();
  cache.set(tenantId, { plan, expires: now + PLAN_TTL_MS });
  return plan;
}

export function invalidatePlan(tenantId: string): void {
  cache.delete(tenantId);
}
