import { Hono } from 'hono';
import { recordAudit } from '../../shared/audit/audit';
import { tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { conflict, notFound } from '../../shared/http/errors';
import { assertReferences } from '../../shared/http/references';
import { register, toHonoPath } from '../../shared/http/route';
import { recordAllDueBreaches } from '../../shared/sla/breaches';
import { qstashBreachCheckPublisher, scheduleBreachCheck } from '../../shared/sla/edge-check';
import { qstashSignature } from '../../shared/webhooks/qstash';
import {
  countHours,
  deleteHours,
  deletePolicy,
  findHours,
  findPolicy,
  hoursInUse,
  hoursView,
  insertHours,
  insertPolicy,
  listHours,
  listPolicies,
  policyTally,
  policyView,
  updateHours,
  updatePolicy,
} from './data';
import * as routes from './routes';
import { HOURS_IN_USE, LIMIT_EXCEEDED, MAX_HOURS, MAX_POLICIES } from './routes';

/**
 * Business hours and SLA policies (dashboard sessions: any reads, tenant_admin writes, each write
 * audited in its transaction). How tickets and conversations use them: shared/sla, docs/sla.md.
 */
export const app = new Hono<AppEnv>();

// ---- business hours ----

register(app, routes.listBusinessHours, async (c) => {
  const rows = await listHours(c.get('services').db, tenantOf(c));
  return c.json({ business_hours: rows.map(hoursView) });
});

register(app, routes.createBusinessHours, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const row = await c
    .get('services')
    .db.transaction()
    .execute(async (trx) => {
      if ((await countHours(trx, tenantId)) >= MAX_HOURS)
        throw conflict(LIMIT_EXCEEDED('business hours', MAX_HOURS));
      const created = await insertHours(trx, tenantId, body);
      await recordAudit(
        trx,
        c,
        'business_hours.created',
        { type: 'business_hours', id: created.id },
        { name: body.name },
      );
      return created;
    });
  return c.json(hoursView(row), 201, { Location: `/api/v2/business-hours/${row.id}` });
});

register(app, routes.getBusinessHours, async (c) => {
  const row = await findHours(c.get('services').db, tenantOf(c), c.req.valid('param').id);
  if (!row) throw notFound('Business hours');
  return c.json(hoursView(row));
});

register(app, routes.updateBusinessHours, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { id } = c.req.valid('param');
  const row = await c
    .get('services')
    .db.transaction()
    .execute(async (trx) => {
      if (!(await findHours(trx, tenantId, id, true))) throw notFound('Business hours');
      const updated = await updateHours(trx, tenantId, id, body);
      await recordAudit(
        trx,
        c,
        'business_hours.updated',
        { type: 'business_hours', id },
        { fields: Object.keys(body) },
      );
      return updated;
    });
  return c.json(hoursView(row));
});

register(app, routes.deleteBusinessHours, async (c) => {
  const tenantId = tenantOf(c);
  const { id } = c.req.valid('param');
  await c
    .get('services')
    .db.transaction()
    .execute(async (trx) => {
      const row = await findHours(trx, tenantId, id, true);
      if (!row) throw notFound('Business hours');
      if (await hoursInUse(trx, tenantId, id)) throw conflict(HOURS_IN_USE);
      await deleteHours(trx, tenantId, id);
      await recordAudit(trx, c, 'business_hours.deleted', { type: 'business_hours', id }, { name: row.name });
    });
  return c.body(null, 204);
});

// ---- SLA policies ----

register(app, routes.listSlaPolicies, async (c) => {
  const rows = await listPolicies(c.get('services').db, tenantOf(c));
  return c.json({ sla_policies: rows.map(policyView) });
});

register(app, routes.createSlaPolicy, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const row = await c
    .get('services')
    .db.transaction()
    .execute(async (trx) => {
      await assertReferences(trx, tenantId, [
        { field: 'business_hours_id', kind: 'businessHours', id: body.business_hours_id },
      ]);
      const tally = await policyTally(trx, tenantId);
      if (tally.count >= MAX_POLICIES) throw conflict(LIMIT_EXCEEDED('SLA policies', MAX_POLICIES));
      const created = await insertPolicy(trx, tenantId, { ...body, position: body.position ?? tally.next });
      await recordAudit(
        trx,
        c,
        'sla_policy.created',
        { type: 'sla_policy', id: created.id },
        { name: body.name },
      );
      return created;
    });
  return c.json(policyView(row), 201, { Location: `/api/v2/sla-policies/${row.id}` });
});

register(app, routes.getSlaPolicy, async (c) => {
  const row = await findPolicy(c.get('services').db, tenantOf(c), c.req.valid('param').id);
  if (!row) throw notFound('SLA policy');
  return c.json(policyView(row));
});

register(app, routes.updateSlaPolicy, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { id } = c.req.valid('param');
  const row = await c
    .get('services')
    .db.transaction()
    .execute(async (trx) => {
      if (!(await findPolicy(trx, tenantId, id, true))) throw notFound('SLA policy');
      await assertReferences(trx, tenantId, [
        { field: 'business_hours_id', kind: 'businessHours', id: body.business_hours_id },
      ]);
      const updated = await updatePolicy(trx, tenantId, id, body);
      await recordAudit(
        trx,
        c,
        'sla_policy.updated',
        { type: 'sla_policy', id },
        { fields: Object.keys(body) },
      );
      return updated;
    });
  return c.json(policyView(row));
});

register(app, routes.deleteSlaPolicy, async (c) => {
  const tenantId = tenantOf(c);
  const { id } = c.req.valid('param');
  await c
    .get('services')
    .db.transaction()
    .execute(async (trx) => {
      const row = await findPolicy(trx, tenantId, id, true);
      if (!row) throw notFound('SLA policy');
      await deletePolicy(trx, tenantId, id);
      await recordAudit(trx, c, 'sla_policy.deleted', { type: 'sla_policy', id }, { name: row.name });
    });
  return c.body(null, 204);
});

// ---- the breach check's QStash callback (Workers; surface 'signed': the signature covers the body's
// exact bytes, so it is checked in front of the body's validation) ----

/** How early a callback may come (the clocks of QStash and the Worker differ) and still be taken. */
const CHECK_EARLY_MS = 1_000;

app.use(toHonoPath(routes.slaQStashCallback.path), qstashSignature);
register(app, routes.slaQStashCallback, async (c) => {
  const { check_at } = c.req.valid('json');
  const { db, config, events, logger } = c.get('services');
  const now = new Date();
  if (Date.parse(check_at) - now.getTime() > CHECK_EARLY_MS)
    return c.json({ detail: 'Check not due yet' }, 503, { 'Retry-After': '1' });
  const recorded = await recordAllDueBreaches(db, now);
  // the breach events go out through the outbox like any other
  if (recorded.some((b) => b.table === 'tickets')) events.kick();
  const publisher = qstashBreachCheckPublisher(config);
  const next = publisher ? await scheduleBreachCheck(db, publisher, logger) : null;
  return c.json({ recorded: recorded.length, next_check_at: next?.toISOString() ?? null });
});
