// The benchmark's server: the embedded runtime exactly as `npm start` serves it, plus three
// bench-only routes under /__bench (never mounted by `npm start`):
//   GET  /__bench/bare            a bare Hono route in the same process: the ceiling
//   X-Bench-NoAuth: <tenant id>   (a header on any API path) the same app with the auth gate
//                                 replaced by a fixed credential: what auth costs, by difference
//   POST /__bench/seed-tickets    bulk-inserts tickets with SQL (100,000 in seconds)
import { serve } from '@hono/node-server';
import { Hono, type MiddlewareHandler } from 'hono';
import { SCOPE_CATALOG } from '../../shared/auth/scopes';
import { loadConfig } from '../../shared/env';
import type { AppEnv } from '../../shared/runtime/app-env';
import { buildRoot } from '../../shared/runtime/root';
import { createEmbeddedRuntime, loadFunctionApps, standardAfterGate } from '../embedded';
import { seedTickets } from './seed-tickets';

const config = loadConfig(process.env);
const runtime = await createEmbeddedRuntime({ config });

const ALL_SCOPES: ReadonlySet<string> = new Set(SCOPE_CATALOG);
const fixedCredential: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('auth', {
    kind: 'api_key',
    tenantId: c.req.header('x-bench-noauth') ?? '',
    keyId: 'key_bench',
    scopes: ALL_SCOPES,
  });
  await next();
};
const bypass = buildRoot(await loadFunctionApps(), {
  provideServices: runtime.services,
  logger: runtime.services.logger,
  maxBodyBytes: config.MAX_BODY_BYTES,
  corsOrigins: config.CORS_ALLOWED_ORIGINS,
  authenticate: fixedCredential,
  afterGate: standardAfterGate(),
});

const top = new Hono();
top.get('/__bench/bare', (c) => c.json({ ok: true }));
// the server's own CPU time (user + system, µs): the runner reads it around each case
top.get('/__bench/cpu', (c) => {
  const { user, system } = process.cpuUsage();
  return c.json({ cpu_us: user + system, user_us: user, system_us: system });
});
top.post('/__bench/seed-tickets', async (c) => {
  const { tenant_id, count } = await c.req.json<{ tenant_id: string; count: number }>();
  const started = performance.now();
  await seedTickets(runtime.services.db, tenant_id, count);
  return c.json({ inserted: count, ms: Math.round(performance.now() - started) });
});

// Everything but /__bench goes straight to the runtime's app, exactly as `npm start` serves it (a
// Hono app in front would add a second dispatch to every measured request).
const BENCH_PREFIX = '/__bench/';
const fetch = (req: Request, env: Record<string, unknown>) => {
  const path = req.url.slice(req.url.indexOf('/', req.url.indexOf('//') + 2));
  if (path.startsWith(BENCH_PREFIX)) return top.fetch(req, env);
  return req.headers.has('x-bench-noauth') ? bypass.fetch(req, env) : runtime.app.fetch(req, env);
};

const port = Number(process.env.PORT ?? 8960);
serve({ fetch, port, hostname: '127.0.0.1' }, () => console.log(`bench server on ${port}`));
process.on('SIGTERM', async () => {
  await runtime.close();
  process.exit(0);
});
