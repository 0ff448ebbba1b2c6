import * as z from 'zod';
import { LOG_LEVELS } from './log/logger';

// Schemas are immutable, so variables of one kind share one instance: building a zod schema is
// what a Worker's startup spends most on, and this table has some eighty variables.
const optionalString = z.string().optional();
const optionalUrl = z.string().url().optional();
const nonNegativeInt = z.number().int().nonnegative();

/** A comma list of host names, trimmed and lower-cased (allow lists). */
const hostList = optionalString.transform((v) =>
  (v ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean),
);

/** `*` (any origin) or a comma list of exact origins (`https://help.example.com`). */
export const corsOrigins = optionalString.transform((v): '*' | string[] => {
  const list = (v ?? '*')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  return list.length === 0 || list.includes('*') ? '*' : list;
});

const intFromString = (fallback: number) =>
  optionalString.transform((v) => (v === undefined || v === '' ? fallback : Number(v))).pipe(nonNegativeInt);

/**
 * Every setting the functions read, validated once (Unkey's pattern: env checked before routing).
 * On Workers these arrive as bindings/secrets; in the embedded runtime from process.env.
 * docs/deploy.md ("Environment variables") lists each one with its default: test/unit/env-table.test.ts
 * fails when a variable here is missing there, its default differs, or the table names one that
 * neither this schema nor READ_ELSEWHERE has.
 */
export const EnvSchema = z.object({
  /** Where the service runs: `development` allows the built-in dev secrets below. */
  APP_ENV: z.enum(['development', 'test', 'staging', 'production']).default('development'),
  DATABASE_URL: optionalString,
  DATA_DIR: z.string().default('.data'),
  DASHBOARD_JWT_SECRET: optionalString,
  DASHBOARD_JWKS_URL: optionalUrl,
  END_USER_JWT_SECRET: optionalString,
  INTERNAL_API_TOKEN: optionalString,
  /** HMAC key for API-key hashes. Rotating it invalidates every key. */
  API_KEY_HASH_SECRET: optionalString,
  /** AES-GCM key (base64 of 32 bytes, or any string: it is hashed to 32 bytes) for webhook secrets at rest. */
  WEBHOOK_ENCRYPTION_KEY: optionalString,
  /** HS256 secret of the short-lived voice-widget session tokens (POST /api/v1/voice-widget/token). */
  VOICE_WIDGET_SECRET: optionalString,
  WEBHOOK_SSRF_ALLOW: hostList,
  WEBHOOK_RETRY_UNIT_MS: intFromString(1000),
  WEBHOOK_TIMEOUT_MS: intFromString(10_000),
  /** Days an attempt's request and response are kept before the delivery worker clears them. */
  WEBHOOK_ATTEMPT_RETENTION_DAYS: intFromString(30),
  /** Seconds an endpoint may fail with no success before it is disabled (five days). */
  WEBHOOK_DISABLE_AFTER_S: intFromString(432_000),
  /** Seconds after rotate-secret during which `webhook-signature` also carries the old secret's. */
  WEBHOOK_ROTATION_OVERLAP_S: intFromString(86_400),
  UPSTASH_REDIS_REST_URL: optionalString,
  UPSTASH_REDIS_REST_TOKEN: optionalString,
  /** A plain Redis (`redis://` or `rediss://`), Node only: the same uses as Upstash, through ioredis. */
  REDIS_URL: optionalString,
  /** Prepended to every Redis key (default `<APP_ENV>:`): deployments sharing one Redis share no key. */
  REDIS_KEY_PREFIX: optionalString,
  QSTASH_URL: optionalString,
  QSTASH_TOKEN: optionalString,
  QSTASH_CURRENT_SIGNING_KEY: optionalString,
  QSTASH_NEXT_SIGNING_KEY: optionalString,
  /**
   * Multi-region QStash (`EU_CENTRAL_1` or `US_EAST_1`, `-` or `_`, any case): the region this
   * deployment publishes from, and the switch that makes a callback's `Upstash-Region` choose that
   * region's signing keys. Each region's settings below fall back to the default ones above.
   */
  QSTASH_REGION: optionalString,
  EU_CENTRAL_1_QSTASH_URL: optionalString,
  EU_CENTRAL_1_QSTASH_TOKEN: optionalString,
  EU_CENTRAL_1_QSTASH_CURRENT_SIGNING_KEY: optionalString,
  EU_CENTRAL_1_QSTASH_NEXT_SIGNING_KEY: optionalString,
  US_EAST_1_QSTASH_URL: optionalString,
  US_EAST_1_QSTASH_TOKEN: optionalString,
  US_EAST_1_QSTASH_CURRENT_SIGNING_KEY: optionalString,
  US_EAST_1_QSTASH_NEXT_SIGNING_KEY: optionalString,
  /** Public base URL of this API (QStash callbacks, export download links). */
  PUBLIC_BASE_URL: optionalString,
  /** How long the rate limiter waits for Upstash Redis before judging the request in memory (fail-open). */
  RATE_LIMIT_TIMEOUT_MS: intFromString(250),
  /** Multiplies every plan's limits. 1 in staging and production; load benchmarks raise it. */
  RATE_LIMIT_SCALE: intFromString(1).pipe(z.number().int().min(1)),
  /**
   * The one request header holding the client's address, set by a proxy you run in front of the
   * Node runtime (e.g. `X-Real-IP`); unset = the socket's address (Node) or CF-Connecting-IP
   * (Workers, where Cloudflare sets it). A header the client can send itself is never trusted otherwise.
   */
  TRUSTED_PROXY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, 'a single header name')
    .transform((h) => h.toLowerCase())
    .optional(),
  /**
   * The longest a request is expected to run. An Idempotency-Key is held under a lease of this
   * length (renewed while its request runs), so a process that dies mid-request frees its keys
   * within one lease; the Node server also gives a request this long to arrive.
   */
  REQUEST_TIMEOUT_MS: intFromString(30_000).pipe(z.number().int().min(100)),
  /**
   * The longest one database statement may run (Postgres' statement_timeout on the Node pool; set
   * in each transaction, and the HTTP request's limit, on the edge). Past it the statement is
   * cancelled, its transaction rolled back, and the request answers 503 with Retry-After. 0 = none.
   */
  STATEMENT_TIMEOUT_MS: intFromString(5_000),
  /**
   * A tenant's share of the database: the cost units its requests may hold at once, counted across
   * processes and isolates (shared/ratelimit/db-share.ts). A read or write costs 1, a `q` search or a
   * list with several filters more. 0 = not limited.
   */
  TENANT_DB_SHARE: intFromString(8),
  /**
   * The percent of one database core a tenant's searches and combined filters may keep busy on
   * average, across processes (shared/ratelimit/db-time.ts); reads of at most 50 ms are not
   * counted. Past it the next such read answers 429 with Retry-After. 0 = not limited.
   */
  TENANT_DB_TIME_SHARE: intFromString(25).pipe(z.number().int().min(0).max(1000)),
  /** Node server: open connections one client address may hold at once (more are refused). 0 = no cap. */
  MAX_CONNECTIONS_PER_CLIENT: intFromString(64),
  /** Node runtime: on SIGTERM/SIGINT, how long requests in flight may take to finish before the exit. */
  SHUTDOWN_GRACE_MS: intFromString(10_000),
  /** Largest accepted request body in bytes. */
  MAX_BODY_BYTES: intFromString(1024 * 1024),
  /** Largest attachment or recording in bytes (docs/files.md); checked from Content-Length and while streaming. */
  ATTACHMENT_MAX_BYTES: intFromString(26_214_400).pipe(z.number().int().min(1)),
  /** Seconds a download link (`download_url`, a recording's 302) stays valid; then 403. */
  ATTACHMENT_URL_TTL_S: intFromString(900).pipe(z.number().int().min(1)),
  /** HMAC key of the signed download links; unset = derived from API_KEY_HASH_SECRET (docs/files.md). */
  FILES_SIGNING_KEY: z.string().min(16).optional(),
  /** An S3-compatible bucket for files (all four set; else a folder under DATA_DIR): endpoint URL, path-style. */
  S3_ENDPOINT: optionalUrl,
  S3_BUCKET: optionalString,
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  /** The bucket's SigV4 region (`auto` for R2's S3 API). */
  S3_REGION: z.string().default('us-east-1'),
  /** AES-GCM key for contact-sync API tokens at rest; unset = WEBHOOK_ENCRYPTION_KEY. */
  SYNC_ENCRYPTION_KEY: optionalString,
  /** Comma list of host names a sync connection may reach over plain http or at a private address (local fakes only). */
  SYNC_HTTP_ALLOW_HOSTS: hostList,
  /** Timeout of one upstream helpdesk page request (contact sync). */
  SYNC_TIMEOUT_MS: intFromString(10_000),
  /** Base URL of the upstream ITSM knowledge-base API (KB destination `itsm`); unset = destination unavailable. */
  ITSM_KB_URL: optionalUrl,
  /** Bearer token sent to ITSM_KB_URL. */
  ITSM_KB_TOKEN: optionalString,
  /** Least severe level logged (pino's names): `info` logs one access line per request. */
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  /** Origins the browser surfaces answer (comma list, or `*`): shared/http/cors.ts. */
  CORS_ALLOWED_ORIGINS: corsOrigins,
  /** HTTP mail API (shared/mail/mailer.ts): unset = mails are printed (development) or kept in memory (test). */
  MAIL_API_URL: optionalUrl,
  MAIL_API_KEY: optionalString,
  MAIL_FROM: z.string().default('Support Platform <no-reply@localhost>'),
});

/**
 * The variables the table documents that EnvSchema does not read, by the file that reads them: the
 * Node server's listener and seed, Node's own CA bundle, the edge database driver's local switches
 * and the browser tier's screenshots. They are no AppConfig: each is read where it is used.
 */
export const READ_ELSEWHERE = {
  PORT: 'scripts/serve.ts',
  HOST: 'scripts/serve.ts',
  DEMO_ADMIN_PASSWORD: 'scripts/serve.ts',
  NODE_EXTRA_CA_CERTS: 'shared/webhooks/transport.node.ts',
  NEON_WS_PROXY: 'shared/db/adapters/neon-http.ts',
  NEON_FETCH_TIMEOUT_MS: 'shared/db/adapters/neon-http.ts',
  NEON_HTTP_ENDPOINT: 'shared/db/adapters/neon-http.ts',
  NEON_TRANSPORT: 'shared/db/adapters/neon-http.ts',
  CONSOLE_SCREENSHOTS: 'test/browser/console.test.ts',
} as const;

export type AppConfig = z.infer<typeof EnvSchema> & {
  DASHBOARD_JWT_SECRET: string;
  END_USER_JWT_SECRET: string;
  INTERNAL_API_TOKEN: string;
  API_KEY_HASH_SECRET: string;
  WEBHOOK_ENCRYPTION_KEY: string;
  VOICE_WIDGET_SECRET: string;
};

/** Secrets that have a well-known default in development only; staging and production must set them. */
const DEV_DEFAULTS = {
  DASHBOARD_JWT_SECRET: 'dev-dashboard-jwt-secret-change-me',
  END_USER_JWT_SECRET: 'dev-end-user-jwt-secret-change-me',
  INTERNAL_API_TOKEN: 'dev-internal-token',
  API_KEY_HASH_SECRET: 'dev-api-key-hash-secret',
  WEBHOOK_ENCRYPTION_KEY: 'dev-webhook-encryption-key',
  VOICE_WIDGET_SECRET: 'dev-voice-widget-secret',
} as const;

export class ConfigError extends Error {}

/**
 * Every missing or invalid variable is reported at once, one per line, so a deployment learns all of
 * them from one failed start instead of one per restart.
 */
export function loadConfig(source: Record<string, unknown>): AppConfig {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.shape)) {
    const value = source[key];
    if (typeof value === 'string') picked[key] = value;
  }
  const parsed = EnvSchema.safeParse(picked);
  const problems = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  // read on its own so that missing secrets are reported alongside an invalid variable elsewhere
  const appEnv = EnvSchema.shape.APP_ENV.safeParse(picked.APP_ENV).data;
  const production = appEnv === 'staging' || appEnv === 'production';
  const resolved = { ...parsed.data } as AppConfig;
  for (const [key, fallback] of Object.entries(DEV_DEFAULTS) as [keyof typeof DEV_DEFAULTS, string][]) {
    if (picked[key]) continue;
    // The JWKS URL replaces the shared dashboard secret in production.
    if (production && !(key === 'DASHBOARD_JWT_SECRET' && picked.DASHBOARD_JWKS_URL)) {
      problems.push(
        `${key} must be set when APP_ENV=${appEnv}${key === 'DASHBOARD_JWT_SECRET' ? ' (or DASHBOARD_JWKS_URL)' : ''}`,
      );
    }
    resolved[key] = fallback;
  }
  // a link over plain http hands its one-time token to every network it crosses (the Worker reads
  // this config too, so the edge refuses like `npm start`)
  if (
    appEnv === 'production' &&
    picked.PUBLIC_BASE_URL &&
    !/^https:\/\//i.test(String(picked.PUBLIC_BASE_URL))
  )
    problems.push(
      `PUBLIC_BASE_URL must be an https:// origin when APP_ENV=production: the links it starts carry one-time tokens (got "${picked.PUBLIC_BASE_URL}")`,
    );
  if (problems.length > 0) {
    const count = `${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}`;
    throw new ConfigError(`Invalid environment (${count}):\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
  return resolved;
}

/** Names of secrets that fell back to a development default: printed at start-up as a warning. */
export function defaultedSecrets(source: Record<string, unknown>): string[] {
  return Object.keys(DEV_DEFAULTS).filter((k) => typeof source[k] !== 'string' || source[k] === '');
}
