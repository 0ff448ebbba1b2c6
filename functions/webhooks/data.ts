import { type Selectable, sql } from 'kysely';
import { AUDIT_COLUMNS, type AuditRow, auditSelection } from '../../shared/audit/audit';
import { afterPosition, type ListOrder, nextPosition, sortKeyText } from '../../shared/db/paging';
import type { Executor } from '../../shared/db/schema';
import type { WebhooksTable } from '../../shared/db/tables/webhooks';
import { newId } from '../../shared/ids';
import type { DeliveryRow } from '../../shared/webhooks/delivery';
import { healthView, waitingCounts } from '../../shared/webhooks/health';

export type WebhookRow = Selectable<WebhooksTable>;

export const listView = (w: WebhookRow) => ({
  id: w.id,
  url: w.url,
  description: w.description,
  events: w.events,
  is_active: w.is_active,
  created_at: w.created_at,
});
export const recordView = (w: WebhookRow) => ({ ...listView(w), updated_at: w.updated_at });

/**
 * The single read's and the dashboard's view: the record with its health, rate limit and
 * auto_recover (the list entries stay as the spec has them). `failed`: deliveries waiting for
 * recovery (waitingCounts).
 */
export const detailView = (w: WebhookRow, failed: number) => ({
  ...recordView(w),
  rate_limit: w.rate_limit,
  auto_recover: w.auto_recover,
  health: healthView(w, failed),
});

/** detailView of one row, counting its waiting deliveries. */
export async function readDetail(db: Executor, w: WebhookRow) {
  const counts = await waitingCounts(db, [w]);
  return detailView(w, counts.get(w.id) ?? 0);
}

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

/** A delivery read by itself: its log entry and whether it is a test (the list keeps the spec's fields). */
export const deliveryRecordView = (d: DeliveryRow) => ({ ...deliveryView(d), test: d.is_test });

/** Whether the endpoint is failing with its next probe due within `ms` (a probe callback came early). */
export async function probeDueWithin(db: Executor, webhookId: string, ms: number): Promise<boolean> {
  const hook = await db
    .selectFrom('webhooks')
    .select(['health_state', 'next_probe_at'])
    .where('id', '=', webhookId)
    .executeTakeFirst();
  return (
    hook?.health_state === 'failing' &&
    hook.next_probe_at !== null &&
    hook.next_probe_at.getTime() - Date.now() < ms
  );
}

/** A live (not deleted) webhook of the tenant. */
export function findWebhook(db: Executor, tenantId: string, id: string): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Every live webhook of the tenant, oldest first. */
export function listWebhooks(db: Executor, tenantId: string): Promise<WebhookRow[]> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export interface NewWebhook {
  tenant_id: string;
  url: string;
  events: string[];
  secret_encrypted: string;
  description: string | null;
}

/**
 * A new webhook, with its audit row `audit(id)` written by the same statement (a data-modifying
 * CTE): both commit or neither, in one round trip and with no transaction to open.
 */
export function insertWebhook(
  db: Executor,
  webhook: NewWebhook,
  audit: (webhookId: string) => AuditRow,
): Promise<WebhookRow> {
  const id = newId('webhook');
  return db
    .with('audit', (w) => w.insertInto('audit_log').values(audit(id)))
    .insertInto('webhooks')
    .values({ id, ...webhook })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The fields a PATCH names (only those: an absent key is left as it is). */
export type WebhookChanges = {
  is_active?: boolean;
  url?: string;
  events?: string[];
  description?: string | null;
  rate_limit?: number | null;
  auto_recover?: boolean;
};

/**
 * Writes `changes` (already validated) to a live webhook of the tenant and, when there is one,
 * `audit` in the same statement; undefined (and no audit row) when there is none.
 */
export function updateWebhookRow(
  db: Executor,
  tenantId: string,
  id: string,
  changes: WebhookChanges,
  audit: AuditRow,
): Promise<WebhookRow | undefined> {
  return db
    .with('updated', (w) =>
      w
        .updateTable('webhooks')
        .set({ ...changes, updated_at: new Date() })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .returningAll(),
    )
    .with('audit', (w) =>
      w
        .insertInto('audit_log')
        .columns(AUDIT_COLUMNS)
        .expression(w.selectFrom('updated').select(auditSelection(audit))),
    )
    .selectFrom('updated')
    .selectAll()
    .executeTakeFirst();
}

/**
 * Replaces a live webhook's sealed secret and, when there is one, writes `audit` in the same
 * statement; false (and no audit row) when there is none.
 */
export async function replaceSecret(
  db: Executor,
  tenantId: string,
  id: string,
  sealed: string,
  audit: AuditRow,
): Promise<boolean> {
  const row = await db
    .with('replaced', (w) =>
      w
        .updateTable('webhooks')
        // the replaced secret keeps signing beside the new one until the overlap ends
        .set((eb) => ({
          secret_encrypted: sealed,
          previous_secret_encrypted: eb.ref('secret_encrypted'),
          secret_rotated_at: new Date(),
          updated_at: new Date(),
        }))
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .returning('id'),
    )
    .with('audit', (w) =>
      w
        .insertInto('audit_log')
        .columns(AUDIT_COLUMNS)
        .expression(w.selectFrom('replaced').select(auditSelection(audit))),
    )
    .selectFrom('replaced')
    .select('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A test delivery: `data` (the event's documented example) queued to this webhook alone, with no
 * outbox event behind it, so no other subscription gets it and no record of the event's kind exists.
 */
export function insertTestDelivery(
  db: Executor,
  hook: WebhookRow,
  eventType: string,
  data: unknown,
): Promise<DeliveryRow> {
  const now = new Date();
  return db
    .insertInto('webhook_deliveries')
    .values({
      id: newId('delivery'),
      tenant_id: hook.tenant_id,
      webhook_id: hook.id,
      event_id: null,
      event_type: eventType,
      payload: JSON.stringify(data),
      event_created_at: now,
      next_attempt_at: now,
      is_test: true,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Marks a live webhook of the tenant deleted (and inactive), closes its pending deliveries that no
 * attempt holds right now as failed (nothing more is sent; an attempt in flight finishes and then
 * finds the webhook gone) and writes `audit` with `{url}` as its metadata, all in one statement;
 * the deleted webhook's url, or undefined (and nothing written) when there is none.
 */
export async function softDeleteWebhook(
  db: Executor,
  tenantId: string,
  id: string,
  now: Date,
  audit: AuditRow,
): Promise<string | undefined> {
  const row = await db
    .with('deleted', (w) =>
      w
        .updateTable('webhooks')
        .set({ deleted_at: now, is_active: false, updated_at: now })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .returning(['id', 'url']),
    )
    .with('failed', (w) =>
      w
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', next_attempt_at: null, error: 'Webhook deleted' })
        .where('tenant_id', '=', tenantId)
        .where('webhook_id', 'in', w.selectFrom('deleted').select('id'))
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)])),
    )
    .with('audit', (w) =>
      w
        .insertInto('audit_log')
        .columns(AUDIT_COLUMNS)
        .expression(
          w
            .selectFrom('deleted')
            .select(auditSelection(audit, sql`jsonb_build_object('url', ${sql.ref('deleted.url')})`)),
        ),
    )
    .selectFrom('deleted')
    .select('url')
    .executeTakeFirst();
  return row?.url;
}

/** One of this webhook's deliveries (tenant-scoped), or undefined (another webhook's or tenant's too). */
export function findDelivery(
  db: Executor,
  hook: WebhookRow,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', hook.id)
    .where('tenant_id', '=', hook.tenant_id)
    .executeTakeFirst();
}

/** Where a page of the log starts: the sort key as exact text (microseconds kept) and the id. */
export interface DeliveryPosition {
  key: string;
  id: string;
}

/** The log's order: most recent first, the id breaking ties (its index: webhook, created_at, id). */
const LOG_ORDER: ListOrder = { column: 'created_at', dir: 'desc' };

/** Where a `before` cursor points: one of this webhook's deliveries, or undefined. */
export function findCursor(
  db: Executor,
  hook: WebhookRow,
  deliveryId: string,
): Promise<DeliveryPosition | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', sortKeyText(LOG_ORDER.column).as('key')])
    .where('webhook_id', '=', hook.id)
    .where('tenant_id', '=', hook.tenant_id)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
}

/**
 * A page of the webhook's delivery log, most recent first, strictly older than `after` when given
 * (a `before` delivery or a cursor's position), read one row beyond `limit` to know whether an
 * older page exists (`next`: the position of its last row, null on the last page). The position
 * is compared as one row against (created_at, id), which the log index serves as a range.
 */
export async function listDeliveries(
  db: Executor,
  hook: WebhookRow,
  limit: number,
  after: DeliveryPosition | null,
): Promise<{ rows: DeliveryRow[]; next: DeliveryPosition | null }> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .select(sortKeyText(LOG_ORDER.column).as('cursor_key'))
    .where('webhook_id', '=', hook.id)
    .where('tenant_id', '=', hook.tenant_id)
    .$if(after !== null, (q) => q.where(afterPosition(LOG_ORDER, after!)))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  const { page, next } = nextPosition(rows, limit);
  return { rows: page.map(({ cursor_key: _, ...row }) => row), next };
}

/**
 * Every attempt made for a delivery, oldest first, with what it sent and got back: `request` null
 * when nothing was sent (refused destination) or its content was cleared after the retention days,
 * `response` null when no answer came (or its content was cleared).
 */
export async function listAttempts(db: Executor, delivery: DeliveryRow) {
  const rows = await db
    .selectFrom('webhook_delivery_attempts')
    .selectAll()
    .where('delivery_id', '=', delivery.id)
    .where('tenant_id', '=', delivery.tenant_id)
    .orderBy('attempt')
    .execute();
  return rows.map((a) => ({
    attempt: a.attempt,
    attempted_at: a.attempted_at,
    response_status: a.response_status,
    duration_ms: a.duration_ms,
    error: a.error,
    request: a.request_headers === null ? null : { headers: a.request_headers, body: a.request_body ?? '' },
    response:
      a.response_status === null || a.response_headers === null
        ? null
        : {
            status: a.response_status,
            headers: a.response_headers,
            body: a.response_body ?? '',
            body_truncated: a.response_body_truncated ?? false,
          },
  }));
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
  is_test: original.is_test,
  redelivery_of: original.id,
  next_attempt_at: new Date(),
});

/** Queues one re-send of `original`: the new pending delivery. */
export function insertRedelivery(db: Executor, original: DeliveryRow): Promise<DeliveryRow> {
  return db
    .insertInto('webhook_deliveries')
    .values(redeliveryOf(original))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Queues a re-send of every failed delivery of the webhook created at or after `since` that has not
 * been re-sent already (so a chain is re-sent once), oldest first, at most `max`: the new deliveries.
 * Two statements: run it in a transaction (the caller's, which also commits its answer).
 */
export async function redeliverFailedSince(
  trx: Executor,
  hook: WebhookRow,
  since: Date,
  max: number,
): Promise<DeliveryRow[]> {
  const failed = await trx
    .selectFrom('webhook_deliveries as d')
    .selectAll('d')
    .where('d.webhook_id', '=', hook.id)
    .where('d.tenant_id', '=', hook.tenant_id)
    .where('d.status', '=', 'failed')
    .where('d.created_at', '>=', since)
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
    .limit(max)
    .execute();
  if (failed.length === 0) return [];
  return trx.insertInto('webhook_deliveries').values(failed.map(redeliveryOf)).returningAll().execute();
}
