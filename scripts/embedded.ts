// The embedded (Node) runtime: every function of the manifest in one Hono app, on PGlite by
// default or on Postgres when DATABASE_URL is set. Used by `npm start` and by the test suites.
import type { Hono, MiddlewareHandler } from 'hono';
import { ACCESS_RULES, FUNCTIONS } from '../functions/manifest';
import { KeyCache } from '../shared/auth/key-verify';
import type { AppEnv, FunctionApp } from '../shared/context/app-env';
import type { ConversationPorts } from '../shared/context/conversation-ports';
import type { Services } from '../shared/context/services';
import { createPostgresHandle } from '../shared/db/adapters/pg';
import { createPgliteHandle } from '../shared/db/adapters/pglite';
import type { DatabaseHandle } from '../shared/db/handle';
import { migrate } from '../shared/db/migrate';
import { readMigrations } from '../shared/db/migrations-fs';
import { RowCache } from '../shared/db/row-cache';
import type { AppConfig } from '../shared/env';
import { redisIdempotencyStore } from '../shared/http/idempotency';
import type { Logger } from '../shared/log/logger';
import { createNodeLogger } from '../shared/log/logger.node.js';
import { createMailer } from '../shared/mail/mailer';
import { createRateLimiter, rateLimit, tenantShare } from '../shared/ratelimit';
import { redisClient } from '../shared/redis/client';
// REDIS_URL: a plain Redis, which only the Node runtime can reach
import '../shared/redis/node';
import { buildChain } from '../shared/runtime/chain';
import { createDefer } from '../shared/runtime/defer';
import { type BreachChecker, createBreachChecker } from '../shared/sla/breaches';
import { nodeFileStorage } from '../shared/storage/node';
import { meterUsage } from '../shared/usage/meter';
import { reportLastPeriod } from '../shared/usage/report';
import { nodeWebhookPort } from '../shared/webhooks/transport.node.js';
import { createDeliveryWorker, type DeliveryWorker } from '../shared/webhooks/worker';

export interface EmbeddedRuntime {
  app: Hono<AppEnv>;
  handle: DatabaseHandle;
  services: Services;
  /** the in-process webhook dispatcher/scheduler (`settle()` waits until no delivery is pending) */
  webhooks: DeliveryWorker;
  /** the in-process SLA breach check (every process runs one; each breach is recorded once) */
  slaChecker: BreachChecker;
  /** waits for deferred work (last_used_at writes, deliveries kicked) to settle */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** The conversations' channel senders and answerer (`ConversationPorts`) go onto the services as given. */
export interface EmbeddedOptions extends ConversationPorts {
  config: AppConfig;
  /** an already-open database (tests share one per file); otherwise opened from config */
  handle?: DatabaseHandle;
  /** PGlite in memory instead of DATA_DIR (tests) */
  inMemory?: boolean;
  /** the process's logger; default pino on stdout at LOG_LEVEL (tests pass one that captures lines) */
  logger?: Logger;
}

/** A long-lived process batches usage rows over this window (readers settle them first). */
const USAGE_FLUSH_WINDOW_MS = 100;
/**
 * Rate limits first, then the tenant's share of the database: a refused request is neither served
 * nor metered.
 */
export const standardAfterGate = (): MiddlewareHandler<AppEnv>[] => [
  rateLimit(),
  tenantShare(),
  meterUsage({ flushWindowMs: USAGE_FLUSH_WINDOW_MS }),
];

/** Hourly (and once at start): report the last finished usage period; idempotent per tenant. */
const USAGE_REPORT_INTERVAL_MS = 3_600_000;
function startUsageReporter(services: Services): ReturnType<typeof setInterval> {
  const run = () =>
    services.defer(async () => {
      const { reported } = await reportLastPeriod(services.db);
      if (reported.length > 0) services.events.kick();
    });
  run();
  const timer = setInterval(run, USAGE_REPORT_INTERVAL_MS);
  timer.unref();
  return timer;
}

export async function loadFunctionApps(): Promise<FunctionApp[]> {
  const apps: FunctionApp[] = [];
  for (const fn of FUNCTIONS) {
    const mod = (await import(`../functions/${fn.name}/app.ts`)) as { app: FunctionApp };
    apps.push(mod.app);
  }
  return apps;
}

export async function openDatabase(
  config: AppConfig,
  inMemory = false,
  logger?: Logger,
): Promise<DatabaseHandle> {
  const handle = config.DATABASE_URL
    ? createPostgresHandle(config.DATABASE_URL, { logger, statementTimeoutMs: config.STATEMENT_TIMEOUT_MS })
    : await createPgliteHandle(inMemory ? undefined : config.DATA_DIR);
  await migrate(handle, readMigrations());
  return handle;
}

export async function createEmbeddedRuntime(options: EmbeddedOptions): Promise<EmbeddedRuntime> {
  const { config } = options;
  const nodeLogger = options.logger ? null : createNodeLogger({ level: config.LOG_LEVEL });
  const logger = options.logger ?? (nodeLogger as Logger);
  const handle = options.handle ?? (await openDatabase(config, options.inMemory, logger));
  const { defer, drain } = createDefer(logger);
  const webhookPort = nodeWebhookPort();
  const mailer = createMailer(config);
  const webhooks = createDeliveryWorker({ db: handle.db, config, port: webhookPort, logger, mailer });
  const keyCache = new KeyCache();
  // other processes on the same Postgres revoke keys too: hear them (none to hear on PGlite)
  if (handle.kind === 'postgres' && handle.writes) keyCache.follow(handle.writes);
  const services: Services = {
    config,
    db: handle.db,
    keyCache,
    events: webhooks,
    logger,
    webhooks: webhookPort,
    defer,
    rateLimiter: createRateLimiter(config, logger),
    idempotencyStore: redisIdempotencyStore(redisClient(config, 'idempotency')),
    rowCache: handle.writes ? new RowCache(handle.writes) : undefined,
    mailer,
    files: nodeFileStorage(config),
    channelSenders: options.channelSenders,
    answerer: options.answerer,
    runtime: 'node',
  };
  const app = buildChain(await loadFunctionApps(), {
    provideServices: services,
    access: ACCESS_RULES,
    logger,
    maxBodyBytes: config.MAX_BODY_BYTES,
    uploadMaxBytes: config.ATTACHMENT_MAX_BYTES,
    corsOrigins: config.CORS_ALLOWED_ORIGINS,
    afterGate: standardAfterGate(),
  });
  webhooks.start();
  const slaChecker = createBreachChecker({ db: handle.db, logger, kick: webhooks.kick });
  slaChecker.start();
  const usageReporter = startUsageReporter(services);
  return {
    app,
    handle,
    services,
    webhooks,
    slaChecker,
    drain,
    async close() {
      clearInterval(usageReporter);
      await slaChecker.stop();
      await webhooks.stop();
      await drain();
      if (!options.handle) await handle.close();
      nodeLogger?.flush();
    },
  };
}
