// The breach check on Workers. Nothing runs in an isolate between requests, so each due time rides a
// delayed QStash callback into the sla function (`SLA_CALLBACK_PATH`, verified like the webhook
// callbacks). The database stays the schedule (`sla_check_at`): after a write, and after each
// callback, the earliest check time of any row gets a callback at that time; when it fires it
// records every breach then due (recordAllDueBreaches, once across isolates by row locks) and the
// next earliest time gets its callback. A publish is idempotent at QStash (its deduplication id is
// the due time), so isolates racing to schedule one time send one callback.
import { Client } from '@upstash/qstash';
import { sql } from 'kysely';
import type { Executor } from '../db/schema';
import type { AppConfig } from '../env';
import type { Logger } from '../log/logger';
import { callbackUrl, qstashClientSettings, qstashConfigured } from '../webhooks/qstash';

export const SLA_CALLBACK_PATH = '/api/internal/sla/qstash';

/** Puts one check on the schedule: a callback not before `at`, under `id` (QStash's deduplication). */
export interface BreachCheckPublisher {
  publish(at: Date, id: string): Promise<void>;
}

const publishers = new WeakMap<AppConfig, BreachCheckPublisher | null>();

/**
 * QStash as the check's schedule when QSTASH_TOKEN and PUBLIC_BASE_URL are set, else null; one per
 * config (an isolate validates its env once), so a request builds no client.
 */
export function qstashBreachCheckPublisher(config: AppConfig): BreachCheckPublisher | null {
  if (!publishers.has(config)) publishers.set(config, makePublisher(config));
  return publishers.get(config) ?? null;
}

function makePublisher(config: AppConfig): BreachCheckPublisher | null {
  if (!qstashConfigured(config)) return null;
  // no SDK retry: a failed publish is taken again by the next write's or callback's scheduling
  const client = new Client({
    ...qstashClientSettings(config),
    retry: false,
    devMode: false,
    enableTelemetry: false,
  });
  const url = callbackUrl(config, SLA_CALLBACK_PATH);
  return {
    async publish(at, id) {
      await client.publishJSON({
        url,
        method: 'POST',
        body: { check_at: at.toISOString() },
        notBefore: Math.ceil(at.getTime() / 1000),
        deduplicationId: id,
        retries: 3,
      });
    },
  };
}

/**
 * The earliest check time of any ticket or conversation, in one statement (each `min` reads the
 * first entry of its partial index); null when no clock runs.
 */
export async function earliestCheckAt(db: Executor): Promise<Date | null> {
  const { rows } = await sql<{ at: Date | string | null }>`
    SELECT LEAST((SELECT min(sla_check_at) FROM tickets), (SELECT min(sla_check_at) FROM conversations)) AS at
  `.execute(db);
  const at = rows[0]?.at;
  return at === null || at === undefined ? null : new Date(at);
}

/** How long an overdue check's republish waits (its first callback lost, or its row held). */
const OVERDUE_REPUBLISH_MS = 10_000;
/** The ids this isolate published lately: a write that changes nothing earlier publishes nothing. */
const published = new Set<string>();
const PUBLISHED_KEPT = 256;

/**
 * Schedules the earliest check time: a callback at it, unless this isolate published that one
 * already. A time already past is published again at most every OVERDUE_REPUBLISH_MS (a new
 * deduplication id each time), so a lost callback costs a delay, not the breach. Errors are logged,
 * never thrown: the next write or callback schedules again. Returns the time it scheduled.
 */
export async function scheduleBreachCheck(
  db: Executor,
  publisher: BreachCheckPublisher,
  logger: Logger,
  now = new Date(),
): Promise<Date | null> {
  try {
    const at = await earliestCheckAt(db);
    if (!at) return null;
    const ms = at.getTime();
    const id =
      ms > now.getTime()
        ? `sla-check-${ms}`
        : `sla-check-${ms}-${Math.floor(now.getTime() / OVERDUE_REPUBLISH_MS)}`;
    if (published.has(id)) return at;
    await publisher.publish(at, id);
    if (published.size >= PUBLISHED_KEPT) published.clear();
    published.add(id);
    return at;
  } catch (err) {
    logger.warn({ error: String((err as Error)?.message ?? err) }, 'sla breach check not scheduled');
    return null;
  }
}
