import type { Db } from '../../shared/db/schema';
import { planOf } from '../../shared/ratelimit/plan-cache';
import { METRICS, type Period, PLAN_CATALOG, type Totals } from '../../shared/usage/plans';
import {
  type GroupBy,
  type UsageFilter,
  usageEvents,
  usageGroups,
  usageTotals,
} from '../../shared/usage/query';

/**
 * The usage function's reads. The queries over the usage relation are shared (shared/usage/query.ts:
 * billing and exports read the same figures); here is what each route asks of them, and its view.
 */

const mapTotals = (f: (m: (typeof METRICS)[number]) => number) =>
  Object.fromEntries(METRICS.map((m) => [m, f(m)])) as Totals;

/** The period's totals against the plan's quotas (GET /api/v1/usage/summary). */
export async function usageSummary(db: Db, tenantId: string, p: Period) {
  const plan = await planOf(db, tenantId);
  const totals = await usageTotals(db, { tenantId, from: p.start, to: p.end });
  const quotas = PLAN_CATALOG[plan].quotas;
  return {
    tenant_id: tenantId,
    plan,
    period: p.period,
    period_start: p.start.toISOString(),
    period_end: p.end.toISOString(),
    totals,
    quotas,
    remaining: mapTotals((m) => Math.max(0, quotas[m] - totals[m])),
    percent_used: mapTotals((m) => Math.round((totals[m] / quotas[m]) * 10_000) / 100),
  };
}

/** One page of the filter's usage events, or of its groups when `groupBy` is given. */
export async function usageDetails(
  db: Db,
  filter: UsageFilter,
  groupBy: GroupBy | undefined,
  page: { limit: number; offset: number },
) {
  if (groupBy) {
    const { rows, total } = await usageGroups(db, filter, groupBy, page);
    return { groups: rows, total };
  }
  const { rows, total } = await usageEvents(db, filter, page);
  return { events: rows, total };
}
