// The embedded (Node) runtime: every function of the manifest in one Hono app, on PGlite by
// default or on Postgres when DATABASE_URL is set. Used by `npm start` and by the test suites.
import type { Hono, MiddlewareHandler } from 'hono';
import { FUNCTIONS } from '../functions/manifest';
import { KeyCache } from '../shared/auth/key-verify';
import { createPostgresHandle } from '../shared/db/adapters/pg';
import { createPgliteHandle } from '../shared/db/adapters/pglite';
import type { DatabaseHandle } from '../shared/db/handle';
import { migrate } from '../shared/db/migrate';
import { readMigrations } from '../shared/db/migrations-fs';
import type { AppConfig } from '../shared/env';
import type { AppEnv, FunctionApp } from '../shared/runtime/app-env';
import { createRateLimiter, rateLimit } from '../shared/ratelimit';
import { buildRoot } from '../shared/runtime/root';
import { createNodeDefer, type Services } from '../shared/runtime/services';
import { nodeWebhookPort } from '../shared/webhooks/transport.node.js';
import { createDeliveryWorker, type DeliveryWorker } from '../shared/webhooks/worker';
import { meterUsage } from '../shared/usage/meter';

export interface EmbeddedRuntime {
  app: Hono<AppEnv>;
  handle: DatabaseHandle;
  services: Services;
  /** the in-process webhook dispatcher/scheduler (`settle()` waits until no delivery is pending) */
  webhooks: DeliveryWorker;
  /** waits for deferred work (last_used_at writes, deliveries kicked) to settle */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export interface EmbeddedOptions {
  config: AppConfig;
  /** an already-open database (tests share one per file); otherwise opened from config */
  handle?: DatabaseHandle;
  /** PGlite in memory instead of DATA_DIR (tests) */
  inMemory?: boolean;
}

/** Rate limits first: a refused request is neither served nor metered. */
export const standardAfterGate = (): MiddlewareHandler<AppEnv>[] => [rateLimit(), meterUsage()];

export async function loadFunctionApps(): Promise<FunctionApp[]> {
  const apps: FunctionApp[] = [];
  for (const fn of FUNCTIONS) {
    const mod = (await import(`../functions/${fn.name}/app.ts`)) as { app: FunctionApp };
    apps.push(mod.app);
  }
  return apps;
}

export async function openDatabase(config: AppConfig, inMemory = false): Promise<DatabaseHandle> {
  const handle = config.DATABASE_URL
    ? createPostgresHandle(config.DATABASE_URL)
    : await createPgliteHandle(inMemory ? undefined : config.DATA_DIR);
  await migrate(handle, readMigrations());
  return handle;
}

export async function createEmbeddedRuntime(options: EmbeddedOptions): Promise<EmbeddedRuntime> {
  const { config } = options;
  const handle = options.handle ?? (await openDatabase(config, options.inMemory));
  const { defer, drain } = createNodeDefer();
  const webhookPort = nodeWebhookPort();
  const webhooks = createDeliveryWorker({ db: handle.db, config, port: webhookPort });
  const services: Services = {
    config,
    db: handle.db,
    keyCache: new KeyCache(),
    events: webhooks,
    webhooks: webhookPort,
    defer,
    rateLimiter: createRateLimiter(config),
    runtime: 'node',
  };
  const provideServices: MiddlewareHandler<AppEnv> = async function provideServices(c, next) {
    c.set('services', services);
    await next();
  };
  const app = buildRoot(await loadFunctionApps(), {
    provideServices,
    maxBodyBytes: config.MAX_BODY_BYTES,
    afterGate: standardAfterGate(),
  });
  webhooks.start();
  return {
    app,
    handle,
    services,
    webhooks,
    drain,
    async close() {
      await webhooks.stop();
      await drain();
      if (!options.handle) await handle.close();
    },
  };
}
