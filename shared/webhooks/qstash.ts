import { Client, Receiver } from '@upstash/qstash';
import type { MiddlewareHandler } from 'hono';
import type { Kysely } from 'kysely';
import type { AppEnv } from '../context/app-env';
import type { EventKicker } from '../context/services';
import type { Database } from '../db/schema';
import type { AppConfig } from '../env';
import { ApiError, Detail } from '../http/errors';
import type { Logger } from '../log/logger';
import type { Mailer } from '../mail/mailer';
import {
  type AttemptResult,
  type DeliveryDeps,
  dispatchAndClaim,
  leaseMs,
  makeAttempt,
  paceClaimed,
  recordAndNote,
} from './delivery';
import { runDueProbes } from './health';
import { edgeWebhookPort, type RetryScheduler, type WebhookPort } from './port';
import { clearExpiredAttemptContent, SWEEP_EVERY_MS } from './retention';

/**
 * Production retry schedule: each retry is a delayed QStash publish to the webhooks function's
 * internal callback (`/api/internal/webhooks/qstash`), carrying `{delivery_id, attempt}`. The
 * callback is verified with QStash's Receiver; the attempt is claimed in the database, so a
 * duplicate callback (QStash is at-least-once) finds it made or held and sends nothing.
 */
export const QSTASH_CALLBACK_PATH = '/api/internal/webhooks/qstash';
/** The probes of a failing endpoint ride delayed callbacks too: `{webhook_id, probe}` (no cron in an isolate). */
export const QSTASH_PROBE_PATH = '/api/internal/webhooks/qstash/probe';

/** QStash's API when QSTASH_URL is unset. */
const QSTASH_API = 'https://qstash.upstash.io';

/** The regions QStash runs in, as its SDK names them (`EU_CENTRAL_1`, `US_EAST_1`). */
export const QSTASH_REGIONS = ['EU_CENTRAL_1', 'US_EAST_1'] as const;
export type QStashRegion = (typeof QSTASH_REGIONS)[number];

/** The settings one QStash deployment reads: the default ones and each region's own. */
type Setting = 'QSTASH_URL' | 'QSTASH_TOKEN' | 'QSTASH_CURRENT_SIGNING_KEY' | 'QSTASH_NEXT_SIGNING_KEY';

type QStashConfig = Pick<
  AppConfig,
  Setting | `${QStashRegion}_${Setting}` | 'QSTASH_REGION' | 'PUBLIC_BASE_URL'
>;

/**
 * A region as QStash's SDK reads `QSTASH_REGION` and the `Upstash-Region` header (`-` as `_`, upper
 * case); undefined for none or one it does not know.
 */
export function qstashRegion(name: string | undefined): QStashRegion | undefined {
  const normalised = name?.replaceAll('-', '_').toUpperCase();
  return QSTASH_REGIONS.find((region) => region === normalised);
}

/**
 * A pair of settings (publish URL and token, or current and next signing key) as the SDK picks it
 * from its environment: the region's pair when multi-region QStash is on (`QSTASH_REGION` names a
 * known region), `region` is known and both of its settings are set; else the default pair. The SDK
 * cannot do this itself here: on Workers the settings are bindings, not `process.env`, and explicit
 * keys passed to the Client or Receiver always win over its region lookup.
 */
function settingsPair<A extends Setting, B extends Setting>(
  config: QStashConfig,
  region: string | undefined,
  [a, b]: readonly [A, B],
): [string | undefined, string | undefined] {
  const named = qstashRegion(config.QSTASH_REGION) && qstashRegion(region);
  if (named) {
    const pair = [config[`${named}_${a}`], config[`${named}_${b}`]] as const;
    if (pair[0] && pair[1]) return [pair[0], pair[1]];
  }
  return [config[a], config[b]];
}

/** Where and as whom this deployment publishes: its own region's URL and token, else the defaults. */
export function qstashClientSettings(config: QStashConfig) {
  const [url, token] = settingsPair(config, config.QSTASH_REGION, ['QSTASH_URL', 'QSTASH_TOKEN']);
  return { baseUrl: url ?? QSTASH_API, token: token ?? '' };
}

export const callbackUrl = (config: Pick<AppConfig, 'PUBLIC_BASE_URL'>, path = QSTASH_CALLBACK_PATH) =>
  `${(config.PUBLIC_BASE_URL ?? '').replace(/\/+$/, '')}${path}`;

export const qstashConfigured = (config: QStashConfig) =>
  Boolean(qstashClientSettings(config).token && config.PUBLIC_BASE_URL);

/**
 * Delayed publish per retry with QStash's own Client: not before the attempt's due time, under a
 * deduplication id (a repeated schedule of one attempt is a no-op at QStash), with QStash's retries
 * of the callback itself. The Client's own retry of a failed publish is off: a publish that fails
 * leaves the row pending, and the next kick's sweep (or the embedded poll) takes it, without the
 * request's waitUntil sitting through the SDK's back-off.
 */
export function createQStashScheduler(config: QStashConfig): RetryScheduler {
  const client = new Client({
    ...qstashClientSettings(config),
    retry: false,
    devMode: false,
    enableTelemetry: false,
  });
  const url = callbackUrl(config);
  const probeUrl = callbackUrl(config, QSTASH_PROBE_PATH);
  return {
    async schedule(deliveryId, attempt, at, key) {
      await client.publishJSON({
        url,
        method: 'POST',
        body: { delivery_id: deliveryId, attempt },
        notBefore: Math.ceil(at.getTime() / 1000),
        deduplicationId: `${deliveryId}-${attempt}${key ? `-${key}` : ''}`,
        retries: 3,
      });
    },
    async scheduleProbe(webhookId, probe, at) {
      await client.publishJSON({
        url: probeUrl,
        method: 'POST',
        body: { webhook_id: webhookId, probe },
        notBefore: Math.ceil(at.getTime() / 1000),
        deduplicationId: `${webhookId}-probe-${probe}-${at.getTime()}`,
        retries: 3,
      });
    },
  };
}

/** One Receiver per key pair: its state is the keys alone. */
const receivers = new Map<string, Receiver>();
function receiverFor(current: string, next: string): Receiver {
  const id = `${current}\n${next}`;
  let receiver = receivers.get(id);
  if (!receiver) {
    receiver = new Receiver({ currentSigningKey: current, nextSigningKey: next, devMode: false });
    receivers.set(id, receiver);
  }
  return receiver;
}

/**
 * Verifies `Upstash-Signature` over the raw body for our callback URL with QStash's Receiver (its
 * current key, then its next one; the JWT's issuer, lifetime, subject and body hash). `region` is
 * the callback's `Upstash-Region` header: with multi-region QStash on, a known region whose keys are
 * set is verified with those keys only; any other callback with the default keys.
 */
export async function verifyQStashSignature(
  config: QStashConfig,
  signature: string | undefined,
  rawBody: string,
  region?: string,
  path = QSTASH_CALLBACK_PATH,
): Promise<boolean> {
  const [current, next] = settingsPair(config, region, [
    'QSTASH_CURRENT_SIGNING_KEY',
    'QSTASH_NEXT_SIGNING_KEY',
  ]);
  if (!signature || !current || !next) return false;
  return receiverFor(current, next)
    .verify({ signature, body: rawBody, url: callbackUrl(config, path), clockTolerance: 5 })
    .catch(() => false);
}

/**
 * In front of the callback's validation: 401 unless QStash signed the body's exact bytes for our
 * callback URL. The body is read once (Hono keeps it for the validator behind).
 */
export const qstashSignature: MiddlewareHandler<AppEnv> = async function qstashSignature(c, next) {
  const raw = new TextDecoder().decode(await c.req.arrayBuffer());
  const signature = c.req.header('upstash-signature');
  const region = c.req.header('upstash-region');
  const path = new URL(c.req.url).pathname;
  if (!(await verifyQStashSignature(c.get('services').config, signature, raw, region, path)))
    throw new ApiError(401, Detail.invalidQStashSignature);
  await next();
};

/** After an attempt: if another one is due later, put it on the schedule (errors logged, never thrown). */
export async function scheduleNext(
  scheduler: RetryScheduler | null,
  result: AttemptResult,
  logger: Logger,
): Promise<void> {
  if (!scheduler || result.status !== 'pending' || !result.nextAttemptAt || !result.recorded) return;
  try {
    await scheduler.schedule(result.deliveryId, result.attempt + 1, result.nextAttemptAt);
  } catch (err) {
    // not lost: the row stays pending and the next kick's sweep (or the embedded poll) takes it
    logger.warn({ delivery: result.deliveryId, error: String(err) }, 'qstash schedule failed');
  }
}

export interface EdgeKickerOptions {
  db: Kysely<Database>;
  config: AppConfig;
  logger: Logger;
  /** the request's waitUntil-backed defer */
  defer(task: () => Promise<unknown>): void;
  /** default: DNS-over-HTTPS + fetch */
  port?: WebhookPort;
  /** default: QStash when QSTASH_TOKEN and PUBLIC_BASE_URL are set, else none (the sweep still retries) */
  scheduler?: RetryScheduler | null;
  /** attempts made per kick (default 25) */
  sweepLimit?: number;
  /** the owner's mails about failing and disabled endpoints (services.mailer) */
  mailer?: Mailer;
}

/**
 * One edge cycle: fan out the outbox, then send every due attempt (new deliveries and retries whose
 * callback was lost), scheduling the next attempt of each failure on QStash.
 */
export async function runEdgeCycle(deps: DeliveryDeps, scheduler: RetryScheduler | null, sweepLimit = 25) {
  const lease = leaseMs(deps.config);
  deps = withEdgeHealth(deps, scheduler);
  const results: AttemptResult[] = [];
  // a few batches per request, each statement also claiming what is due (its fresh deliveries among
  // them) as far as the limit goes; whatever is left waits for the next kick (the outbox keeps it)
  for (let i = 0, room = sweepLimit; i < 5; i++) {
    const batch = await dispatchAndClaim(deps.db, room, lease);
    room -= batch.claimed.length;
    const { go: claimed, later } = await paceClaimed(deps.db, batch.claimed);
    await scheduleLater(scheduler, later, deps.logger);
    // the attempts go out together and their outcomes are written by one statement, not one each; an
    // attempt that could not be made (its secret unreadable) is left to its lease, the others recorded
    const made = await Promise.allSettled(claimed.map((row) => makeAttempt(deps, row)));
    for (const m of made)
      if (m.status === 'rejected') deps.logger.warn({ error: String(m.reason) }, 'webhook attempt failed');
    const recorded = await recordAndNote(
      deps,
      made.flatMap((m) => (m.status === 'fulfilled' ? [m.value] : [])),
    );
    await Promise.all(recorded.map((r) => scheduleNext(scheduler, r, deps.logger)));
    results.push(...recorded);
    if (!batch.more) break;
  }
  await probesOnEdge(deps);
  await sweepOnEdge(deps);
  return results;
}

/**
 * On the edge nothing runs between requests: re-sends and probes queued by endpoint health get a
 * QStash callback each (attempt 1, due now), and a failing endpoint's next probe a delayed one.
 * With no QStash configured they wait for the next kick's sweep, as a lost callback does.
 */
export function withEdgeHealth(deps: DeliveryDeps, scheduler: RetryScheduler | null): DeliveryDeps {
  if (!scheduler) return deps;
  return {
    ...deps,
    queued: async (ids) => {
      const now = new Date();
      for (const id of ids)
        await scheduler.schedule(id, 1, now).catch((err) => {
          deps.logger.warn({ delivery: id, error: String(err) }, 'qstash schedule failed');
        });
    },
    probeAt: async (webhookId, probe, at) => {
      await scheduler.scheduleProbe?.(webhookId, probe, at).catch((err) => {
        // not lost: the endpoint's next_probe_at stays due, and the next probe callback or kick takes it
        deps.logger.warn({ webhook: webhookId, error: String(err) }, 'qstash probe schedule failed');
      });
    },
  };
}

/** Attempts handed back for their endpoint's pace: a callback each at the time it may start. */
export async function scheduleLater(
  scheduler: RetryScheduler | null,
  later: readonly { row: { id: string; attempts: number }; at: Date }[],
  logger: Logger,
) {
  if (!scheduler) return;
  await Promise.all(
    later.map(({ row, at }) =>
      scheduler.schedule(row.id, row.attempts + 1, at, `p${at.getTime()}`).catch((err) => {
        logger.warn({ delivery: row.id, error: String(err) }, 'qstash schedule failed');
      }),
    ),
  );
}

/** When this isolate last looked for due probes, per database. */
const lastProbesAt = new WeakMap<object, number>();

/**
 * Probes ride their QStash callbacks; a kick also looks for due ones (at most once a second per
 * isolate), as it sweeps retries whose callback was lost, so a lost probe callback delays a probe
 * until the next request rather than for ever.
 */
async function probesOnEdge(deps: DeliveryDeps) {
  const every = Math.min(1000, deps.config.WEBHOOK_RETRY_UNIT_MS * 15);
  if (Date.now() - (lastProbesAt.get(deps.db) ?? -Infinity) < every) return;
  lastProbesAt.set(deps.db, Date.now());
  try {
    await runDueProbes(deps, { limit: 5 });
  } catch (err) {
    deps.logger.warn({ error: String(err) }, 'webhook probes failed');
  }
}

/** When this isolate last cleared attempts' content, per database (an isolate keeps module state between requests). */
const lastSweepAt = new WeakMap<object, number>();
/** Sweep statements one edge cycle may spend: a backlog is cleared over several cycles. */
const EDGE_SWEEP_BATCHES = 5;

/** The edge's retention sweep: at most every SWEEP_EVERY_MS per isolate, a few statements at a time. */
async function sweepOnEdge(deps: DeliveryDeps) {
  if (Date.now() - (lastSweepAt.get(deps.db) ?? -Infinity) < SWEEP_EVERY_MS) return;
  lastSweepAt.set(deps.db, Date.now());
  let batches = 0;
  try {
    await clearExpiredAttemptContent(
      deps.db,
      deps.config.WEBHOOK_ATTEMPT_RETENTION_DAYS,
      () => ++batches < EDGE_SWEEP_BATCHES,
    );
  } catch (err) {
    deps.logger.warn({ error: String(err) }, 'webhook attempt content not cleared');
  }
}

/**
 * The edge `events` kicker: `edgeWorker(app, { kicker: ({ config, services }) =>
 * createEdgeWebhookKicker({ db: services.db, config, defer: services.defer, logger: services.logger }) })`.
 * kick() runs one cycle after the response (waitUntil); the action never waits for it.
 */
export function createEdgeWebhookKicker(options: EdgeKickerOptions): EventKicker {
  const port = options.port ?? edgeWebhookPort();
  const scheduler =
    options.scheduler !== undefined
      ? options.scheduler
      : qstashConfigured(options.config)
        ? createQStashScheduler(options.config)
        : null;
  const deps: DeliveryDeps = {
    db: options.db,
    config: options.config,
    port,
    logger: options.logger,
    mailer: options.mailer,
  };
  let queued = false;
  return {
    kick() {
      if (queued) return; // one cycle per request is enough: it takes every pending event
      queued = true;
      options.defer(() => runEdgeCycle(deps, scheduler, options.sweepLimit));
    },
  };
}
