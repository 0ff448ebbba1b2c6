import type { Context } from 'hono';
import { Hono } from 'hono';
import { auditRow } from '../../shared/audit/audit';
import { actorOf, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { encryptSecret } from '../../shared/crypto';
import { readCursor } from '../../shared/db/paging';
import type { Executor } from '../../shared/db/schema';
import type { AppConfig } from '../../shared/env';
import { ALL_EVENTS, EVENT_TYPES, type EventType, isEventType } from '../../shared/events/catalog';
import { EVENT_EXAMPLES } from '../../shared/events/examples';
import { answerWithWork, sendAnswer, storedJson } from '../../shared/http/answer-with-work';
import { badRequest, conflict, Detail, notFound, validationError } from '../../shared/http/errors';
import { cursorIssue, nextCursor } from '../../shared/http/pagination';
import { register, toHonoPath } from '../../shared/http/route';
import { limitWebhookTool } from '../../shared/ratelimit/webhook-tools';
import { claimAttempt, type DeliveryDeps, leaseMs, performAttempt } from '../../shared/webhooks/delivery';
import { enableDisabled, runDueProbes } from '../../shared/webhooks/health';
import { paceClaims } from '../../shared/webhooks/pacing';
import { outboundPortOf, type RetryScheduler, type WebhookPort } from '../../shared/webhooks/port';
import {
  createQStashScheduler,
  qstashConfigured,
  qstashSignature,
  scheduleLater,
  scheduleNext,
  withEdgeHealth,
} from '../../shared/webhooks/qstash';
import { generateWebhookSecret } from '../../shared/webhooks/signing';
import { checkDestination, parseHttpsUrl, WebhookUrlError } from '../../shared/webhooks/ssrf';
import {
  deliveryRecordView,
  deliveryView,
  findCursor,
  findDelivery,
  findWebhook,
  insertRedelivery,
  insertTestDelivery,
  insertWebhook,
  listAttempts,
  listDeliveries,
  listView,
  listWebhooks,
  probeDueWithin,
  readDetail,
  recordView,
  redeliverFailedSince,
  replaceSecret,
  softDeleteWebhook,
  updateWebhookRow,
  type WebhookChanges,
  type WebhookRow,
} from './data';
import * as routes from './routes';
import { DELIVERIES, eventTypesBody } from './schemas';

/** The 400 for an unknown event name (spec: `Invalid event type: ... Valid events: ...`). */
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
    if (name !== ALL_EVENTS && !isEventType(name))
      throw badRequest(Detail.invalidEventType(name, EVENT_TYPES));
  return out;
}

/** Validation order: https (400) -> event names (400) -> DNS + private-address check (400). */
async function checkTarget(
  c: Context<AppEnv>,
  url: string | undefined,
  events: readonly string[] | undefined,
) {
  if (url !== undefined) {
    // the spec's "must start with `https://`" to the letter, upper-case scheme included; the
    // delivery's own check (parseHttpsUrl) stays case-blind for what was stored before
    if (!url.startsWith('https://')) throw badRequest(WebhookUrlError.notHttps);
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

/** A live webhook of the tenant, else 404 `Webhook not found`. */
async function webhookOf(db: Executor, tenantId: string, id: string): Promise<WebhookRow> {
  const hook = await findWebhook(db, tenantId, id);
  if (!hook) throw notFound('Webhook');
  return hook;
}

/** One of this webhook's deliveries, else 404 `Delivery not found` (another webhook's or tenant's too). */
async function deliveryOf(db: Executor, hook: WebhookRow, deliveryId: string) {
  const delivery = await findDelivery(db, hook, deliveryId);
  if (!delivery) throw notFound('Delivery');
  return delivery;
}

/** The delivery a `before` cursor names: one of this webhook's, else a 422 (a cursor from elsewhere). */
async function cursorOf(db: Executor, hook: WebhookRow, deliveryId: string) {
  const cursor = await findCursor(db, hook, deliveryId);
  if (!cursor)
    throw validationError([
      { loc: ['query', 'before'], msg: 'No delivery of this webhook has this id', type: 'value_error' },
    ]);
  return cursor;
}

/**
 * The position a delivery-log `cursor` names, when it is one of this webhook's log (bound to the
 * webhook id, a path parameter the query schema cannot see), else a 422 on `cursor`.
 */
function positionOf(cursor: string, hook: WebhookRow) {
  const refused = cursorIssue(cursor, DELIVERIES, { webhook_id: hook.id });
  if (refused) throw validationError([{ loc: ['query', 'cursor'], msg: refused, type: 'value_error' }]);
  const { key, id } = readCursor(cursor)!;
  return { key, id };
}

export const app = new Hono<AppEnv>();

register(app, routes.createWebhook, async (c) => {
  const body = c.req.valid('json');
  const events = (await checkTarget(c, body.url, body.events))!;
  const { config } = c.get('services');
  const secret = generateWebhookSecret();
  const sealed = await encryptSecret(config.WEBHOOK_ENCRYPTION_KEY, secret);
  // the answer is the only place the secret is shown: under an Idempotency-Key it commits with
  // the webhook, so a retry after a crash gets this secret rather than a second webhook
  const { answer } = await answerWithWork(
    c,
    (tx) =>
      insertWebhook(
        tx,
        {
          tenant_id: tenantOf(c),
          url: body.url,
          events,
          secret_encrypted: sealed,
          description: body.description ?? null,
        },
        (id) =>
          auditRow(
            c,
            'webhook.created',
            { type: 'webhook', id },
            { url: body.url, events, ...(body.description ? { description: body.description } : {}) },
          ),
      ),
    (row) => storedJson(201, { ...recordView(row), secret }),
  );
  return sendAnswer(c, answer);
});

register(app, routes.listWebhooks, async (c) => {
  const rows = await listWebhooks(c.get('services').db, tenantOf(c));
  return c.json({ webhooks: rows.map(listView) });
});

register(app, routes.getWebhook, async (c) => {
  const { id } = c.req.valid('param');
  const { db } = c.get('services');
  return c.json(await readDetail(db, await webhookOf(db, tenantOf(c), id)));
});

register(app, routes.deleteWebhook, async (c) => {
  const { id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  const audit = auditRow(c, 'webhook.deleted', { type: 'webhook', id });
  const url = await softDeleteWebhook(c.get('services').db, tenantId, id, new Date(), audit);
  if (url === undefined) throw notFound('Webhook');
  return c.body(null, 204);
});

register(app, routes.listDeliveries, async (c) => {
  const { id } = c.req.valid('param');
  const { limit, before, cursor } = c.req.valid('query');
  const { db } = c.get('services');
  const hook = await webhookOf(db, tenantOf(c), id);
  const after =
    cursor !== undefined
      ? positionOf(cursor, hook)
      : before !== undefined
        ? await cursorOf(db, hook, before)
        : null;
  const page = await listDeliveries(db, hook, limit, after);
  return c.json({
    deliveries: page.rows.map(deliveryView),
    next_cursor: nextCursor(DELIVERIES, { webhook_id: hook.id }, page.next),
  });
});

register(app, routes.getDelivery, async (c) => {
  const { id, delivery_id } = c.req.valid('param');
  const { db } = c.get('services');
  const hook = await webhookOf(db, tenantOf(c), id);
  const delivery = await deliveryOf(db, hook, delivery_id);
  const history = await listAttempts(db, delivery);
  return c.json({ ...deliveryRecordView(delivery), history });
});

register(app, routes.redeliver, async (c) => {
  const { id, delivery_id } = c.req.valid('param');
  const { db, events } = c.get('services');
  const hook = await webhookOf(db, tenantOf(c), id);
  const original = await deliveryOf(db, hook, delivery_id);
  if (original.status === 'pending') throw conflict(Detail.deliveryPending);
  if (!hook.is_active) throw conflict(Detail.webhookInactive);
  const { answer } = await answerWithWork(
    c,
    (tx) => insertRedelivery(tx, original),
    (created) => storedJson(202, deliveryRecordView(created)),
  );
  events.kick();
  return sendAnswer(c, answer);
});

register(app, routes.recover, async (c) => {
  const { id } = c.req.valid('param');
  const { since } = c.req.valid('json');
  const { db, events } = c.get('services');
  const hook = await webhookOf(db, tenantOf(c), id);
  if (!hook.is_active) throw conflict(Detail.webhookInactive);
  await limitWebhookTool(c, 'recover', hook.id);
  // the re-sends and, under an Idempotency-Key, their answer commit together: a retry after a
  // crash is that answer, not a second recover (nor its 429)
  const { result: created, answer } = await answerWithWork(
    c,
    (trx) => redeliverFailedSince(trx, hook, new Date(since), RECOVER_MAX),
    (created) => storedJson(202, { deliveries: created.map(deliveryRecordView) }),
    { transaction: true },
  );
  if (created.length > 0) events.kick();
  return sendAnswer(c, answer);
});

register(app, routes.updateWebhook, async (c) => {
  const { id } = c.req.valid('param');
  const body = c.req.valid('json');
  const { db, events: kicker } = c.get('services');
  const tenantId = tenantOf(c);
  const before = await webhookOf(db, tenantId, id);
  const events = await checkTarget(c, body.url, body.events);
  // the fields the body names, written and audited alike
  const changes: WebhookChanges = {
    ...(body.is_active !== undefined ? { is_active: body.is_active } : {}),
    ...(body.url !== undefined ? { url: body.url } : {}),
    ...(events !== undefined ? { events } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.rate_limit !== undefined ? { rate_limit: body.rate_limit } : {}),
    ...(body.auto_recover !== undefined ? { auto_recover: body.auto_recover } : {}),
  };
  const audit = auditRow(c, 'webhook.updated', { type: 'webhook', id }, changes);
  // enabling a disabled endpoint also makes it healthy and re-sends its backlog: with the change,
  // in one transaction, so a crash leaves it disabled with nothing re-sent or enabled with all of it
  const enabling = body.is_active === true && before.health_state === 'disabled';
  const { result: updated, answer } = await answerWithWork(
    c,
    async (ex) => {
      const resent = enabling ? await enableDisabled(ex, tenantId, id, actorOf(c)) : [];
      const row = await updateWebhookRow(ex, tenantId, id, changes, audit);
      if (!row) throw notFound('Webhook');
      return { resent, detail: await readDetail(ex, row) };
    },
    ({ detail }) => storedJson(200, detail),
    { transaction: enabling },
  );
  if (updated.resent.length > 0) kicker.kick();
  return sendAnswer(c, answer);
});

// Dashboard v2 (the gate refuses API keys on /api/v2/*).
register(app, routes.listEventTypes, (c) => c.json(eventTypesBody()));

register(app, routes.sendTestEvent, async (c) => {
  const { id } = c.req.valid('param');
  const { event_type } = c.req.valid('json');
  const { db, events } = c.get('services');
  const hook = await webhookOf(db, tenantOf(c), id);
  if (!hook.is_active) throw conflict(Detail.webhookInactive);
  await limitWebhookTool(c, 'test', hook.id);
  const { answer } = await answerWithWork(
    c,
    (ex) => insertTestDelivery(ex, hook, event_type, EVENT_EXAMPLES[event_type as EventType]),
    (delivery) => storedJson(202, { delivery_id: delivery.id }),
  );
  events.kick();
  return sendAnswer(c, answer);
});

register(app, routes.rotateSecret, async (c) => {
  const { id } = c.req.valid('param');
  const { config } = c.get('services');
  const tenantId = tenantOf(c);
  const secret = generateWebhookSecret();
  const sealed = await encryptSecret(config.WEBHOOK_ENCRYPTION_KEY, secret);
  const audit = auditRow(c, 'webhook.secret_rotated', { type: 'webhook', id });
  // the answer is the only place the new secret is shown: under an Idempotency-Key it commits with
  // the rotation, so a retry after a crash gets this secret rather than a second rotation
  const { answer } = await answerWithWork(
    c,
    async (ex) => {
      if (!(await replaceSecret(ex, tenantId, id, sealed, audit))) throw notFound('Webhook');
    },
    () => storedJson(200, { secret }),
  );
  return sendAnswer(c, answer);
});

// QStash retry callback (surface 'signed': the gate lets it through). Its signature covers the
// body's exact bytes, so it is checked in front of the body's validation.
app.use(toHonoPath(routes.qstashCallback.path), qstashSignature);
register(app, routes.qstashCallback, async (c) => {
  const { db, config, logger } = c.get('services');
  const { delivery_id, attempt } = c.req.valid('json');
  const outcome = await claimAttempt(db, delivery_id, attempt, leaseMs(config));
  if (!outcome.claimed) {
    // QStash retries non-2xx: only "not due yet" (clock skew) is worth a retry
    if (outcome.reason === 'not_due')
      return c.json({ detail: 'Attempt not due yet' }, 503, { 'Retry-After': '1' });
    return c.json({ delivery_id, attempt, skipped: outcome.reason });
  }
  const scheduler = schedulerOf(config);
  if (outcome.rateLimited) {
    // the endpoint's pace first: an attempt with no slot free goes back, due at its slot
    const { later } = await paceClaims(db, [outcome.claimed]);
    if (later.length > 0) {
      await scheduleLater(scheduler, later, logger);
      return c.json({ delivery_id, attempt, skipped: 'paced' as const });
    }
  }
  const result = await performAttempt(edgeDeliveryDeps(c), outcome.claimed);
  await scheduleNext(scheduler, result, logger);
  return c.json({ delivery_id, attempt: result.attempt, status: result.status });
});

/** What a callback's attempt needs: the outbound port, the owner's mailer, QStash for what health queues. */
function edgeDeliveryDeps(c: Context<AppEnv>): DeliveryDeps {
  const { db, config, logger, mailer } = c.get('services');
  return withEdgeHealth({ db, config, port: portOf(c), logger, mailer }, schedulerOf(config));
}

// QStash probe callback: a failing endpoint's next probe (or its disable check) is due.
app.use(toHonoPath(routes.qstashProbeCallback.path), qstashSignature);
register(app, routes.qstashProbeCallback, async (c) => {
  const { webhook_id } = c.req.valid('json');
  const { db } = c.get('services');
  const probed = await runDueProbes(edgeDeliveryDeps(c), { only: webhook_id, limit: 1 });
  if (probed === 0) {
    // early (clock skew): QStash retries a 503; anything else (probed already, healthy again, gone) is done
    if (await probeDueWithin(db, webhook_id, 60_000))
      return c.json({ detail: 'Probe not due yet' }, 503, { 'Retry-After': '1' });
  }
  return c.json({ webhook_id, probed: probed > 0 });
});
