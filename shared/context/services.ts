import type { RowCache } from '../db/row-cache';
import type { Db } from '../db/schema';
import type { AppConfig } from '../env';
import type { Logger } from '../log/logger';
import type { Mailer } from '../mail/mailer';
import type { FileStorage } from '../storage/port';
import type { Answerer, ChannelSenders } from './conversation-ports';
import type { IdempotencyStore } from './idempotency-store';
import type { VerifiedKeyCache } from './key-cache';
import type { RateLimiter } from './rate-limiter';
import type { WebhookPort } from './webhook-port';

/**
 * Tells the webhook dispatcher that new events sit in the outbox. The outbox row is the truth;
 * a kick only makes delivery prompt. Embedded: wakes the in-process delivery worker
 * (shared/webhooks/worker.ts). Edge: one delivery cycle in waitUntil, retries on QStash
 * (createEdgeWebhookKicker in shared/webhooks/qstash.ts).
 */
export interface EventKicker {
  kick(): void;
}

/** Per-request services, set once by the runtime (Unkey's "one services object per request"). */
export interface Services {
  config: AppConfig;
  db: Db;
  /** in-process verified-key cache (embedded runtime); null on the edge */
  keyCache: VerifiedKeyCache | null;
  events: EventKicker;
  /** the one logger (shared/log): pino on Node, JSON console lines on Workers; LOG_LEVEL */
  logger: Logger;
  /** webhook DNS resolver + outbound transport (Node: node:dns/https; absent = edge default: DoH + fetch) */
  webhooks?: WebhookPort;
  /** Runs work after the response (Workers: waitUntil; Node: tracked promise). Never throws into the request. */
  defer(task: () => Promise<unknown>): void;
  /** Idempotency-Key records in Upstash Redis when configured; absent = the database's table. */
  idempotencyStore?: IdempotencyStore;
  /** Per-plan rate limits (shared/ratelimit): in-memory (embedded) or Upstash Redis; absent = not limited. */
  rateLimiter?: RateLimiter;
  /** Process-local read cache of watched-table rows (Node; shared/db/row-cache.ts); absent on the edge. */
  rowCache?: RowCache;
  /** Outbound mail (invites, password resets): HTTP mail API, or the dev/test outbox (shared/mail). */
  mailer: Mailer;
  /** Where files' bytes live (shared/storage): R2, S3 or a folder; absent = file routes answer 503. */
  files?: FileStorage;
  /** Outbound senders of conversation replies, per channel (./conversation-ports.ts); absent = none. */
  channelSenders?: ChannelSenders;
  /** The AI auto-reply to inbound messages (./conversation-ports.ts); absent = the knowledge-base answerer. */
  answerer?: Answerer;
  /** Where this code runs: handlers must not branch on it; adapters and diagnostics may. */
  runtime: 'node' | 'edge';
}
