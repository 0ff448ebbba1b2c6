// The production Worker: the edge core (edge-core.ts) plus what the embedded runtime also runs —
// the database (Neon over HTTP), the webhook kicker (one delivery cycle in waitUntil, retries as delayed QStash callbacks), per-plan
// rate limits (Upstash Redis when UPSTASH_REDIS_REST_URL/TOKEN are set, fail-open; else per-isolate
// memory) and usage metering. `export default edgeWorker(app, ACCESS_RULES)` in functions/<name>/index.ts.

import type { AccessRule } from '../auth/access';
import type { FunctionApp } from '../context/app-env';
import { createEdgeHandle } from '../db/adapters/neon-http';
import { redisIdempotencyStore } from '../http/idempotency';
import { tenantShare } from '../ratelimit/db-share';
import { createRateLimiter } from '../ratelimit/factory';
import { rateLimit } from '../ratelimit/middleware';
import { redisClient } from '../redis/client';
import { meterUsage } from '../usage/meter';
import { createEdgeWebhookKicker } from '../webhooks/qstash';
import { type EdgeOptions, edgeWorkerCore } from './edge-core';

export { type EdgeBindings, type EdgeOptions, edgeServices, edgeWorkerCore } from './edge-core';

/** A request's kicker: one webhook delivery cycle after the response (retries on QStash). */
export const edgeWebhookKicker: NonNullable<EdgeOptions['kicker']> = ({ config, services }) =>
  createEdgeWebhookKicker({
    db: services.db,
    config,
    defer: services.defer,
    logger: services.logger,
    mailer: services.mailer,
  });

/**
 * How long a Worker isolate gathers usage rows before writing them in one statement. The flush is
 * a timer inside the first row's waitUntil, so the isolate stays up for it (Workers keep a request's
 * waitUntil work running for up to 30 s after the answer); a second lets the requests an isolate
 * answers in that second share one round trip to the database instead of paying one each. Usage
 * read from another Worker may lag by as much: it is a meter, read after the fact.
 */
export const EDGE_USAGE_FLUSH_WINDOW_MS = 1_000;

export function edgeWorker(app: FunctionApp, access: readonly AccessRule[], options: EdgeOptions = {}) {
  return edgeWorkerCore(app, access, {
    ...options,
    database: options.database ?? createEdgeHandle,
    kicker: options.kicker ?? edgeWebhookKicker,
    rateLimiter: options.rateLimiter ?? createRateLimiter,
    idempotencyStore:
      options.idempotencyStore ?? ((config) => redisIdempotencyStore(redisClient(config, 'idempotency'))),
    afterGate: options.afterGate ?? [
      rateLimit(),
      tenantShare(),
      meterUsage({ flushWindowMs: EDGE_USAGE_FLUSH_WINDOW_MS }),
    ],
  });
}
