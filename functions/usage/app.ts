import { Hono } from 'hono';
import { tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { badRequest, forbidden } from '../../shared/http/errors';
import { validate } from '../../shared/http/validation';
import { planOf } from '../../shared/ratelimit/plan-cache';
import {
  METRICS,
  PLAN_CATALOG,
  parsePeriod,
  periodOf,
  previousPeriod,
  type Totals,
} from '../../shared/usage/plans';
import { usageEvents, usageGroups, usageTotals } from '../../shared/usage/query';
import { reportUsage } from '../../shared/usage/report';
import { DetailsQuery, ReportBody, SummaryQuery } from './schemas';

export const app = new Hono<AppEnv>();

const mapTotals = (f: (m: (typeof METRICS)[number]) => number) =>
  Object.fromEntries(METRICS.map((m) => [m, f(m)])) as Totals;

/** GET /api/v1/usage/summary: the period's totals against the plan's quotas (usage:read). */
app.get('/api/v1/usage/summary', validate('query', SummaryQuery), async (c) => {
  const q = c.req.valid('query');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  const p = q.period ? parsePeriod(q.period) : periodOf(new Date());
  const plan = await planOf(db, tenantId);
  const totals = await usageTotals(db, { tenantId, from: p.start, to: p.end });
  const quotas = PLAN_CATALOG[plan].quotas;
  return c.json({
    tenant_id: tenantId,
    plan,
    period: p.period,
    period_start: p.start.toISOString(),
    period_end: p.end.toISOString(),
    totals,
    quotas,
    remaining: mapTotals((m) => Math.max(0, quotas[m] - totals[m])),
    percent_used: mapTotals((m) => Math.round((totals[m] / quotas[m]) * 10_000) / 100),
  });
});

/** GET /api/v1/usage/details: `events` without group_by, `groups` with it; limit 1-200 (default 50). */
app.get('/api/v1/usage/details', validate('query', DetailsQuery), async (c) => {
  const q = c.req.valid('query');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  const p = q.period ? parsePeriod(q.period) : periodOf(new Date());
  const from = q.from ? new Date(q.from) : p.start;
  const to = q.to ? new Date(q.to) : q.from ? new Date() : p.end;
  if (from >= to) throw badRequest('from must be earlier than to');
  const filter = { tenantId, from, to, kind: q.kind };
  const page = { limit: q.limit, offset: q.offset };
  const range = { group_by: q.group_by ?? null, from: from.toISOString(), to: to.toISOString() };
  if (q.group_by) {
    const { rows, total } = await usageGroups(db, filter, q.group_by, page);
    return c.json({ ...range, groups: rows, total, limit: page.limit, offset: page.offset });
  }
  const { rows, total } = await usageEvents(db, filter, page);
  return c.json({ ...range, events: rows, total, limit: page.limit, offset: page.offset });
});

/**
 * POST /api/internal/usage/report (internal token; a scheduler calls it monthly): one
 * `usage.reported` per tenant for the period (default: the previous month). Idempotent.
 */
app.post('/api/internal/usage/report', validate('json', ReportBody.optional()), async (c) => {
  if (c.get('auth').kind !== 'internal') throw forbidden('Internal token required');
  const body = c.req.valid('json') ?? {};
  const current = periodOf(new Date());
  const p = body.period ? parsePeriod(body.period) : previousPeriod(current);
  if (p.end > new Date()) throw badRequest(`Period ${p.period} has not ended yet`);
  const { reported, skipped } = await reportUsage(c.get('services').db, p);
  if (reported.length > 0) c.get('services').events.kick();
  return c.json({ period: p.period, reported, skipped });
});
