// The edge stack (the e2e tier's, test/e2e/edge-stack.ts, and the edge bench's): every function's Worker bundle (exactly what `wrangler deploy` uploads, from
// `npm run build:edge`) running in workerd through Miniflare (wrangler's local engine), routed by the
// manifest's path prefixes on one hostname as in production, against this machine's Postgres through
// the Neon serverless driver: its HTTP path (neon-http-endpoint.ts, Neon's SQL-over-HTTP
// protocol) for statements and a WebSocket-to-TCP proxy for interactive transactions (or for
// everything with NEON_TRANSPORT=websocket); Redis through the Upstash REST adapter when the
// rate-limit tier provides one. `delayMs` puts a network distance on every Postgres round trip.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import pg from 'pg';
import { FUNCTIONS } from '../../functions/manifest';
import { createPostgresHandle } from '../../shared/db/adapters/pg';
import { migrate } from '../../shared/db/migrate';
import { readMigrations } from '../../shared/db/migrations-fs';
import type { R2BucketLike } from '../../shared/storage/r2';
import { BARE_WORKER, BUNDLE_DIR, DOCS_ASSETS_DIR, prepareDocsAssets, ROOT, routePattern } from './config';
import { type NeonHttpEndpoint, startNeonHttpEndpoint } from './neon-http-endpoint';
import { startWsProxy, type WsProxy } from './ws-proxy';

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function dbUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export const E2E_HOST = '127.0.0.1';

/** Secrets for one run of the stack: made fresh each time, so nothing here is a real key. */
export function freshSecrets() {
  const secret = () => crypto.randomUUID().replaceAll('-', '') + crypto.randomUUID().replaceAll('-', '');
  return {
    DASHBOARD_JWT_SECRET: secret(),
    END_USER_JWT_SECRET: secret(),
    INTERNAL_API_TOKEN: secret(),
    API_KEY_HASH_SECRET: secret(),
    WEBHOOK_ENCRYPTION_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'),
  };
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!/\.(ts|toml|json)$/.test(f)) continue;
    newest = Math.max(newest, statSync(join(dir, f)).mtimeMs);
  }
  return newest;
}

/**
 * Rebuilds the bundles (`npm run build:edge`) unless every one is newer than the sources; `extra`
 * names bundles beyond the functions' that must exist too (the bench's bare Worker).
 */
export function ensureBundles(extra: readonly string[] = []): void {
  const sources = Math.max(
    newestMtime(join(ROOT, 'functions')),
    newestMtime(join(ROOT, 'shared')),
    newestMtime(join(ROOT, 'scripts', 'edge')),
    statSync(join(ROOT, 'wrangler.toml')).mtimeMs,
  );
  const stale = () =>
    [...FUNCTIONS.map((fn) => fn.name), ...extra].some((name) => {
      const file = join(BUNDLE_DIR, name, 'index.js');
      return !existsSync(file) || statSync(file).mtimeMs < sources;
    });
  if (!stale() && existsSync(DOCS_ASSETS_DIR)) return;
  const built = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/build-edge.ts'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  // a bundle over the size budget still runs (build:edge reports it and CI fails on it); only a
  // bundle that could not be built stops the stack
  if (built.status !== 0 && stale())
    throw new Error('npm run build:edge failed: the stack runs the built bundles');
  if (!existsSync(DOCS_ASSETS_DIR)) prepareDocsAssets();
}

export interface EdgeStack {
  url: string;
  databaseUrl: string;
  proxy: WsProxy;
  endpoint: NeonHttpEndpoint;
  bindings: Record<string, string>;
  /** the keys under `prefix` in workerd's local R2 bucket (ATTACHMENTS), read through Miniflare */
  bucketKeys(prefix: string): Promise<string[]>;
  reload(): Promise<void>;
  close(): Promise<void>;
}

const compatibilityDate = () =>
  readFileSync(join(ROOT, 'wrangler.toml'), 'utf8').match(/^compatibility_date\s*=\s*"([^"]+)"/m)?.[1] ??
  '2025-09-01';

/** The keys under `prefix` in the stack's local R2 bucket, read through Miniflare. */
async function bucketKeys(mf: Miniflare, prefix: string): Promise<string[]> {
  // Miniflare's R2 types come from workers-types, which this project does not load
  const bucket = (await mf.getR2Bucket('ATTACHMENTS', FUNCTIONS[0]?.name)) as unknown as Pick<
    R2BucketLike,
    'list'
  >;
  const keys: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await bucket.list(cursor ? { prefix, cursor } : { prefix });
    keys.push(...page.objects.map((o) => o.key));
    if (!page.truncated) break;
    cursor = page.cursor;
  }
  return keys.sort();
}

/** The bare Hono Worker under BARE_WORKER.path: the floor the edge bench measures beside every case. */
const bareWorker = (compatibilityDate: string) => ({
  name: BARE_WORKER.name,
  modules: [{ type: 'ESModule' as const, path: join(BUNDLE_DIR, BARE_WORKER.name, 'index.js') }],
  compatibilityDate,
  routes: [routePattern(E2E_HOST, BARE_WORKER.path)],
});

/** Where the control Workers answer (CONTROL_WORKER_SCRIPT); no function routes under it. */
export const CONTROL_PATH = '/__control/';

/**
 * Control Workers on the same local R2 as the functions, the platform's own cost of 25 MiB in and out
 * that test/e2e/files-memory.test.ts measures ours against: PUT /__control/pipe?key= hands
 * request.body straight to ATTACHMENTS.put, PUT /__control/chunks?key= reads every chunk in JS on the
 * way (through a FixedLengthStream, as shared/storage/r2.ts does), GET /__control/get?key= streams the
 * object back.
 */
const CONTROL_WORKER_SCRIPT = `
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const key = url.searchParams.get('key');
    if (!key) return new Response('key?', { status: 400 });
    if (url.pathname === '${CONTROL_PATH}pipe' && request.method === 'PUT') {
      await env.ATTACHMENTS.put(key, request.body);
      return new Response('stored', { status: 201 });
    }
    if (url.pathname === '${CONTROL_PATH}chunks' && request.method === 'PUT') {
      const fixed = new FixedLengthStream(Number(request.headers.get('content-length')));
      const reader = request.body.getReader();
      const writer = fixed.writable.getWriter();
      let size = 0;
      const pump = (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          size += value.byteLength;
          await writer.write(value);
        }
        await writer.close();
      })();
      await Promise.all([pump, env.ATTACHMENTS.put(key, fixed.readable)]);
      return new Response(String(size), { status: 201 });
    }
    if (url.pathname === '${CONTROL_PATH}get') {
      const object = await env.ATTACHMENTS.get(key);
      if (!object) return new Response('none', { status: 404 });
      return new Response(object.body, { headers: { 'Content-Length': String(object.size) } });
    }
    return new Response('no such control', { status: 404 });
  },
};
`;

const controlWorker = (compatibilityDate: string) => ({
  name: 'control',
  modules: true,
  script: CONTROL_WORKER_SCRIPT,
  compatibilityDate,
  r2Buckets: { ATTACHMENTS: 'spa-files-e2e' },
  routes: [routePattern(E2E_HOST, CONTROL_PATH)],
});

export async function startEdgeStack(options: {
  /** a Postgres role that may create databases: the stack makes its own and drops it on close */
  adminUrl: string;
  /** the Workers' secrets (DASHBOARD_JWT_SECRET, API_KEY_HASH_SECRET, ...) */
  secrets: Record<string, string>;
  port?: number;
  extraBindings?: Record<string, string>;
  delayMs?: number;
  /** also run the bare Hono Worker (scripts/edge/bare/index.ts) under BARE_WORKER.path: the bench's floor */
  bare?: boolean;
  /** also run the control Workers under CONTROL_PATH (the e2e tier's memory test) */
  controls?: boolean;
  /** open workerd's inspector on this port (bench:edge's EDGE_PROFILE: a CPU profile per case) */
  inspectorPort?: number;
}) {
  ensureBundles(options.bare ? [BARE_WORKER.name] : []);
  const proxy = await startWsProxy({ delayMs: options.delayMs });
  const endpoint = await startNeonHttpEndpoint({ delayMs: options.delayMs });
  const name = `spa_e2e_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  await adminQuery(options.adminUrl, `CREATE DATABASE ${name}`);
  const databaseUrl = dbUrl(options.adminUrl, name);
  const handle = createPostgresHandle(databaseUrl, { max: 1 });
  await migrate(handle, readMigrations());
  await handle.close();

  const bindings: Record<string, string> = {
    APP_ENV: 'test',
    ...options.secrets,
    DATABASE_URL: databaseUrl,
    NEON_WS_PROXY: proxy.address,
    NEON_HTTP_ENDPOINT: endpoint.url,
    WEBHOOK_RETRY_UNIT_MS: '10',
    ...options.extraBindings,
  };
  const date = compatibilityDate();
  const mfOptions = {
    host: E2E_HOST,
    port: options.port ?? Number(process.env.E2E_PORT ?? 8895),
    ...(options.inspectorPort ? { inspectorPort: options.inspectorPort } : {}),
    workers: [
      ...FUNCTIONS.map((fn) => ({
        name: fn.name,
        // the one-file bundle as the only module: Miniflare then does not walk its imports (the QStash
        // SDK holds `import(\`node:${m}\`)` for its local dev mode, never reached on Workers)
        modules: [{ type: 'ESModule' as const, path: join(BUNDLE_DIR, fn.name, 'index.js') }],
        compatibilityDate: date,
        bindings,
        // workerd's own local R2 (wrangler.toml binds ATTACHMENTS the same way): one bucket, every Worker
        r2Buckets: { ATTACHMENTS: 'spa-files-e2e' },
        routes: fn.prefixes.map((p) => routePattern(E2E_HOST, p)),
        ...(fn.name === 'docs'
          ? { assets: { directory: DOCS_ASSETS_DIR, binding: 'ASSETS', workerName: 'docs' } }
          : {}),
      })),
      ...(options.bare ? [bareWorker(date)] : []),
      ...(options.controls ? [controlWorker(date)] : []),
    ],
  };
  const mf = new Miniflare(mfOptions);
  const url = (await mf.ready).toString().replace(/\/$/, '');
  return {
    url,
    databaseUrl,
    proxy,
    endpoint,
    bindings,
    bucketKeys: (prefix: string) => bucketKeys(mf, prefix),
    /** restarts every Worker (test:faults: an isolate evicted with its deferred work unfinished) */
    async reload() {
      await mf.setOptions(mfOptions);
    },
    async close() {
      await mf.dispose();
      await proxy.close();
      await endpoint.close();
      await adminQuery(options.adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  } satisfies EdgeStack;
}
