import { type Kysely, type Selectable, sql } from 'kysely';
import { BASE62, decryptSecret } from '../crypto';
import type { Database, Executor } from '../db/schema';
import type { WebhookDeliveriesTable } from '../db/tables/webhooks';
import type { AppConfig } from '../env';
import { ALL_EVENTS } from '../events/catalog';
import { ID_PREFIX } from '../ids';
import type { Logger } from '../log/logger';
import type { Mailer } from '../mail/mailer';
import { noteFailures, noteRecoveries } from './health';
import { paceClaims } from './pacing';
import type { TransportAnswer, WebhookPort } from './port';
import { MAX_ATTEMPTS, retryDelayMs } from './retry';
import { buildSignedRequest } from './signing';
import { checkDestination } from './ssrf';

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export interface DeliveryDeps {
  db: Kysely<Database>;
  config: Pick<
    AppConfig,
    | 'WEBHOOK_ENCRYPTION_KEY'
    | 'WEBHOOK_SSRF_ALLOW'
    | 'WEBHOOK_RETRY_UNIT_MS'
    | 'WEBHOOK_TIMEOUT_MS'
    | 'WEBHOOK_ATTEMPT_RETENTION_DAYS'
    | 'WEBHOOK_ROTATION_OVERLAP_S'
    | 'WEBHOOK_DISABLE_AFTER_S'
    | 'PUBLIC_BASE_URL'
  >;
  port: WebhookPort;
  /** the runtime's logger (services.logger) */
  logger: Logger;
  /** the owner's mails when an endpoint starts failing or is disabled (services.mailer) */
  mailer?: Mailer;
  /** re-sends and probes were queued (due now): the runtime makes them prompt */
  queued?(deliveryIds: string[]): void | Promise<void>;
  /** a failing endpoint's next probe is due at `at` (Workers: a QStash delayed callback) */
  probeAt?(webhookId: string, probe: number, at: Date): Promise<void>;
}

/**
 * How long a claim holds an attempt: the timeout plus as much again (at least 5 s) to record the
 * result. A process killed mid-attempt blocks that attempt for this long, then anyone takes it.
 */
export const leaseMs = (config: Pick<AppConfig, 'WEBHOOK_TIMEOUT_MS'>) =>
  config.WEBHOOK_TIMEOUT_MS + Math.max(5_000, config.WEBHOOK_TIMEOUT_MS);

/** Deliveries one fan-out statement writes at most (an event with more subscriptions is written whole). */
export const FAN_OUT_MAX_DELIVERIES = 1000;

export interface FanOutBatch {
  events: number;
  deliveries: number;
  more: boolean;
}

/**
 * Outbox -> deliveries, in one atomic statement and no transaction. It locks up to `batch` of the
 * oldest undispatched events (FOR UPDATE SKIP LOCKED: two processes never fan out the same event),
 * keeps the oldest of them whose subscriptions (active, events include the type or `*`, existing
 * when the event happened) come to at most `maxDeliveries` pairs (an event with none counts one;
 * the first event is kept whole whatever its count), marks those dispatched and inserts their
 * deliveries: an event is marked exactly when its deliveries are written. Bounding the deliveries
 * keeps a burst (100 events to 100 subscriptions each) from holding every send back until ten
 * thousand rows are written: sending starts after the first thousand. Returns the events taken,
 * the deliveries written and whether more events were waiting than this batch took (false when it
 * took none: whoever holds them goes on).
 */
export async function dispatchEvents(
  db: Kysely<Database>,
  batch = 100,
  maxDeliveries = FAN_OUT_MAX_DELIVERIES,
): Promise<FanOutBatch> {
  const { events, deliveries, more } = await fanOut(
    db,
    { events: batch, max: maxDeliveries },
    { limit: 0, lease: 0 },
  );
  return { events, deliveries, more };
}

/**
 * dispatchEvents of one batch and claimDue of up to `limit` due attempts, in one statement: the due
 * attempts already waiting first (oldest first, as claimDue takes them), then the batch's fresh
 * deliveries in pair order, inserted with the claim already on them (lease and token as claimDue
 * sets them), so a new event's first attempt needs no claim statement of its own. Each comes with
 * its subscription, as from claimDue; pacing is the caller's (paceClaimed), as after claimDue.
 */
export async function dispatchAndClaim(
  db: Kysely<Database>,
  limit: number,
  lease: number,
): Promise<FanOutBatch & { claimed: ClaimedDelivery[] }> {
  return fanOut(db, { events: 100, max: FAN_OUT_MAX_DELIVERIES }, { limit: Math.max(0, limit), lease });
}

/** `w` is a subscription event `e` goes to: active, to its type or `*`, existing when it happened. */
const subscribed = (e: 'c' | 'm') =>
  sql.raw(`w.tenant_id = ${e}.tenant_id AND w.is_active AND w.deleted_at IS NULL AND w.created_at <= ${e}.created_at
   AND (${e}.event_type = ANY(w.events) OR '${ALL_EVENTS}' = ANY(w.events))`);

/**
 * A delivery id made in SQL in newId('delivery')'s format: the prefix, milliseconds in nine base36
 * digits (BASE62's first 36, lower case), 14 random base62 characters. The milliseconds are the
 * statement's time plus the pair's number `p.n`, so the ids of one statement sort in pair order,
 * as newId's of one process do. The subquery refers to the row, so it is evaluated for every row
 * rather than once. `random()` is enough for the random part: an id names a delivery, it grants
 * nothing (every read of one is scoped to its tenant), and two ids of the same millisecond share
 * their 14 random characters with odds of one in 10^25.
 */
const deliveryIdSql = sql`${`${ID_PREFIX.delivery}_`} || (SELECT string_agg(CASE WHEN i < 9
   THEN lower(substr(${BASE62}, (((floor(extract(epoch FROM now()) * 1000)::bigint + p.n - 1) / power(36, 8 - i)::bigint) % 36)::int + 1, 1))
   ELSE substr(${BASE62}, floor(random() * 62)::int + 1, 1) END, '' ORDER BY i) FROM generate_series(0, 22) AS i)`;

/** A row of the fan-out statement: its counts, and a claimed delivery beside its subscription's columns. */
type FanOutRow = Record<'events' | 'deliveries', string | number> & { more?: boolean } & AttemptRow & {
    [K in keyof HookTarget]: HookTarget[K] | null;
  };

/**
 * The fan-out of a batch of events (`batch`, null for none) and the claim of up to `claim.limit` due
 * attempts, as one statement (comments stay out of its SQL: every byte of it is in each bundle and
 * sent with each statement). Its steps, in order:
 *  - `picked`, `reclaimed`: the attempts already due, locked and leased to this `token`. The CTE is
 *    evaluated once (a LIMIT inside `WHERE id IN (...)` is not guaranteed to be).
 *  - `cand`: the oldest undispatched events, locked (another process's are skipped).
 *  - `sized`: each with its running number of deliveries (its subscriptions, at least 1).
 *  - `marked`: those that fit `batch.max` marked dispatched (the first always, however many it has).
 *  - `pairs`, `inserted`: one delivery per event and subscription, numbered in event order; those
 *    within what the limit leaves after `reclaimed` are inserted already leased to the token.
 *  - the final SELECT: one row of counts (`more` when the batch was full or cut), beside each leased
 *    delivery with its subscription's columns, so an attempt reads them without a round trip.
 */
async function fanOut(
  db: Executor,
  batch: { events: number; max: number } | null,
  claim: { limit: number; lease: number },
): Promise<FanOutBatch & { claimed: ClaimedDelivery[] }> {
  const token = crypto.randomUUID();
  const until = sql`now() + ${`${claim.lease} milliseconds`}::interval`;
  const columns = (prefix: string) => sql.raw(ATTEMPT_COLUMNS.map((c) => prefix + c).join());
  // fresh deliveries are claimed as far as the limit goes once the attempts already due are
  const { rows } = await sql<FanOutRow>`
WITH picked AS (
 SELECT id FROM webhook_deliveries
 WHERE status = 'pending' AND next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
 ORDER BY next_attempt_at LIMIT ${claim.limit} FOR UPDATE SKIP LOCKED
), reclaimed AS (
 UPDATE webhook_deliveries d SET claimed_until = ${until}, claim_token = ${token} FROM picked
 WHERE d.id = picked.id AND d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until < now())
 RETURNING ${columns('d.')}
)${
    batch
      ? sql`, cand AS (
 SELECT id, tenant_id, event_type, created_at FROM events
 WHERE dispatched_at IS NULL ORDER BY created_at LIMIT ${batch.events} FOR UPDATE SKIP LOCKED
), sized AS (
 SELECT c.id, row_number() OVER o AS k, sum(GREATEST(s.n, 1)) OVER o AS upto
 FROM cand c CROSS JOIN LATERAL (SELECT count(*) AS n FROM webhooks w WHERE ${subscribed('c')}) s
 WINDOW o AS (ORDER BY c.created_at, c.id)
), marked AS (
 UPDATE events e SET dispatched_at = now()
 FROM sized WHERE e.id = sized.id AND (sized.upto <= ${batch.max} OR sized.k = 1)
 RETURNING e.id, e.tenant_id, e.event_type, e.payload, e.created_at
), pairs AS (
 SELECT m.*, w.id AS webhook_id, row_number() OVER (ORDER BY m.created_at, m.id, w.id) AS n
 FROM marked m JOIN webhooks w ON ${subscribed('m')}
), inserted AS (
 INSERT INTO webhook_deliveries
  (id, tenant_id, webhook_id, event_id, event_type, payload, event_created_at, next_attempt_at, claimed_until, claim_token)
 SELECT ${deliveryIdSql}, p.tenant_id, p.webhook_id, p.id, p.event_type, p.payload, p.created_at, now(), c.until, c.token
 FROM pairs p
 LEFT JOIN (SELECT ${until} AS until, ${token} AS token) c ON p.n <= ${claim.limit} - (SELECT count(*) FROM reclaimed)
 ON CONFLICT DO NOTHING
 RETURNING ${columns('')}
)`
      : sql``
  }
SELECT k.*, c.*, ${hookColumns} FROM (SELECT ${
    batch
      ? sql`(SELECT count(*) FROM cand) = ${batch.events} OR (SELECT max(upto) FROM sized) > ${batch.max} AS more,
 (SELECT count(*) FROM marked) AS events, (SELECT count(*) FROM inserted) AS deliveries`
      : sql`0 AS events`
  }) k
LEFT JOIN (SELECT * FROM reclaimed${batch ? sql` UNION ALL SELECT * FROM inserted WHERE claim_token IS NOT NULL` : sql``}) c ON true
LEFT JOIN webhooks w ON w.id = c.webhook_id`.execute(db);
  const first = rows[0]!;
  const events = Number(first.events);
  // none taken: another process holds these events and is writing them; it goes on with the rest,
  // and this one looks again at its next poll instead of reading the same events over and over
  const more = !!first.more && events > 0;
  return {
    events,
    deliveries: Number(first.deliveries ?? 0),
    more,
    claimed: rows.filter((r) => r.id != null).map(toClaimed),
  };
}

/**
 * Claims up to `limit` due attempts atomically (a lease in `claimed_until` plus a fresh token):
 * two processes never hold the same attempt, and a claim whose process died expires and is taken again.
 */
export async function claimDue(db: Executor, limit: number, lease: number): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  return (await fanOut(db, null, { limit, lease })).claimed;
}

const pick = <T>(r: object, keys: readonly string[]) =>
  Object.fromEntries(keys.map((k) => [k, (r as Record<string, unknown>)[k]])) as T;

/** A claimed row as claimDue and dispatchAndClaim read it: the delivery, with its subscription (null: gone). */
const toClaimed = (r: FanOutRow) =>
  ({
    ...pick<AttemptRow>(r, ATTEMPT_COLUMNS),
    hook: r.url === null ? null : pick<HookTarget>(r, HOOK_TARGET_COLUMNS),
  }) satisfies ClaimedDelivery;

/**
 * Claims due attempts and keeps those their endpoint's rate limit lets start now; the others are
 * handed back unattempted, due at their endpoint's pace (`later`, for a scheduler to wake them).
 */
export async function claimPaced(db: Executor, limit: number, lease: number) {
  return paceClaimed(db, await claimDue(db, limit, lease));
}

/** Claimed attempts split by their endpoints' pace (paceClaims), with no statement when none has a rate limit. */
export async function paceClaimed(db: Executor, claimed: ClaimedDelivery[]) {
  // no statement for the common case: no claimed endpoint has a rate limit
  if (!claimed.some((r) => r.hook?.rate_limit != null)) return { go: claimed, later: [] };
  return paceClaims(db, claimed);
}

/**
 * Gives back claims this process will not use (a stopping worker's claimed-ahead attempts, or one
 * that waited too long to start): due again at once for any process, instead of when the lease ends.
 * Only a claim still held with its own token is released.
 */
export async function releaseClaims(
  db: Executor,
  rows: readonly Pick<DeliveryRow, 'id' | 'claim_token'>[],
): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    UPDATE webhook_deliveries AS d SET claimed_until = NULL, claim_token = NULL
    FROM unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.claim_token)}::text[]) AS v(id, token)
    WHERE d.id = v.id AND d.claim_token = v.token AND d.status = 'pending'`.execute(db);
}

export interface HookTarget {
  url: string;
  secret_encrypted: string;
  is_active: boolean;
  deleted_at: Date | null;
  rate_limit: number | null;
  previous_secret_encrypted: string | null;
  secret_rotated_at: Date | null;
}
const HOOK_TARGET_COLUMNS = [
  'url',
  'secret_encrypted',
  'is_active',
  'deleted_at',
  'rate_limit',
  'previous_secret_encrypted',
  'secret_rotated_at',
] as const;
const hookColumns = sql.raw(HOOK_TARGET_COLUMNS.map((c) => `w.${c}`).join(', '));
/**
 * What an attempt reads of its delivery. A claim returns these columns alone: the others (five more
 * timestamps among them) would be parsed for every attempt and never read.
 */
const ATTEMPT_COLUMNS = [
  'id',
  'claim_token',
  'attempts',
  'webhook_id',
  'event_type',
  'payload',
  'event_created_at',
  'is_test',
] as const satisfies readonly (keyof DeliveryRow)[];
export type AttemptRow = Pick<DeliveryRow, (typeof ATTEMPT_COLUMNS)[number]>;

/** A claimed delivery; `hook` is its subscription as the claim read it (null: the row is gone). */
export type ClaimedDelivery = AttemptRow & { hook: HookTarget | null };

export type ClaimOutcome =
  /** rateLimited: its endpoint has a rate limit (pace it before the attempt) */
  | { claimed: DeliveryRow & { hook: HookTarget | null }; rateLimited: boolean }
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
  // the subscription comes with the claim, as from claimDue: the attempt reads it without a statement of its own
  const result = await sql<DeliveryRow & { [K in keyof HookTarget]: HookTarget[K] | null }>`
    WITH claimed AS (
      UPDATE webhook_deliveries SET claimed_until = now() + ${`${lease} milliseconds`}::interval, claim_token = ${token}
      WHERE id = ${deliveryId} AND status = 'pending' AND attempts = ${attempt - 1}
        AND next_attempt_at <= now() + interval '1 second'
        AND (claimed_until IS NULL OR claimed_until < now())
      RETURNING *
    )
    SELECT claimed.*, ${hookColumns} FROM claimed LEFT JOIN webhooks AS w ON w.id = claimed.webhook_id`.execute(
    db,
  );
  const first = result.rows[0];
  if (first) {
    const hook = first.url === null ? null : pick<HookTarget>(first, HOOK_TARGET_COLUMNS);
    for (const c of HOOK_TARGET_COLUMNS) delete first[c];
    return { claimed: { ...(first as DeliveryRow), hook }, rateLimited: hook?.rate_limit != null };
  }
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
  webhookId: string;
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

/** An attempt made (or a delivery closed without one) whose outcome is not written yet. */
export interface AttemptMade {
  row: AttemptRow;
  result: Omit<AttemptResult, 'recorded'>;
  /** the columns the attempt sets; absent when the delivery is closed without an attempt */
  sent?: {
    last_attempt_at: Date;
    response_status: number | null;
    duration_ms: number;
    error: string | null;
    /** what was sent; null when nothing was (refused destination) */
    request: { headers: Record<string, string>; body: string } | null;
    /** the receiver's answer; null when none came */
    response: TransportAnswer | null;
  };
  /** why it was closed without an attempt */
  closed?: string;
}

/** Makes the claimed attempt (SSRF check, signing, the request) without recording it. */
export async function makeAttempt(deps: DeliveryDeps, row: ClaimedDelivery): Promise<AttemptMade> {
  const { config } = deps;
  const { hook } = row;

  if (!hook || hook.deleted_at !== null || !hook.is_active) {
    // closed without an attempt: the subscriber removed or paused the subscription
    return {
      row,
      result: {
        deliveryId: row.id,
        attempt: 0,
        status: 'failed',
        nextAttemptAt: null,
        webhookId: row.webhook_id,
      },
      closed: !hook || hook.deleted_at ? 'Webhook deleted' : 'Webhook inactive',
    };
  }

  const attempt = row.attempts + 1;
  const started = Date.now();
  const { response_status, error, request, response } = await send(deps, hook, row);
  const finished = new Date();
  const ok = error === null;
  const delay = ok ? null : retryDelayMs(attempt, config.WEBHOOK_RETRY_UNIT_MS);
  const next = delay === null ? null : new Date(finished.getTime() + delay);
  return {
    row,
    result: {
      deliveryId: row.id,
      attempt,
      status: ok ? 'delivered' : attempt >= MAX_ATTEMPTS ? 'failed' : 'pending',
      nextAttemptAt: next,
      webhookId: row.webhook_id,
    },
    sent: {
      last_attempt_at: finished,
      response_status,
      duration_ms: Math.max(0, finished.getTime() - started),
      error,
      request,
      response,
    },
  };
}

type Sent = Omit<NonNullable<AttemptMade['sent']>, 'last_attempt_at' | 'duration_ms'>;

/** The SSRF check, signing and the request: what was sent and answered, and why it failed (null: it did not). */
async function send(deps: DeliveryDeps, hook: HookTarget, row: AttemptRow): Promise<Sent> {
  const { config, port } = deps;
  const destination = await checkDestination(hook.url, {
    resolve: port.resolveHost,
    allow: config.WEBHOOK_SSRF_ALLOW,
  });
  if (!destination.ok)
    return {
      response_status: null,
      error: `Destination refused: ${destination.detail}`,
      request: null,
      response: null,
    };
  const secret =
    secretCache.get(hook.secret_encrypted) ??
    (await openSecret(config.WEBHOOK_ENCRYPTION_KEY, hook.secret_encrypted));
  const overlapping =
    hook.previous_secret_encrypted !== null &&
    hook.secret_rotated_at !== null &&
    Date.now() - hook.secret_rotated_at.getTime() < config.WEBHOOK_ROTATION_OVERLAP_S * 1000;
  const request = await buildSignedRequest({
    secret,
    previousSecret: overlapping
      ? await openSecret(config.WEBHOOK_ENCRYPTION_KEY, hook.previous_secret_encrypted!)
      : null,
    deliveryId: row.id,
    eventType: row.event_type,
    eventTimestamp: row.event_created_at.toISOString(),
    data: row.payload,
    test: row.is_test,
    sign: port.sign,
  });
  const result = await port.transport({
    url: destination.url,
    headers: request.headers,
    body: request.body,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    addresses: destination.addresses,
  });
  if (result.status === null) return { response_status: null, error: result.error, request, response: null };
  return { response_status: result.status, error: answerError(result.status), request, response: result };
}

/** Why an answer is a failed attempt; null for a 2xx. Redirects are never followed. */
function answerError(status: number): string | null {
  if (status >= 300 && status < 400) return `Redirect not followed (HTTP ${status})`;
  if (status < 200 || status >= 300) return `HTTP ${status}`;
  return null;
}

/**
 * Writes the outcomes of attempts made, each only if its claim is still ours (same token, same
 * attempt count): every attempt of the batch in one UPDATE over unnest'ed arrays.
 */
export async function recordAttempts(db: Executor, made: readonly AttemptMade[]): Promise<AttemptResult[]> {
  return (await recordOutcomes(db, made)).results;
}

/** What recording tells endpoint health: deliveries that ended failed, failing endpoints just answered. */
interface HealthSignals {
  failed: { id: string; createdAt: Date }[];
  recovering: string[];
}

/** The outcomes of attempts really made, in one statement; fills `recorded` and `signals`. */
async function recordSent(
  db: Executor,
  made: readonly AttemptMade[],
  recorded: Set<string>,
  signals: HealthSignals,
) {
  const sent = made.filter((m) => m.sent);
  if (sent.length > 0) {
    // the batch goes as one jsonb parameter: JSON.stringify is native, where fifteen array
    // parameters would each be escaped element by element in JavaScript
    const rows = sent.map(({ row, result, sent: s }) => ({
      id: row.id,
      token: row.claim_token,
      prev_attempts: row.attempts,
      status: result.status,
      attempts: result.attempt,
      last_attempt_at: s!.last_attempt_at,
      next_attempt_at: result.nextAttemptAt,
      response_status: s!.response_status,
      duration_ms: s!.duration_ms,
      error: s!.error,
      request_headers: s!.request?.headers ?? null,
      request_body: s!.request?.body ?? null,
      response_headers: s!.response?.headers ?? null,
      response_body: s!.response?.body ?? null,
      truncated: s!.response?.bodyTruncated ?? null,
    }));
    // the outcome and the attempt's row (with what was sent and answered) in one statement: the row
    // is written iff the outcome is. last_success_at moves at most once a second per endpoint (a busy
    // endpoint's row is not rewritten by every delivery); a failing endpoint's always, and it is
    // named in the answer. (Comments stay out of the SQL: every byte of it is in each bundle and
    // sent with each statement.)
    const result = await sql<{
      id: string | null;
      status: string | null;
      created_at: Date | string | null;
      recovering: string | null;
    }>`
      WITH recorded AS (
      UPDATE webhook_deliveries AS d
      SET status = v.status, attempts = v.attempts, last_attempt_at = v.last_attempt_at,
          next_attempt_at = v.next_attempt_at, response_status = v.response_status,
          duration_ms = v.duration_ms, error = v.error, claimed_until = NULL, claim_token = NULL,
          delivered_at = CASE WHEN v.status = 'delivered' THEN v.last_attempt_at END
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS v (id text, token text, prev_attempts int, status text, attempts int, last_attempt_at timestamptz,
              next_attempt_at timestamptz, response_status int, duration_ms int, error text,
              request_headers jsonb, request_body text, response_headers jsonb, response_body text,
              truncated bool)
      WHERE d.id = v.id AND d.claim_token = v.token AND d.attempts = v.prev_attempts
      RETURNING d.id, d.tenant_id, d.webhook_id, d.created_at, v.status, v.attempts, v.last_attempt_at, v.response_status, v.duration_ms, v.error,
                v.request_headers, v.request_body, v.response_headers, v.response_body, v.truncated
      ), attempt AS (
        INSERT INTO webhook_delivery_attempts
          (delivery_id, attempt, tenant_id, attempted_at, response_status, duration_ms, error, request_headers,
           request_body, response_headers, response_body, response_body_truncated)
        SELECT id, attempts, tenant_id, last_attempt_at, response_status, duration_ms, error, request_headers,
               request_body, response_headers, response_body, truncated
        FROM recorded
        ON CONFLICT (delivery_id, attempt) DO NOTHING
      ), success AS (
        SELECT webhook_id, max(last_attempt_at) AS at FROM recorded WHERE status = 'delivered' GROUP BY webhook_id
      ), touched AS (
        UPDATE webhooks AS w SET last_success_at = s.at
        FROM success AS s
        WHERE w.id = s.webhook_id
          AND (w.last_success_at IS NULL OR w.last_success_at < s.at - interval '1 second' OR w.health_state = 'failing')
        RETURNING w.id, w.health_state
      )
      SELECT id, status, created_at, NULL AS recovering FROM recorded
      UNION ALL SELECT NULL, NULL, NULL, id FROM touched WHERE health_state = 'failing'`.execute(db);
    for (const r of result.rows) {
      if (r.recovering) signals.recovering.push(r.recovering);
      else if (r.id) {
        recorded.add(r.id);
        if (r.status === 'failed') signals.failed.push({ id: r.id, createdAt: new Date(r.created_at!) });
      }
    }
  }
}

async function recordOutcomes(db: Executor, made: readonly AttemptMade[]) {
  const signals: HealthSignals = { failed: [], recovering: [] };
  const recorded = new Set<string>();
  await recordSent(db, made, recorded, signals);
  for (const m of made) {
    if (!m.closed) continue;
    const res = await db
      .updateTable('webhook_deliveries')
      .set({
        status: 'failed',
        next_attempt_at: null,
        claimed_until: null,
        claim_token: null,
        error: m.closed,
      })
      .where('id', '=', m.row.id)
      .where('claim_token', '=', m.row.claim_token)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) > 0) recorded.add(m.row.id);
  }
  return { results: made.map((m) => ({ ...m.result, recorded: recorded.has(m.row.id) })), signals };
}

/**
 * recordAttempts, then endpoint health: endpoints whose deliveries just ended failed turn failing,
 * failing ones that just answered turn healthy and re-send what waits (shared/webhooks/health.ts).
 * Health errors are logged: the outcomes are recorded either way.
 */
export async function recordAndNote(
  deps: DeliveryDeps,
  made: readonly AttemptMade[],
): Promise<AttemptResult[]> {
  const { results, signals } = await recordOutcomes(deps.db, made);
  try {
    if (signals.failed.length > 0) {
      const hookOf = new Map(made.map((m) => [m.row.id, m.row.webhook_id]));
      await noteFailures(
        deps,
        signals.failed.map((f) => ({ webhookId: hookOf.get(f.id)!, createdAt: f.createdAt })),
      );
    }
    if (signals.recovering.length > 0) await noteRecoveries(deps, signals.recovering);
  } catch (err) {
    deps.logger.warn({ error: String(err) }, 'webhook endpoint health not updated');
  }
  return results;
}

/** Makes the claimed attempt and records its outcome (only if the claim is still ours). */
export async function performAttempt(deps: DeliveryDeps, row: ClaimedDelivery): Promise<AttemptResult> {
  const [result] = await recordAndNote(deps, [await makeAttempt(deps, row)]);
  return result!;
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
