// Edge runtime core (Cloudflare Workers): one function app per Worker, the same chain as the
// embedded server (shared/runtime/chain.ts); only `provideServices` differs. This core wires no
// database, webhook kicker, limiter or metering by itself (shared/runtime/edge.ts adds the production
// ones), so a Worker that needs none of them (docs, console: public, no database) carries neither
// Kysely nor the Neon driver and stays small. Nothing here may import a Node-only module:
// scripts/check-runtime-parity.ts bundles every entry and fails if one creeps in.
import type { ExecutionContext } from 'hono';
import type { AccessRule } from '../auth/access';
import type { FunctionApp } from '../context/app-env';
import type { ConversationPorts } from '../context/conversation-ports';
import type { EventKicker, Services } from '../context/services';
import type { DatabaseHandle } from '../db/handle';
import type { Db } from '../db/schema';
import { type AppConfig, ConfigError, corsOrigins, EnvSchema, loadConfig } from '../env';
import { Detail, forbidden } from '../http/errors';
import type { IdempotencyStore } from '../http/idempotency';
import { createConsoleLogger, type Logger } from '../log/logger';
import { createMailer } from '../mail/mailer';
import type { RateLimiter } from '../ratelimit/limiter';
import { edgeFileStorage } from '../storage/edge';
import { buildChain, type ChainOptions, type ProvidedServices } from './chain';
import { createDefer } from './defer';
import { speculativeServices } from './shortcuts';

/** What a Worker receives: vars and secrets from wrangler (strings), plus bindings such as ASSETS. */
export type EdgeBindings = Record<string, unknown>;

/**
 * Per-runtime extension points (shared/runtime/edge.ts supplies the production ones); the
 * conversations' channel senders and answerer (`ConversationPorts`) go onto the services as given.
 */
export interface EdgeOptions extends ConversationPorts {
  /**
   * opens a request's database handle (shared/db/adapters/neon-http.ts's createEdgeHandle); default:
   * none, for a Worker whose routes read no database (DATABASE_URL then not required)
   */
  database?: (connectionString: string, env: EdgeBindings) => DatabaseHandle;
  /** builds the events kicker of one request; default: a no-op (the outbox row stays the truth) */
  kicker?: (ctx: { config: AppConfig; env: EdgeBindings; services: Services }) => EventKicker;
  /** the rate limiter of a request's config; default: none (not limited) */
  rateLimiter?: (config: AppConfig, logger: Logger) => RateLimiter;
  /** the Idempotency-Key store of a request's config; default: none (the database's table) */
  idempotencyStore?: (config: AppConfig) => IdempotencyStore | undefined;
  /** middleware after the gate (rate limits, metering); default: none */
  afterGate?: ChainOptions['afterGate'];
  /** the chain's optional middleware (default: both); a test turns them off to compare answers */
  shortcuts?: ChainOptions['shortcuts'];
}

// Config is validated once per env object (an isolate sees the same object for its lifetime).
const configs = new WeakMap<object, AppConfig>();
function configOf(env: EdgeBindings, needsDatabase: boolean): AppConfig {
  let config = configs.get(env);
  if (!config) {
    config = loadConfig(env);
    if (needsDatabase && !config.DATABASE_URL) throw new ConfigError('DATABASE_URL must be set on the edge');
    configs.set(env, config);
  }
  return config;
}

/** One setting read straight from the bindings (the root is built before any config is validated). */
const binding = (env: EdgeBindings, name: string) => (typeof env[name] === 'string' ? env[name] : undefined);

const noopKicker: EventKicker = { kick() {} };

/**
 * The handle of a Worker without a database. Its routes read none; the one caller left is the gate
 * verifying an API key presented where keys are refused (a docs page, the internal document), and
 * without a key store that key is refused unverified: 403, as a valid key would be there.
 */
const noDatabase: DatabaseHandle = {
  kind: 'neon',
  db: new Proxy({} as Db, {
    get() {
      throw forbidden(Detail.apiKeyNotPermitted);
    },
  }),
  async exec() {
    throw new Error('this Worker has no database');
  },
  async close() {},
};

/**
 * `provideServices` for Workers: env validated, the request's Neon handle (HTTP: one per isolate,
 * see shared/db/adapters/neon-http.ts), closed once the request
 * is answered and its deferred work done; `logger` is the Worker's one logger (the access log
 * writes to it too).
 */
export function edgeServices(
  options: EdgeOptions,
  logger: Logger,
): (env: unknown, executionCtx: ExecutionContext | undefined) => ProvidedServices {
  return function provideEdgeServices(bindings, executionCtx) {
    const env = (bindings ?? {}) as EdgeBindings;
    const config = configOf(env, options.database !== undefined);
    // no ExecutionContext (e.g. app.request() in a unit test): let the promise run on its own
    const waitUntil = executionCtx ? (p: Promise<unknown>) => executionCtx.waitUntil(p) : () => {};
    const handle = options.database ? options.database(config.DATABASE_URL as string, env) : noDatabase;
    const { defer, drain } = createDefer(logger, waitUntil);
    const services: Services = {
      config,
      db: handle.db,
      keyCache: null,
      events: noopKicker,
      logger,
      defer,
      mailer: createMailer(config),
      files: edgeFileStorage(config, env),
      channelSenders: options.channelSenders,
      answerer: options.answerer,
      runtime: 'edge',
    };
    if (options.rateLimiter) services.rateLimiter = options.rateLimiter(config, logger);
    if (options.idempotencyStore) services.idempotencyStore = options.idempotencyStore(config);
    if (options.kicker) services.events = options.kicker({ config, env, services });
    return {
      services,
      speculate: (confirmed) => speculativeServices(services, confirmed),
      // Close after the response and after every deferred task (which may still use the handle).
      release() {
        waitUntil(
          (async () => {
            await drain();
            await handle.close().catch(() => {});
          })(),
        );
      },
    };
  };
}

/**
 * A Worker's module export from a function app, the access rules its gate reads (every function's:
 * functions/manifest.ts) and explicit options (see edge.ts for the production ones).
 */
export function edgeWorkerCore(
  app: FunctionApp,
  access: readonly AccessRule[],
  options: EdgeOptions = {},
): ExportedHandler<EdgeBindings> {
  let root: ReturnType<typeof buildChain> | null = null;
  return {
    fetch(request, env, ctx) {
      if (!root) {
        const max = Number(env.MAX_BODY_BYTES);
        const level = EnvSchema.shape.LOG_LEVEL.safeParse(binding(env, 'LOG_LEVEL'));
        // JSON lines on the console: Workers Logs parses them into fields
        const logger = createConsoleLogger(level.success ? level.data : 'info');
        root = buildChain([app], {
          provideServices: edgeServices(options, logger),
          access,
          logger,
          maxBodyBytes: Number.isInteger(max) && max > 0 ? max : 1024 * 1024,
          uploadMaxBytes: EnvSchema.shape.ATTACHMENT_MAX_BYTES.safeParse(binding(env, 'ATTACHMENT_MAX_BYTES'))
            .data,
          corsOrigins: corsOrigins.parse(binding(env, 'CORS_ALLOWED_ORIGINS')),
          afterGate: options.afterGate,
          shortcuts: options.shortcuts,
        });
      }
      return root.fetch(request, env, ctx);
    },
  };
}

/** Minimal Workers types (no @cloudflare/workers-types dependency). */
export interface ExportedHandler<Env> {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response>;
}
