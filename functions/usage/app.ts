import { Hono } from 'hono';
import { tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { badRequest, Detail, forbidden } from '../../shared/http/errors';
import { register } from '../../shared/http/route';
import { parsePeriod, periodOf, previousPeriod } from '../../shared/usage/plans';
import { reportUsage } from '../../shared/usage/report';
import { usageDetails, usageSummary } from './data';
import * as routes from './routes';

export const app = new Hono<AppEnv>();

/** GET /api/v1/usage/summary: the period's totals against the plan's quotas (usage:read). */
register(app, routes.getUsageSummary, async (c) => {
  const q = c.req.valid('query');
  const p = q.period ? parsePeriod(q.period) : periodOf(new Date());
  return c.json(await usageSummary(c.get('services').db, tenantOf(c), p));
});

/** GET /api/v1/usage/details: `events` without group_by, `groups` with it; limit 1-200 (default 50). */
register(app, routes.getUsageDetails, async (c) => {
  const q = c.req.valid('query');
  const tenantId = tenantOf(c);
  const p = q.period ? parsePeriod(q.period) : periodOf(new Date());
  const from = q.from ? new Date(q.from) : p.start;
  const to = q.to ? new Date(q.to) : q.from ? new Date() : p.end;
  if (from >= to) throw badRequest(Detail.usageRangeBackwards);
  const filter = { tenantId, from, to, kind: q.kind };
  const page = { limit: q.limit, offset: q.offset };
  const range = { group_by: q.group_by ?? null, from: from.toISOString(), to: to.toISOString() };
  const found = await usageDetails(c.get('services').db, filter, q.group_by, page);
  return c.json({ ...range, ...found, limit: page.limit, offset: page.offset });
});

/**
 * POST /api/internal/usage/report (internal token; a scheduler calls it monthly): one
 * `usage.reported` per tenant for the period (default: the previous month). Idempotent.
 */
register(app, routes.reportUsage, async (c) => {
  if (c.get('auth').kind !== 'internal') throw forbidden(Detail.usageInternalTokenRequired);
  const body = c.req.valid('json') ?? {};
  const current = periodOf(new Date());
  const p = body.period ? parsePeriod(body.period) : previousPeriod(current);
  if (p.end > new Date()) throw badRequest(Detail.usagePeriodNotEnded(p.period));
  const { reported, skipped } = await reportUsage(c.get('services').db, p);
  if (reported.length > 0) c.get('services').events.kick();
  return c.json({ period: p.period, reported, skipped });
});
