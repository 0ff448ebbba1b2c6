/**
 * Test harness: the embedded runtime in-process (no sockets), on PGlite in memory or on a fresh
 * real-Postgres database (TEST_DB=postgres, set by the vitest project), plus helpers to make
 * tenants, dashboard tokens and API keys through the public API itself.
 */

import { createEmbeddedRuntime, type EmbeddedRuntime } from '../../scripts/embedded';
import { type Role, signDashboardToken } from '../../shared/auth/jwt';
import type { ConversationPorts } from '../../shared/context/conversation-ports';
import { createPostgresHandle } from '../../shared/db/adapters/pg';
import type { DatabaseHandle } from '../../shared/db/handle';
import { migrate } from '../../shared/db/migrate';
import { readMigrations } from '../../shared/db/migrations-fs';
import { type AppConfig, loadConfig } from '../../shared/env';
import { createNodeLogger } from '../../shared/log/logger.node.js';
import { type Mail, OutboxMailer } from '../../shared/mail/mailer';
import { createTestDatabase } from './pg';
import { borrowPglite } from './pglite-pool';

export const TEST_DB = (process.env.TEST_DB ?? 'pglite') as 'pglite' | 'postgres';
export const TEST_SECRETS = {
  DASHBOARD_JWT_SECRET: 'test-dashboard-secret',
  INTERNAL_API_TOKEN: 'test-internal-token',
  API_KEY_HASH_SECRET: 'test-key-hash-secret',
  WEBHOOK_ENCRYPTION_KEY: 'test-webhook-encryption-key',
  END_USER_JWT_SECRET: 'test-end-user-secret',
};

export interface RequestOptions {
  body?: unknown;
  /** raw body text (for malformed JSON tests) */
  rawBody?: string;
  headers?: Record<string, string>;
  /** sent as X-API-Key */
  apiKey?: string;
  /** sent as Authorization: Bearer */
  bearer?: string;
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestTenant {
  id: string;
  adminToken: string;
  /** creates an API key with exactly these scopes; returns the secret */
  key(scopes: string[], extra?: Record<string, unknown>): Promise<string>;
  token(role: Role, sub?: string): Promise<string>;
}

export interface Harness {
  runtime: EmbeddedRuntime;
  config: AppConfig;
  db: DatabaseHandle['db'];
  handle: DatabaseHandle;
  /** the test database's URL on the postgres tier (undefined on PGlite) */
  databaseUrl?: string;
  /** every line the runtime logged (pino JSON, at the config's LOG_LEVEL), in order: kept, not printed */
  logged: string[];
  /** the parsed access-log lines (`msg: "request"`) */
  accessLines(): Record<string, unknown>[];
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  superToken(): Promise<string>;
  tenant(options?: { plan?: string; environment?: string; name?: string }): Promise<TestTenant>;
  /** every mail sent so far (the test runtime's in-memory outbox), after deferred sends settle */
  outbox(): Promise<Mail[]>;
  close(): Promise<void>;
}

async function openTestDatabase(statementTimeoutMs: number): Promise<{
  handle: DatabaseHandle;
  url?: string;
  cleanup: () => Promise<void>;
}> {
  if (TEST_DB === 'postgres') {
    const template = process.env.TEST_POSTGRES_TEMPLATE;
    if (!template) throw new Error('TEST_POSTGRES_TEMPLATE unset: run through the postgres vitest project');
    const created = await createTestDatabase(template);
    const handle = createPostgresHandle(created.url, { max: 5, statementTimeoutMs });
    return {
      handle,
      url: created.url,
      cleanup: async () => {
        await handle.close();
        await created.drop();
      },
    };
  }
  // a copy of the migrated template test/support/pglite-global-setup.ts dumped once, lent by the
  // worker's pool (no initdb and no PGlite start-up per file)
  const { handle, giveBack } = await borrowPglite(process.env.TEST_PGLITE_TEMPLATE);
  await migrate(handle, readMigrations()); // a no-op on the template; migrates a fresh database
  return { handle, cleanup: giveBack };
}

export const postgresUnavailable = () =>
  TEST_DB === 'postgres' && process.env.TEST_POSTGRES_UNAVAILABLE === '1';

/** `ports`: the channel senders and answerer this runtime's services carry (default: none, the KB answerer). */
export async function startHarness(
  env: Record<string, string> = {},
  ports: ConversationPorts = {},
): Promise<Harness> {
  const config = loadConfig({ APP_ENV: 'test', ...TEST_SECRETS, WEBHOOK_RETRY_UNIT_MS: '10', ...env });
  const { handle, url, cleanup } = await openTestDatabase(config.STATEMENT_TIMEOUT_MS);
  const logged: string[] = [];
  // the runtime's own pino logger, writing synchronously into `logged` instead of stdout
  const logger = createNodeLogger({
    level: config.LOG_LEVEL,
    destination: { write: (line) => logged.push(line) },
  });
  const runtime = await createEmbeddedRuntime({ config, handle, logger, ...ports });

  const request = async <T = any>(method: string, path: string, options: RequestOptions = {}) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.apiKey) headers['X-API-Key'] = options.apiKey;
    if (options.bearer) headers.Authorization = `Bearer ${options.bearer}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const bodyless = method === 'GET' || method === 'HEAD';
    const res = await runtime.app.request(path, { method, headers, body: bodyless ? undefined : body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };

  const superToken = () =>
    signDashboardToken(config.DASHBOARD_JWT_SECRET, {
      sub: 'user_super',
      tenant_id: 'platform',
      role: 'super_admin',
    });

  const tenant: Harness['tenant'] = async (options = {}) => {
    const created = await request('POST', '/api/v1/tenants', {
      bearer: await superToken(),
      body: {
        name: options.name ?? 'Test Tenant',
        plan: options.plan ?? 'enterprise',
        environment: options.environment ?? 'production',
      },
    });
    if (created.status !== 201) throw new Error(`tenant creation failed: ${created.status} ${created.text}`);
    const id = created.body.id as string;
    const token = (role: Role, sub = `user_${role}`) =>
      signDashboardToken(config.DASHBOARD_JWT_SECRET, { sub, tenant_id: id, role });
    const adminToken = await token('tenant_admin', 'user_admin');
    return {
      id,
      adminToken,
      token,
      async key(scopes, extra = {}) {
        const res = await request('POST', '/api/v1/api-keys', {
          bearer: adminToken,
          body: { name: 'test key', scopes, ...extra },
        });
        if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
        return res.body.api_key as string;
      },
    };
  };

  return {
    runtime,
    config,
    db: handle.db,
    handle,
    databaseUrl: url,
    logged,
    accessLines: () =>
      logged
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === 'request'),
    request,
    superToken,
    tenant,
    async outbox() {
      await runtime.drain();
      const { mailer } = runtime.services;
      if (!(mailer instanceof OutboxMailer))
        throw new Error('the harness mailer is not the outbox (MAIL_API_URL set?)');
      return mailer.sent;
    },
    async close() {
      await runtime.close();
      await cleanup();
    },
  };
}
