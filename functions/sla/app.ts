import { Hono } from 'hono';
import { recordAudit } from '../../shared/audit/audit';
import { tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { answerWithWork, sendAnswer, storedJson } from '../../shared/http/answer-with-work';
import { conflict, notFound } from '../../shared/http/errors';
import { assertReferences } from '../../shared/http/references';
import { register } from '../../shared/http/route';
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
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
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
    },
    (row) => storedJson(201, hoursView(row), { location: `/api/v2/business-hours/${row.id}` }),
    { transaction: true },
  );
  return sendAnswer(c, answer);
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
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
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
    },
    (row) => storedJson(200, hoursView(row)),
    { transaction: true },
  );
  return sendAnswer(c, answer);
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
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
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
    },
    (row) => storedJson(201, policyView(row), { location: `/api/v2/sla-policies/${row.id}` }),
    { transaction: true },
  );
  return sendAnswer(c, answer);
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
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
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
    },
    (row) => storedJson(200, policyView(row)),
    { transaction: true },
  );
  return sendAnswer(c, answer);
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
