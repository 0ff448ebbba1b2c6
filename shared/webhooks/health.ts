import { type Kysely, sql } from 'kysely';
import type { Database, Executor } from '../db/schema';
import type { HealthState, WebhooksTable } from '../db/tables/webhooks';
import type { AppConfig } from '../env';
import { newId } from '../ids';
import type { Logger } from '../log/logger';
import type { Mailer } from '../mail/mailer';

/**
 * Endpoint health (docs/webhooks.md, "Endpoint health"). A delivery that ends `failed` after real
 * attempts makes its endpoint `failing`; while failing, the failed delivery of the oldest event not
 * re-sent yet goes out again as a probe (a new delivery linked to it, as a redelivery is) on growing
 * gaps; the first success of any delivery makes it `healthy` and re-sends, once each and oldest
 * event first, every delivery that failed since `failing_since`. Failing for
 * WEBHOOK_DISABLE_AFTER_S with no success disables it. Every one of these moves is one conditional UPDATE of the subscription row: the
 * process whose UPDATE moved the state owns the move (its re-sends, audit entry and mail), another
 * process finds the state already moved and does nothing, so nothing is probed or recovered twice.
 */
export const HEALTH_ACTOR = 'system:webhooks';

/** Gaps between probes, in retry units: 60, 300, 900, 1800, then 3600 for ever. */
export const PROBE_GAPS_UNITS = [60, 300, 900, 1800, 3600] as const;
export const probeGapMs = (probesSent: number, unitMs: number) =>
  PROBE_GAPS_UNITS[Math.min(probesSent, PROBE_GAPS_UNITS.length - 1)]! * unitMs;

/** At most one mail per endpoint in this long. */
const MAIL_EVERY = '1 day';

export type HealthConfig = Pick<
  AppConfig,
  'WEBHOOK_RETRY_UNIT_MS' | 'WEBHOOK_DISABLE_AFTER_S' | 'PUBLIC_BASE_URL'
>;

export interface HealthDeps {
  db: Kysely<Database>;
  config: HealthConfig;
  logger: Logger;
  /** the owner's mails; absent: none sent (logged) */
  mailer?: Mailer;
  /** new deliveries were queued (re-sends, probes): make them prompt */
  queued?(deliveryIds: string[]): void | Promise<void>;
  /** the endpoint's next probe is due at `at` (Workers: a QStash delayed callback) */
  probeAt?(webhookId: string, probe: number, at: Date): Promise<void>;
}

type Hook = Pick<
  import('kysely').Selectable<WebhooksTable>,
  'health_state' | 'failing_since' | 'last_success_at' | 'disabled_at'
>;

/** The subscription's `health` as every read shows it. */
export const healthView = (w: Hook, failedDeliveries: number) => ({
  state: w.health_state as HealthState,
  failing_since: w.failing_since,
  last_success_at: w.last_success_at,
  failed_deliveries: failedDeliveries,
  disabled_at: w.disabled_at,
});

/**
 * The failed deliveries of an endpoint that wait for recovery: ended failed since `since` (created
 * then or after, or attempted then or after) and not re-sent by any later delivery.
 */
const waitingSql = (webhookId: unknown, since: unknown) => sql`
  SELECT d.* FROM webhook_deliveries AS d
  WHERE d.webhook_id = ${webhookId} AND d.status = 'failed'
    AND (d.created_at >= ${since} OR d.last_attempt_at >= ${since})
    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries AS r WHERE r.redelivery_of = d.id)`;

/**
 * Oldest first means by the event's time: a failed probe is itself a delivery waiting, newer than
 * the others but carrying the oldest event, and one fan-out may have written a later event's
 * delivery before an earlier one's. The delivery's own time and id then break ties.
 */
const oldestEventFirst = (alias: string) =>
  sql.raw(`ORDER BY ${alias}.event_created_at, ${alias}.created_at, ${alias}.id`);

/** How many deliveries of each endpoint wait for recovery (0 for one that is not failing). */
export async function waitingCounts(
  db: Executor,
  hooks: readonly { id: string; failing_since: Date | null }[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>(hooks.map((h) => [h.id, 0]));
  const failing = hooks.filter((h) => h.failing_since !== null);
  if (failing.length === 0) return counts;
  const { rows } = await sql<{ id: string; n: string | number }>`
    SELECT w.id, (SELECT count(*) FROM (${waitingSql(sql.ref('w.id'), sql.ref('w.failing_since'))}) AS x) AS n
    FROM webhooks AS w WHERE w.id = ANY(${failing.map((h) => h.id)}::text[])`.execute(db);
  for (const r of rows) counts.set(r.id, Number(r.n));
  return counts;
}

/**
 * Re-sends every delivery of the endpoint waiting for recovery since `since`, oldest first (due a
 * microsecond apart, so the claims take them in that order), each once: the new deliveries' ids.
 * One statement, so a crash writes all or none.
 */
export async function resendWaiting(db: Executor, webhookId: string, since: Date): Promise<string[]> {
  const { rows: waiting } = await sql<{ id: string }>`
    SELECT x.id FROM (${waitingSql(webhookId, since)}) AS x ${oldestEventFirst('x')}`.execute(db);
  if (waiting.length === 0) return [];
  const ids = waiting.map(() => newId('delivery'));
  const { rows } = await sql<{ id: string }>`
    INSERT INTO webhook_deliveries
      (id, tenant_id, webhook_id, event_id, event_type, payload, event_created_at, is_test, redelivery_of,
       next_attempt_at)
    SELECT v.id, d.tenant_id, d.webhook_id, d.event_id, d.event_type, d.payload, d.event_created_at, d.is_test,
           d.id, now() + v.n * interval '1 microsecond'
    FROM unnest(${ids}::text[], ${waiting.map((w) => w.id)}::text[]) WITH ORDINALITY AS v (id, original, n)
    JOIN webhook_deliveries AS d ON d.id = v.original
    ORDER BY v.n
    RETURNING id`.execute(db);
  return rows.map((r) => r.id);
}

/** One re-send of the oldest event's delivery waiting for recovery, as a probe; its id, or null when none waits. */
export async function sendProbe(db: Executor, webhookId: string, since: Date): Promise<string | null> {
  const { rows } = await sql<{ id: string }>`
    WITH oldest AS (${waitingSql(webhookId, since)} ${oldestEventFirst('d')} LIMIT 1)
    INSERT INTO webhook_deliveries
      (id, tenant_id, webhook_id, event_id, event_type, payload, event_created_at, is_test, redelivery_of,
       next_attempt_at)
    SELECT ${newId('delivery')}, tenant_id, webhook_id, event_id, event_type, payload, event_created_at, is_test,
           id, now()
    FROM oldest
    RETURNING id`.execute(db);
  return rows[0]?.id ?? null;
}

interface Moved {
  id: string;
  tenant_id: string;
  url: string;
  mail: boolean;
}

/** The audit entry of each moved row (`moved` has `audit_id`, `tenant_id`, `id`). */
const auditInsert = (action: string, metadata: ReturnType<typeof sql>) => sql`
  INSERT INTO audit_log (id, tenant_id, actor, action, target_type, target_id, source_ip, metadata)
  SELECT m.audit_id, m.tenant_id, ${HEALTH_ACTOR}, ${action}, 'webhook', m.id, NULL, ${metadata}
  FROM moved AS m`;

/** whether a mail may go now, and the column's new value (one a day at most) */
const mailDue = sql`(w.owner_mailed_at IS NULL OR w.owner_mailed_at < now() - ${MAIL_EVERY}::interval)`;

/**
 * Endpoints whose deliveries just ended failed (after real attempts): each healthy one turns
 * failing, since `GREATEST(first failed delivery's creation, last success)`, with its first probe
 * (or its disable check, whichever is first) scheduled. Audited and mailed.
 */
export async function noteFailures(
  deps: HealthDeps,
  failed: readonly { webhookId: string; createdAt: Date }[],
) {
  if (failed.length === 0) return;
  const since = new Map<string, Date>();
  for (const f of failed) {
    const at = since.get(f.webhookId);
    if (!at || f.createdAt < at) since.set(f.webhookId, f.createdAt);
  }
  const { config } = deps;
  const hooks = [...since.keys()];
  // `mail`: the SET's new owner_mailed_at equals now() exactly when the mail was due
  const { rows } = await sql<Moved & { next_probe_at: Date; failing_since: Date }>`
    WITH v AS (
      SELECT * FROM unnest(${hooks}::text[], ${[...since.values()]}::timestamptz[], ${hooks.map(() => newId('audit'))}::text[])
        AS v (id, since, audit_id)
    ),
    moved AS (
      UPDATE webhooks AS w
      SET health_state = 'failing', failing_since = GREATEST(v.since, w.last_success_at), probes_sent = 0,
          next_probe_at = LEAST(now() + ${`${probeGapMs(0, config.WEBHOOK_RETRY_UNIT_MS)} milliseconds`}::interval,
                                GREATEST(v.since, w.last_success_at) + ${`${config.WEBHOOK_DISABLE_AFTER_S} seconds`}::interval),
          owner_mailed_at = CASE WHEN ${mailDue} THEN now() ELSE w.owner_mailed_at END
      FROM v
      WHERE w.id = v.id AND w.health_state = 'healthy' AND w.deleted_at IS NULL
      RETURNING w.id, w.tenant_id, w.url, w.next_probe_at, w.failing_since, v.audit_id,
                w.owner_mailed_at = now() AS mail
    ), audit AS (${auditInsert('webhook.failing', sql`jsonb_build_object('failing_since', m.failing_since)`)})
    SELECT * FROM moved`.execute(deps.db);
  for (const m of rows) {
    deps.logger.warn({ webhook: m.id }, 'webhook endpoint failing');
    if (m.mail) await mailOwners(deps, m, 'failing');
    await deps.probeAt?.(m.id, 1, new Date(m.next_probe_at));
  }
}

/**
 * A delivery to each of these failing endpoints just succeeded: each turns healthy and (unless
 * `auto_recover` is off) re-sends what waits since its `failing_since`. The UPDATE that moves the
 * state is the claim: one process recovers an endpoint, once.
 */
export async function noteRecoveries(deps: HealthDeps, webhookIds: readonly string[]) {
  for (const id of new Set(webhookIds)) {
    const queued = await deps.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ id: string; failing_since: Date; auto_recover: boolean }>`
        WITH old AS (
          SELECT id, failing_since FROM webhooks WHERE id = ${id} AND health_state = 'failing' FOR UPDATE
        ), moved AS (
          UPDATE webhooks AS w SET health_state = 'healthy', failing_since = NULL, next_probe_at = NULL, probes_sent = 0
          FROM old WHERE w.id = old.id
          RETURNING w.id, w.tenant_id, old.failing_since, w.auto_recover, ${newId('audit')}::text AS audit_id
        ), audit AS (${auditInsert('webhook.healthy', sql`jsonb_build_object('failing_since', m.failing_since)`)})
        SELECT id, failing_since, auto_recover FROM moved`.execute(trx);
      const moved = rows[0];
      if (!moved) return [];
      return moved.auto_recover ? resendWaiting(trx, id, new Date(moved.failing_since)) : [];
    });
    if (queued.length > 0) {
      deps.logger.info({ webhook: id, resent: queued.length }, 'webhook endpoint recovered');
      await deps.queued?.(queued);
    }
  }
}

/**
 * Enables a disabled endpoint (PATCH `{"is_active": true}`): healthy again, and (unless
 * `auto_recover` is off) every delivery that failed since `failing_since` is re-sent. In the
 * caller's transaction; the re-sent ids (the caller kicks the dispatcher after commit).
 */
export async function enableDisabled(trx: Executor, tenantId: string, id: string, actor: string) {
  const { rows } = await sql<{ failing_since: Date | null; auto_recover: boolean }>`
    WITH old AS (
      SELECT id, failing_since FROM webhooks
      WHERE id = ${id} AND tenant_id = ${tenantId} AND health_state = 'disabled' AND deleted_at IS NULL FOR UPDATE
    ), moved AS (
      UPDATE webhooks AS w
      SET health_state = 'healthy', failing_since = NULL, disabled_at = NULL, next_probe_at = NULL, probes_sent = 0,
          is_active = true, updated_at = now()
      FROM old WHERE w.id = old.id
      RETURNING w.id, w.tenant_id, old.failing_since, w.auto_recover
    ), audit AS (
      INSERT INTO audit_log (id, tenant_id, actor, action, target_type, target_id, source_ip, metadata)
      SELECT ${newId('audit')}, m.tenant_id, ${actor}, 'webhook.enabled', 'webhook', m.id, NULL,
             jsonb_build_object('failing_since', m.failing_since)
      FROM moved AS m
    )
    SELECT failing_since, auto_recover FROM moved`.execute(trx);
  const moved = rows[0];
  if (!moved?.failing_since || !moved.auto_recover) return [];
  return resendWaiting(trx, id, new Date(moved.failing_since));
}

/**
 * Sends the probes that are due (and disables the endpoints failing for too long): each endpoint
 * is taken by moving its `next_probe_at` on, FOR UPDATE SKIP LOCKED, so two processes never send
 * the same probe. `only`: that endpoint alone (a QStash callback), due within a second.
 */
export async function runDueProbes(deps: HealthDeps, options: { only?: string; limit?: number } = {}) {
  const { config } = deps;
  const unit = config.WEBHOOK_RETRY_UNIT_MS;
  const disableAfter = sql`${`${config.WEBHOOK_DISABLE_AFTER_S} seconds`}::interval`;
  const gaps = PROBE_GAPS_UNITS.map((g) => g * unit);
  const { rows } = await sql<{
    id: string;
    tenant_id: string;
    url: string;
    failing_since: Date;
    auto_recover: boolean;
    is_active: boolean;
    probes_sent: number;
    next_probe_at: Date;
    expired: boolean;
  }>`
    WITH due AS (
      SELECT id FROM webhooks
      WHERE health_state = 'failing' AND deleted_at IS NULL
        AND next_probe_at <= now() + ${options.only ? sql`interval '1 second'` : sql`interval '0 seconds'`}
        ${options.only ? sql`AND id = ${options.only}` : sql``}
      ORDER BY next_probe_at LIMIT ${options.limit ?? 20}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE webhooks AS w
    SET probes_sent = w.probes_sent + 1,
        next_probe_at = LEAST(
          now() + (${gaps}::bigint[])[LEAST(w.probes_sent + 2, ${gaps.length})] * interval '1 millisecond',
          w.failing_since + ${disableAfter})
    FROM due WHERE w.id = due.id
    RETURNING w.id, w.tenant_id, w.url, w.failing_since, w.auto_recover, w.is_active, w.probes_sent, w.next_probe_at,
              w.failing_since + ${disableAfter} <= now() AS expired`.execute(deps.db);
  for (const hook of rows) {
    try {
      if (hook.expired) await disable(deps, hook.id);
      else {
        if (hook.auto_recover && hook.is_active) {
          const probe = await sendProbe(deps.db, hook.id, new Date(hook.failing_since));
          if (probe) await deps.queued?.([probe]);
        }
        await deps.probeAt?.(hook.id, hook.probes_sent + 1, new Date(hook.next_probe_at));
      }
    } catch (err) {
      deps.logger.warn({ webhook: hook.id, error: String(err) }, 'webhook probe failed');
    }
  }
  return rows.length;
}

/** Failing for WEBHOOK_DISABLE_AFTER_S with no success: `is_active` false, state `disabled`. */
async function disable(deps: HealthDeps, id: string) {
  const { rows } = await sql<Moved>`
    WITH moved AS (
      UPDATE webhooks AS w
      SET health_state = 'disabled', is_active = false, disabled_at = now(), next_probe_at = NULL, updated_at = now(),
          owner_mailed_at = CASE WHEN ${mailDue} THEN now() ELSE w.owner_mailed_at END
      WHERE w.id = ${id} AND w.health_state = 'failing'
      RETURNING w.id, w.tenant_id, w.url, w.failing_since, w.owner_mailed_at = now() AS mail,
                ${newId('audit')}::text AS audit_id
    ), audit AS (${auditInsert('webhook.disabled', sql`jsonb_build_object('failing_since', m.failing_since)`)})
    SELECT * FROM moved`.execute(deps.db);
  const moved = rows[0];
  if (!moved) return;
  deps.logger.warn({ webhook: id }, 'webhook endpoint disabled');
  if (moved.mail) await mailOwners(deps, moved, 'disabled');
}

const MAIL = {
  failing: {
    subject: (url: string) => `Webhook endpoint failing: ${url}`,
    text: (url: string, link: string, days: string) =>
      `Deliveries to ${url} are failing. We keep probing it and re-send everything that failed as soon as it answers again; if it does not answer for ${days} days it is disabled.\n\nSee its deliveries: ${link}`,
  },
  disabled: {
    subject: (url: string) => `Webhook endpoint disabled: ${url}`,
    text: (url: string, link: string, days: string) =>
      `Deliveries to ${url} failed for ${days} days with no success, so the endpoint is disabled: no new events are sent to it. Enable it in the console once it works again; everything that failed since it started failing is then re-sent.\n\n${link}`,
  },
} as const;

/** One mail to each active tenant admin of the endpoint's tenant (errors logged, never thrown). */
async function mailOwners(deps: HealthDeps, hook: Moved, kind: keyof typeof MAIL) {
  if (!deps.mailer) {
    deps.logger.warn({ webhook: hook.id }, 'webhook owner not mailed: no mailer');
    return;
  }
  try {
    const admins = await deps.db
      .selectFrom('tenant_users')
      .select('email')
      .where('tenant_id', '=', hook.tenant_id)
      .where('role', '=', 'tenant_admin')
      .where('disabled_at', 'is', null)
      .execute();
    const base = (deps.config.PUBLIC_BASE_URL ?? '').replace(/\/+$/, '');
    const link = `${base}/console/webhooks/${hook.id}`;
    const days = String(Math.round((deps.config.WEBHOOK_DISABLE_AFTER_S / 86_400) * 10) / 10);
    for (const { email } of admins)
      await deps.mailer.send({
        to: email,
        subject: MAIL[kind].subject(hook.url),
        text: MAIL[kind].text(hook.url, link, days),
        link,
      });
  } catch (err) {
    deps.logger.warn({ webhook: hook.id, error: String(err) }, 'webhook owner mail failed');
  }
}
