import { Hono } from 'hono';
import { audit, auditedWrite, found } from '../../shared/audit/audited';
import { tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { storedEmpty, storedJson } from '../../shared/http/answer-with-work';
import { conflict } from '../../shared/http/errors';
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

const HOURS = 'Business hours';
const hoursTarget = (id: string) => ({ type: 'business_hours', id }) as const;

register(app, routes.listBusinessHours, async (c) => {
  const rows = await listHours(c.get('services').db, tenantOf(c));
  return c.json({ business_hours: rows.map(hoursView) });
});

register(app, routes.createBusinessHours, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  return auditedWrite(
    c,
    async (trx) => {
      if ((await countHours(trx, tenantId)) >= MAX_HOURS)
        throw conflict(LIMIT_EXCEEDED('business hours', MAX_HOURS));
      const created = await insertHours(trx, tenantId, body);
      return [created, audit('business_hours.created', hoursTarget(created.id), { name: body.name })];
    },
    (row) => storedJson(201, hoursView(row), { Location: `/api/v2/business-hours/${row.id}` }),
  );
});

register(app, routes.getBusinessHours, async (c) => {
  const row = await findHours(c.get('services').db, tenantOf(c), c.req.valid('param').id);
  return c.json(hoursView(found(row, HOURS)));
});

register(app, routes.updateBusinessHours, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { id } = c.req.valid('param');
  return auditedWrite(
    c,
    async (trx) => {
      found(await findHours(trx, tenantId, id, true), HOURS);
      const updated = await updateHours(trx, tenantId, id, body);
      return [updated, audit('business_hours.updated', hoursTarget(id), { fields: Object.keys(body) })];
    },
    (row) => storedJson(200, hoursView(row)),
  );
});

register(app, routes.deleteBusinessHours, async (c) => {
  const tenantId = tenantOf(c);
  const { id } = c.req.valid('param');
  return auditedWrite(
    c,
    async (trx) => {
      const row = found(await findHours(trx, tenantId, id, true), HOURS);
      if (await hoursInUse(trx, tenantId, id)) throw conflict(HOURS_IN_USE);
      await deleteHours(trx, tenantId, id);
      return [null, audit('business_hours.deleted', hoursTarget(id), { name: row.name })];
    },
    () => storedEmpty(),
  );
});

// ---- SLA policies ----

const POLICY = 'SLA policy';
const policyTarget = (id: string) => ({ type: 'sla_policy', id }) as const;
const hoursReference = (id: string | null | undefined) =>
  [{ field: 'business_hours_id', kind: 'businessHours', id }] as const;

register(app, routes.listSlaPolicies, async (c) => {
  const rows = await listPolicies(c.get('services').db, tenantOf(c));
  return c.json({ sla_policies: rows.map(policyView) });
});

register(app, routes.createSlaPolicy, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  return auditedWrite(
    c,
    async (trx) => {
      await assertReferences(trx, tenantId, [...hoursReference(body.business_hours_id)]);
      const tally = await policyTally(trx, tenantId);
      if (tally.count >= MAX_POLICIES) throw conflict(LIMIT_EXCEEDED('SLA policies', MAX_POLICIES));
      const created = await insertPolicy(trx, tenantId, { ...body, position: body.position ?? tally.next });
      return [created, audit('sla_policy.created', policyTarget(created.id), { name: body.name })];
    },
    (row) => storedJson(201, policyView(row), { Location: `/api/v2/sla-policies/${row.id}` }),
  );
});

register(app, routes.getSlaPolicy, async (c) => {
  const row = await findPolicy(c.get('services').db, tenantOf(c), c.req.valid('param').id);
  return c.json(policyView(found(row, POLICY)));
});

register(app, routes.updateSlaPolicy, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { id } = c.req.valid('param');
  return auditedWrite(
    c,
    async (trx) => {
      found(await findPolicy(trx, tenantId, id, true), POLICY);
      await assertReferences(trx, tenantId, [...hoursReference(body.business_hours_id)]);
      const updated = await updatePolicy(trx, tenantId, id, body);
      return [updated, audit('sla_policy.updated', policyTarget(id), { fields: Object.keys(body) })];
    },
    (row) => storedJson(200, policyView(row)),
  );
});

register(app, routes.deleteSlaPolicy, async (c) => {
  const tenantId = tenantOf(c);
  const { id } = c.req.valid('param');
  return auditedWrite(
    c,
    async (trx) => {
      const row = found(await findPolicy(trx, tenantId, id, true), POLICY);
      await deletePolicy(trx, tenantId, id);
      return [null, audit('sla_policy.deleted', policyTarget(id), { name: row.name })];
    },
    () => storedEmpty(),
  );
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
