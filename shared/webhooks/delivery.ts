import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { decryptSecret } from '../crypto';
import type { Database } from '../db/schema';
import type { WebhookDeliveriesTable } from '../db/tables/webhooks';
import type { AppConfig } from '../env';
import { ALL_EVENTS } from '../events/catalog';
import { newId } from '../ids';
import type { Logger } from '../log/logger';
import type { WebhookPort } from './port';
import { MAX_ATTEMPTS, retryDelayMs } from './retry';
import { buildSignedRequest } from './signing';
import { checkDestination } from './ssrf';

type Executor = Kysely<Database> | Transaction<Database>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export interface DeliveryDeps {
  db: Kysely<Database>;
  config: Pick<
    AppConfig,
    'WEBHOOK_ENCRYPTION_KEY' | 'WEBHOOK_SSRF_ALLOW' | 'WEBHOOK_RETRY_UNIT_MS' | 'WEBHOOK_TIMEOUT_MS'
  >;
  port: WebhookPort;
  /** the runtime's logger (services.logger) */
  logger: Logger;
}

/**
 * How long a claim holds an attempt: the timeout plus as much again (at least 5 s) to record the
 * result. A process killed mid-attempt blocks that attempt for this long, then anyone takes it.
 */
export const leaseMs = (config: Pick<AppConfig, 'WEBHOOK_TIMEOUT_MS'>) =>
  config.WEBHOOK_TIMEOUT_MS + Math.max(5_000, config.WEBHOOK_TIMEOUT_MS);

/**
 * Outbox -> deliveries. Claims up to `batch` undispatched events with FOR UPDATE SKIP LOCKED (two
 * processes never fan out the same event), writes one pending delivery per active subscription
 * whose events include the type or `*` and that existed when the event happened, and marks the
 * events dispatched, all in one transaction. Returns the number of events taken.
 */
export async function dispatchEvents(
  db: Kysely<Database>,
  batch = 100,
): Promise<{ events: number; deliveries: number }> {
  return db.transaction().execute(async (trx) => {
    const events = await trx
      .selectFrom('events')
      .select(['id', 'tenant_id', 'event_type', 'payload', 'created_at'])
      .where('dispatched_at', 'is', null)
      .orderBy('created_at')
      .limit(batch)
      .forUpdate()
      .skipLocked()
      .execute();
    if (events.length === 0) return { events: 0, deliveries: 0 };
    const tenants = [...new Set(events.map((e) => e.tenant_id))];
    const subs = await trx
      .selectFrom('webhooks')
      .select(['id', 'tenant_id', 'events', 'created_at'])
      .where('tenant_id', 'in', tenants)
      .where('is_active', '=', true)
      .where('deleted_at', 'is', null)
      .execute();
    const rows: Insertable<WebhookDeliveriesTable>[] = [];
    const now = new Date();
    for (const ev of events) {
      for (const sub of subs) {
        if (sub.tenant_id !== ev.tenant_id) continue;
        if (sub.created_at.getTime() > ev.created_at.getTime()) continue;
        if (!sub.events.includes(ev.event_type) && !sub.events.includes(ALL_EVENTS)) continue;
        rows.push({
          id: newId('delivery'),
          tenant_id: ev.tenant_id,
          webhook_id: sub.id,
          event_id: ev.id,
          event_type: ev.event_type,
          payload: JSON.stringify(ev.payload),
          event_created_at: ev.created_at,
          next_attempt_at: now,
        });
      }
    }
    for (let i = 0; i < rows.length; i += 500) {
      await trx
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 500))
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    await trx
      .updateTable('events')
      .set({ dispatched_at: now })
      .where(
        'id',
        'in',
        events.map((e) => e.id),
      )
      .execute();
    return { events: events.length, deliveries: rows.length };
  });
}

/**
 * Claims up to `limit` due attempts atomically (a lease in `claimed_until` plus a fresh token):
 * two processes never hold the same attempt, and a claim whose process died expires and is taken again.
 */
export async function claimDue(db: Executor, limit: number, lease: number): Promise<DeliveryRow[]> {
  if (limit <= 0) return [];
  const token = crypto.randomUUID();
  // the CTE is evaluated once (a LIMIT inside `WHERE id IN (...)` is not guaranteed to be)
  const result = await sql<DeliveryRow>`
    WITH picked AS (
      SELECT id FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= now()
        AND (claimed_until IS NULL OR claimed_until < now())
      ORDER BY next_attempt_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE webhook_deliveries AS d
    SET claimed_until = now() + ${`${lease} milliseconds`}::interval, claim_token = ${token}
    FROM picked
    WHERE d.id = picked.id AND d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until < now())
    RETURNING d.*`.execute(db);
  return result.rows;
}

export type ClaimOutcome =
  | { claimed: DeliveryRow }
  /** the attempt was made already, the delivery is finished, or another process holds it */
  | { claimed: null; reason: 'not_found' | 'done' | 'held'; row?: DeliveryRow }
  | { claimed: null; reason: 'not_due'; row: DeliveryRow };

/**
 * Claims attempt number `attempt` of one delivery (the QStash callback). A duplicate callback finds
 * the attempt already made (attempts >= attempt) or held, and gets no claim.
 */
export async function claimAttempt(
  db: Executor,
  deliveryId: string,
  attempt: number,
  lease: number,
): Promise<ClaimOutcome> {
  const token = crypto.randomUUID();
  const result = await sql<DeliveryRow>`
    UPDATE webhook_deliveries SET claimed_until = now() + ${`${lease} milliseconds`}::interval, claim_token = ${token}
    WHERE id = ${deliveryId} AND status = 'pending' AND attempts = ${attempt - 1}
      AND next_attempt_at <= now() + interval '1 second'
      AND (claimed_until IS NULL OR claimed_until < now())
    RETURNING *`.execute(db);
  const claimed = result.rows[0];
  if (claimed) return { claimed };
  const row = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .executeTakeFirst();
  if (!row) return { claimed: null, reason: 'not_found' };
  if (row.status !== 'pending' || row.attempts >= attempt) return { claimed: null, reason: 'done', row };
  if (row.claimed_until && row.claimed_until.getTime() > Date.now())
    return { claimed: null, reason: 'held', row };
  return { claimed: null, reason: 'not_due', row };
}

export interface AttemptResult {
  deliveryId: string;
  /** the number of the attempt just made (0 when the delivery was closed without an attempt) */
  attempt: number;
  status: 'delivered' | 'failed' | 'pending';
  nextAttemptAt: Date | null;
  /** false when the claim was lost (lease expired and another process took it) */
  recorded: boolean;
}

const secretCache = new Map<string, string>();
async function openSecret(key: string, sealed: string): Promise<string> {
  const cached = secretCache.get(sealed);
  if (cached) return cached;
  const secret = await decryptSecret(key, sealed);
  if (secretCache.size > 5000) secretCache.clear();
  secretCache.set(sealed, secret);
  return secret;
}

/** Makes the claimed attempt and records its outcome (only if the claim is still ours). */
export async function performAttempt(deps: DeliveryDeps, row: DeliveryRow): Promise<AttemptResult> {
  const { db, config, port } = deps;
  const token = row.claim_token;
  const hook = await db
    .selectFrom('webhooks')
    .select(['url', 'secret_encrypted', 'is_active', 'deleted_at'])
    .where('id', '=', row.webhook_id)
    .executeTakeFirst();

  if (!hook || hook.deleted_at !== null || !hook.is_active) {
    // closed without an attempt: the subscriber removed or paused the subscription
    const res = await db
      .updateTable('webhook_deliveries')
      .set({
        status: 'failed',
        next_attempt_at: null,
        claimed_until: null,
        claim_token: null,
        error: !hook || hook.deleted_at ? 'Webhook deleted' : 'Webhook inactive',
      })
      .where('id', '=', row.id)
      .where('claim_token', '=', token)
      .executeTakeFirst();
    return {
      deliveryId: row.id,
      attempt: 0,
      status: 'failed',
      nextAttemptAt: null,
      recorded: Number(res.numUpdatedRows) > 0,
    };
  }

  const attempt = row.attempts + 1;
  const started = Date.now();
  let status: number | null = null;
  let error: string | null = null;
  const destination = await checkDestination(hook.url, {
    resolve: port.resolveHost,
    allow: config.WEBHOOK_SSRF_ALLOW,
  });
  if (!destination.ok) {
    error = `Destination refused: ${destination.detail}`;
  } else {
    const secret = await openSecret(config.WEBHOOK_ENCRYPTION_KEY, hook.secret_encrypted);
    const signed = await buildSignedRequest({
      secret,
      deliveryId: row.id,
      eventType: row.event_type,
      eventTimestamp: row.event_created_at.toISOString(),
      data: row.payload,
    });
    const result = await port.transport({
      url: destination.url,
      headers: signed.headers,
      body: signed.body,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      addresses: destination.addresses,
    });
    status = result.status;
    if (result.status === null) error = result.error;
    else if (result.status >= 300 && result.status < 400)
      error = `Redirect not followed (HTTP ${result.status})`;
    else if (result.status < 200 || result.status >= 300) error = `HTTP ${result.status}`;
  }
  const finished = new Date();
  const durationMs = Math.max(0, finished.getTime() - started);
  const ok = error === null;
  const delay = ok ? null : retryDelayMs(attempt, config.WEBHOOK_RETRY_UNIT_MS);
  const next = delay === null ? null : new Date(finished.getTime() + delay);
  const final: AttemptResult['status'] = ok ? 'delivered' : attempt >= MAX_ATTEMPTS ? 'failed' : 'pending';

  const res = await db
    .updateTable('webhook_deliveries')
    .set({
      status: final,
      attempts: attempt,
      last_attempt_at: finished,
      next_attempt_at: next,
      response_status: status,
      duration_ms: durationMs,
      error,
      claimed_until: null,
      claim_token: null,
      delivered_at: ok ? finished : null,
    })
    .where('id', '=', row.id)
    .where('claim_token', '=', token)
    .where('attempts', '=', row.attempts)
    .executeTakeFirst();
  return {
    deliveryId: row.id,
    attempt,
    status: final,
    nextAttemptAt: next,
    recorded: Number(res.numUpdatedRows) > 0,
  };
}

/** The earliest time a pending delivery can be claimed (due and not held); null when none is pending. */
export async function nextDueAt(db: Executor): Promise<Date | null> {
  const result = await sql<{ next: Date | string | null }>`
    SELECT min(GREATEST(next_attempt_at, COALESCE(claimed_until, next_attempt_at))) AS next
    FROM webhook_deliveries WHERE status = 'pending'`.execute(db);
  const next = result.rows[0]?.next;
  return next ? new Date(next) : null;
}

/** Counts for `settle()`: undispatched events and pending deliveries, read in one snapshot. */
export async function outstandingWork(db: Executor): Promise<{ events: number; pending: number }> {
  const result = await sql<{ events: string | number; pending: string | number }>`
    SELECT (SELECT count(*) FROM events WHERE dispatched_at IS NULL) AS events,
           (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS pending`.execute(db);
  const row = result.rows[0]!;
  return { events: Number(row.events), pending: Number(row.pending) };
}
