import type { Context } from 'hono';
import { Hono } from 'hono';
import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import { recordAudit } from '../../shared/audit/audit';
import { requireRole, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { encryptSecret } from '../../shared/crypto';
import type { Db } from '../../shared/db/schema';
import type { WebhooksTable } from '../../shared/db/tables/webhooks';
import type { AppConfig } from '../../shared/env';
import { ALL_EVENTS, EVENT_TYPES, isEventType } from '../../shared/events/catalog';
import {
  ApiError,
  badRequest,
  conflict,
  JSON_INVALID,
  notFound,
  validationError,
} from '../../shared/http/errors';
import { parseOrThrow, validate } from '../../shared/http/validation';
import { newId } from '../../shared/ids';
import { claimAttempt, type DeliveryRow, leaseMs, performAttempt } from '../../shared/webhooks/delivery';
import { outboundPortOf, type RetryScheduler, type WebhookPort } from '../../shared/webhooks/port';
import {
  createQStashScheduler,
  QSTASH_CALLBACK_PATH,
  qstashConfigured,
  scheduleNext,
  verifyQStashSignature,
} from '../../shared/webhooks/qstash';
import { generateWebhookSecret } from '../../shared/webhooks/signing';
import { checkDestination, parseHttpsUrl, WebhookUrlError } from '../../shared/webhooks/ssrf';
import {
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryIdParam,
  eventTypesBody,
  QStashCallbackBody,
  RecoverBody,
  UpdateWebhookBody,
  WebhookIdParam,
} from './schemas';

type WebhookRow = Selectable<WebhooksTable>;

/** The 400 for an unknown event name (spec: `Invalid event type: ... Valid events: ...`). */
export const invalidEventDetail = (name: string) =>
  `Invalid event type: ${name}. Valid events: ${EVENT_TYPES.join(', ')}`;

/** Most recover can re-send in one call (older failures: call again with a later `since`). */
export const RECOVER_MAX = 1000;

const portOf = (c: Context<AppEnv>): WebhookPort => outboundPortOf(c.get('services'));

const schedulers = new WeakMap<AppConfig, RetryScheduler | null>();
function schedulerOf(config: AppConfig): RetryScheduler | null {
  if (!schedulers.has(config))
    schedulers.set(config, qstashConfigured(config) ? createQStashScheduler(config) : null);
  return schedulers.get(config) ?? null;
}

/** Trimmed, de-duplicated, caller's order; the first unknown name is the spec's 400. */
function normalizeEvents(events: readonly string[]): string[] {
  const out = [...new Set(events.map((e) => e.trim()))];
  for (const name of out)
    if (name !== ALL_EVENTS && !isEventType(name)) throw badRequest(invalidEventDetail(name));
  return out;
}

/** Validation order: https (400) -> event names (400) -> DNS + private-address check (400). */
async function checkTarget(
  c: Context<AppEnv>,
  url: string | undefined,
  events: readonly string[] | undefined,
) {
  if (url !== undefined) {
    const parsed = parseHttpsUrl(url);
    if (!parsed.ok) throw badRequest(parsed.detail);
  }
  const normalized = events === undefined ? undefined : normalizeEvents(events);
  if (url !== undefined) {
    const dest = await checkDestination(url, {
      resolve: portOf(c).resolveHost,
      allow: c.get('services').config.WEBHOOK_SSRF_ALLOW,
    });
    if (!dest.ok) throw badRequest(destinationDetail(c, dest.detail, url));
  }
  return normalized;
}

/**
 * On a developer's machine (the embedded Node runtime with APP_ENV=development, what `npm start`
 * runs) the private-address 400 also names the way to a local receiver; anywhere else the detail
 * is the documented string alone.
 */
function destinationDetail(c: Context<AppEnv>, detail: string, url: string): string {
  const { runtime, config } = c.get('services');
  if (detail !== WebhookUrlError.private || runtime !== 'node' || config.APP_ENV !== 'development')
    return detail;
  return `${detail}. For a local receiver, start the server with WEBHOOK_SSRF_ALLOW=${new URL(url).hostname} (\`npm run webhooks:listen\` prints the whole command)`;
}

/** A dashboard session changes webhooks only as tenant_admin; API keys are scope-checked by the gate. */
function requireWriter(c: Context<AppEnv>) {
  if (c.get('auth').kind === 'dashboard') requireRole(c, 'tenant_admin');
}

const listView = (w: WebhookRow) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  is_active: w.is_active,
  created_at: w.created_at,
});
const recordView = (w: WebhookRow) => ({ ...listView(w), updated_at: w.updated_at });

export const deliveryView = (d: DeliveryRow) => ({
  id: d.id,
  event_type: d.event_type,
  status: d.status,
  attempts: d.attempts,
  last_attempt_at: d.last_attempt_at,
  next_attempt_at: d.next_attempt_at,
  response_status: d.response_status,
  duration_ms: d.duration_ms,
  error: d.error,
  created_at: d.created_at,
});

async function findWebhook(db: Db, tenantId: string, id: string): Promise<WebhookRow> {
  const row = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw notFound('Webhook');
  return row;
}

/** One of this webhook's deliveries, else 404 `Delivery not found` (another webhook's or tenant's too). */
async function findDelivery(db: Db, hook: WebhookRow, deliveryId: string): Promise<DeliveryRow> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', hook.id)
    .where('tenant_id', '=', hook.tenant_id)
    .executeTakeFirst();
  if (!row) throw notFound('Delivery');
  return row;
}

/** The delivery a `before` cursor names: one of this webhook's, else a 422 (a cursor from elsewhere). */
async function findCursor(db: Db, hook: WebhookRow, deliveryId: string) {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'created_at'])
    .where('webhook_id', '=', hook.id)
    .where('tenant_id', '=', hook.tenant_id)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
  if (!row)
    throw validationError([
      { loc: ['query', 'before'], msg: 'No delivery of this webhook has this id', type: 'value_error' },
    ]);
  return row;
}

/** A new pending delivery re-sending `original` (fresh id, fresh X-Webhook-Timestamp and signature at send time). */
const redeliveryOf = (original: DeliveryRow) => ({
  id: newId('delivery'),
  tenant_id: original.tenant_id,
  webhook_id: original.webhook_id,
  event_id: original.event_id,
  event_type: original.event_type,
  payload: JSON.stringify(original.payload),
  event_created_at: original.event_created_at,
  redelivery_of: original.id,
  next_attempt_at: new Date(),
});

export const app = new Hono<AppEnv>();

app.post('/api/v1/webhooks', validate('json', CreateWebhookBody), async (c) => {
  requireWriter(c);
  const body = c.req.valid('json');
  const events = (await checkTarget(c, body.url, body.events))!;
  const { db, config } = c.get('services');
  const secret = generateWebhookSecret();
  const sealed = await encryptSecret(config.WEBHOOK_ENCRYPTION_KEY, secret);
  const row = await db.transaction().execute(async (trx) => {
    const created = await trx
      .insertInto('webhooks')
      .values({
        id: newId('webhook'),
        tenant_id: tenantOf(c),
        url: body.url,
        events,
        secret_encrypted: sealed,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(
      trx,
      c,
      'webhook.created',
      { type: 'webhook', id: created.id },
      { url: body.url, events },
    );
    return created;
  });
  return c.json({ ...recordView(row), secret }, 201);
});

app.get('/api/v1/webhooks', async (c) => {
  const rows = await c
    .get('services')
    .db.selectFrom('webhooks')
    .selectAll()
    .where('tenant_id', '=', tenantOf(c))
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return c.json({ webhooks: rows.map(listView) });
});

app.get('/api/v1/webhooks/:id', validate('param', WebhookIdParam), async (c) => {
  const { id } = c.req.valid('param');
  return c.json(listView(await findWebhook(c.get('services').db, tenantOf(c), id)));
});

app.delete('/api/v1/webhooks/:id', validate('param', WebhookIdParam), async (c) => {
  requireWriter(c);
  const { id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  await c
    .get('services')
    .db.transaction()
    .execute(async (trx) => {
      const now = new Date();
      const deleted = await trx
        .updateTable('webhooks')
        .set({ deleted_at: now, is_active: false, updated_at: now })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .returning(['id', 'url'])
        .executeTakeFirst();
      if (!deleted) throw notFound('Webhook');
      // nothing more is sent; an attempt in flight finishes and then finds the webhook gone
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', next_attempt_at: null, error: 'Webhook deleted' })
        .where('webhook_id', '=', id)
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
        .execute();
      await recordAudit(trx, c, 'webhook.deleted', { type: 'webhook', id }, { url: deleted.url });
    });
  return c.body(null, 204);
});

app.get(
  '/api/v1/webhooks/:id/deliveries',
  validate('param', WebhookIdParam),
  validate('query', DeliveriesQuery),
  async (c) => {
    const { id } = c.req.valid('param');
    const { limit, before } = c.req.valid('query');
    const { db } = c.get('services');
    const hook = await findWebhook(db, tenantOf(c), id);
    const cursor = before === undefined ? null : await findCursor(db, hook, before);
    const rows = await db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', hook.id)
      .where('tenant_id', '=', hook.tenant_id)
      // strictly older in the log's order (created_at desc, id desc): its index serves the page
      .$if(cursor !== null, (q) =>
        q.where((eb) =>
          eb.or([
            eb('created_at', '<', cursor!.created_at),
            eb.and([eb('created_at', '=', cursor!.created_at), eb('id', '<', cursor!.id)]),
          ]),
        ),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return c.json({ deliveries: rows.map(deliveryView) });
  },
);

app.get('/api/v1/webhooks/:id/deliveries/:delivery_id', validate('param', DeliveryIdParam), async (c) => {
  const { id, delivery_id } = c.req.valid('param');
  const { db } = c.get('services');
  const hook = await findWebhook(db, tenantOf(c), id);
  const delivery = await findDelivery(db, hook, delivery_id);
  const history = await db
    .selectFrom('webhook_delivery_attempts')
    .select(['attempt', 'attempted_at', 'response_status', 'duration_ms', 'error'])
    .where('delivery_id', '=', delivery.id)
    .where('tenant_id', '=', hook.tenant_id)
    .orderBy('attempt')
    .execute();
  return c.json({ ...deliveryView(delivery), history });
});

app.post(
  '/api/v1/webhooks/:id/deliveries/:delivery_id/redeliver',
  validate('param', DeliveryIdParam),
  async (c) => {
    requireWriter(c);
    const { id, delivery_id } = c.req.valid('param');
    const { db, events } = c.get('services');
    const hook = await findWebhook(db, tenantOf(c), id);
    const original = await findDelivery(db, hook, delivery_id);
    if (original.status === 'pending') throw conflict('Delivery is still pending');
    if (!hook.is_active) throw conflict('Webhook is inactive');
    const created = await db
      .insertInto('webhook_deliveries')
      .values(redeliveryOf(original))
      .returningAll()
      .executeTakeFirstOrThrow();
    events.kick();
    return c.json(deliveryView(created), 202);
  },
);

app.post(
  '/api/v1/webhooks/:id/recover',
  validate('param', WebhookIdParam),
  validate('json', RecoverBody),
  async (c) => {
    requireWriter(c);
    const { id } = c.req.valid('param');
    const { since } = c.req.valid('json');
    const { db, events } = c.get('services');
    const hook = await findWebhook(db, tenantOf(c), id);
    if (!hook.is_active) throw conflict('Webhook is inactive');
    const created = await db.transaction().execute(async (trx) => {
      // every failed delivery since `since` that has not been re-sent already (so a chain is re-sent once)
      const failed = await trx
        .selectFrom('webhook_deliveries as d')
        .selectAll('d')
        .where('d.webhook_id', '=', hook.id)
        .where('d.tenant_id', '=', hook.tenant_id)
        .where('d.status', '=', 'failed')
        .where('d.created_at', '>=', new Date(since))
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries as r')
                .select(sql`1`.as('one'))
                .whereRef('r.redelivery_of', '=', 'd.id'),
            ),
          ),
        )
        .orderBy('d.created_at')
        .orderBy('d.id')
        .limit(RECOVER_MAX)
        .execute();
      if (failed.length === 0) return [];
      return trx.insertInto('webhook_deliveries').values(failed.map(redeliveryOf)).returningAll().execute();
    });
    if (created.length > 0) events.kick();
    return c.json({ deliveries: created.map(deliveryView) }, 202);
  },
);

// Dashboard v2 (the gate refuses API keys on /api/v2/*).
app.get('/api/v2/webhooks/event-types', (c) => c.json(eventTypesBody()));

app.patch(
  '/api/v2/webhooks/:id',
  validate('param', WebhookIdParam),
  validate('json', UpdateWebhookBody),
  async (c) => {
    requireRole(c, 'tenant_admin');
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const { db } = c.get('services');
    const tenantId = tenantOf(c);
    await findWebhook(db, tenantId, id);
    const events = await checkTarget(c, body.url, body.events);
    const row = await db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('webhooks')
        .set({
          ...(body.is_active !== undefined ? { is_active: body.is_active } : {}),
          ...(body.url !== undefined ? { url: body.url } : {}),
          ...(events !== undefined ? { events } : {}),
          updated_at: new Date(),
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!updated) throw notFound('Webhook');
      await recordAudit(
        trx,
        c,
        'webhook.updated',
        { type: 'webhook', id },
        {
          ...(body.is_active !== undefined ? { is_active: body.is_active } : {}),
          ...(body.url !== undefined ? { url: body.url } : {}),
          ...(events !== undefined ? { events } : {}),
        },
      );
      return updated;
    });
    return c.json(recordView(row));
  },
);

// QStash retry callback (surface 'signed': the gate lets it through; the signature is checked here).
app.post(QSTASH_CALLBACK_PATH, async (c) => {
  const { db, config, logger } = c.get('services');
  const raw = await c.req.text();
  if (!(await verifyQStashSignature(config, c.req.header('upstash-signature'), raw)))
    throw new ApiError(401, 'Invalid QStash signature');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new ApiError(422, JSON_INVALID);
  }
  const { delivery_id, attempt } = parseOrThrow(QStashCallbackBody, json, 'body');
  const outcome = await claimAttempt(db, delivery_id, attempt, leaseMs(config));
  if (!outcome.claimed) {
    // QStash retries non-2xx: only "not due yet" (clock skew) is worth a retry
    if (outcome.reason === 'not_due')
      return c.json({ detail: 'Attempt not due yet' }, 503, { 'Retry-After': '1' });
    return c.json({ delivery_id, attempt, skipped: outcome.reason });
  }
  const result = await performAttempt({ db, config, port: portOf(c), logger }, outcome.claimed);
  await scheduleNext(schedulerOf(config), result, logger);
  return c.json({ delivery_id, attempt: result.attempt, status: result.status });
});
