// The typed client (clients/typescript) against the real server: the embedded runtime listening on
// a port the OS picks, called over HTTP exactly as an integrator's script would.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { ServerType } from '@hono/node-server';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportClient, SupportApiError } from '../../clients/typescript/index';
import { buildSignedRequest } from '../../shared/webhooks/signing';
import {
  type Harness,
  postgresUnavailable,
  startHarness,
  TEST_DB,
  type TestTenant,
} from '../support/harness';
import { serveOnFreePort } from '../support/listen';

const ROOT = join(import.meta.dirname, '..', '..');

/** README's section on the client: its install steps, the script and the command that runs it */
function readmeClientSection() {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Typed TypeScript client\n')).split('\n## ')[0]!;
  const blocks = [...section.matchAll(/```(ts|sh)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1],
    text: m[2]!,
  }));
  return {
    shell: blocks.filter((b) => b.lang === 'sh').map((b) => b.text),
    script: blocks.find((b) => b.lang === 'ts')?.text ?? '',
  };
}
const CLIENT_DIR = join(ROOT, 'clients', 'typescript');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/**
 * What the fresh project installs besides the client's tarball: its runtime dependencies and Node's
 * types, packed from this repository's node_modules, so the install needs no registry and no cache.
 */
const PACKED_DEPENDENCIES = ['openapi-fetch', 'openapi-typescript-helpers', '@types/node', 'undici-types'];
/** a Worker's (or a browser's) webhook receiver: no Node types, the typed verifier */
const WORKER_SOURCE = `import { verifyWebhook, type WebhookEvent } from '@support-platform/client';
import { verifyWebhookSignature } from '@support-platform/client/webhooks';

export default {
  async fetch(request: Request, env: { WEBHOOK_SECRET: string }): Promise<Response> {
    const payload = await request.text();
    const input = { payload, headers: request.headers, secret: env.WEBHOOK_SECRET, toleranceSeconds: 300 };
    const event: WebhookEvent | null = await verifyWebhook(input);
    if (!event) return new Response('bad signature', { status: 401 });
    const signed = await verifyWebhookSignature(input);
    switch (event.event_type) {
      case 'ticket.created':
        return Response.json({ signed, subject: event.data.ticket.subject });
      default:
        return Response.json({ signed, type: event.event_type });
    }
  },
};
`;

const run = promisify(execFile);
/** npm with no registry: every install below is from tarballs on disk, into a cache of its own */
function npm(args: string[], cwd: string, cache: string) {
  return run('npm', args, {
    cwd,
    env: {
      ...process.env,
      npm_config_cache: cache,
      npm_config_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    },
    maxBuffer: 16 << 20,
  });
}
const tsc = (args: string[], cwd: string) =>
  run(process.execPath, [TSC, ...args], { cwd, maxBuffer: 16 << 20 });

/** Records every request the client sends (method, path and headers as they left). */
function recordingFetch() {
  const sent: { method: string; path: string; query: URLSearchParams; headers: Headers }[] = [];
  const fetchImpl = (request: Request) => {
    sent.push({
      method: request.method,
      path: new URL(request.url).pathname,
      query: new URL(request.url).searchParams,
      headers: new Headers(request.headers),
    });
    return fetch(request);
  };
  return { sent, fetch: fetchImpl };
}

describe.skipIf(postgresUnavailable())('typed client against the real server', { timeout: 60_000 }, () => {
  let h: Harness;
  let server: ServerType;
  let baseUrl: string;
  let tenant: TestTenant;
  let key: string;

  beforeAll(async () => {
    h = await startHarness();
    ({ server, base: baseUrl } = await serveOnFreePort(h.runtime.app.fetch));
    tenant = await h.tenant();
    key = await tenant.key(['tickets:read', 'tickets:write']);
  }, 120_000);
  afterAll(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await h?.close();
  }, 60_000);

  it('creates with an API key, an Idempotency-Key on every POST, and none on GET', async () => {
    const rec = recordingFetch();
    const api = createSupportClient({ baseUrl, apiKey: key, fetch: rec.fetch });
    const { data, response } = await api.POST('/api/v1/tickets', {
      body: { subject: 'Printer on fire', priority: 'urgent' },
    });
    expect(response.status).toBe(201);
    expect(data?.subject).toBe('Printer on fire');
    await api.GET('/api/v1/tickets/{ticket_id}', { params: { path: { ticket_id: data!.id } } });
    expect(rec.sent.map((r) => [r.method, r.headers.get('X-API-Key')])).toEqual([
      ['POST', key],
      ['GET', key],
    ]);
    expect(rec.sent[0]!.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(rec.sent[1]!.headers.has('Idempotency-Key')).toBe(false);
  });

  it("a caller's Idempotency-Key is kept (the server replays), and idempotency: false sends none", async () => {
    const api = createSupportClient({ baseUrl, apiKey: key });
    const init = { body: { subject: 'Once only' }, headers: { 'Idempotency-Key': 'client-test-once' } };
    const first = await api.POST('/api/v1/tickets', init);
    const second = await api.POST('/api/v1/tickets', init);
    expect(second.data?.id).toBe(first.data?.id);
    expect(second.response.headers.get('Idempotent-Replayed')).toBe('true');
    const rec = recordingFetch();
    const noKey = createSupportClient({ baseUrl, apiKey: key, idempotency: false, fetch: rec.fetch });
    await noKey.POST('/api/v1/tickets', { body: { subject: 'No key' } });
    expect(rec.sent[0]!.headers.has('Idempotency-Key')).toBe(false);
  });

  it('pages through every ticket, keeping the filters on every page', async () => {
    const t = await h.tenant();
    const k = await t.key(['tickets:read', 'tickets:write']);
    const rec = recordingFetch();
    const api = createSupportClient({ baseUrl, apiKey: k, fetch: rec.fetch });
    const subjects: string[] = [];
    for (let i = 0; i < 7; i++) {
      const priority = i % 2 === 0 ? 'high' : 'low';
      await api.POST('/api/v1/tickets', { body: { subject: `T${i}`, priority } });
      if (priority === 'high') subjects.push(`T${i}`);
    }
    rec.sent.length = 0;
    const seen: string[] = [];
    for await (const ticket of api.paginate('/api/v1/tickets', {
      params: { query: { priority: 'high', limit: 3 } },
    })) {
      expect(ticket.priority).toBe('high');
      seen.push(ticket.subject);
    }
    expect(seen.sort()).toEqual(subjects.sort());
    // 4 rows at 3 per page: two requests, and no request for an empty third page
    expect(rec.sent.length).toBe(2);
    // the second page by the first one's cursor, with the same filters
    expect(rec.sent[1]!.query.get('cursor')).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(rec.sent[1]!.query.get('priority')).toBe('high');
    expect(rec.sent[1]!.query.has('offset')).toBe(false);
    const all: string[] = [];
    for await (const ticket of api.paginate('/api/v1/tickets', { params: { query: { limit: 2 } } }))
      all.push(ticket.id);
    expect(new Set(all).size).toBe(7);
  });

  it('search(): tickets by API key, every type by session, hits narrowed by type, paged by cursor', async () => {
    const t = await h.tenant();
    const k = await t.key(['tickets:read', 'tickets:write']);
    const api = createSupportClient({ baseUrl, apiKey: k });
    await api.POST('/api/v1/tickets', { body: { subject: 'Client search printer one' } });
    await api.POST('/api/v1/tickets', { body: { subject: 'Client search printer two' } });
    const first = await api.search('"client search" printer', { limit: 1 });
    expect(first.hits).toHaveLength(1);
    const hit = first.hits[0]!;
    // the union narrows on `type`: a ticket hit's record is a ticket
    if (hit.type !== 'ticket') throw new Error(`expected a ticket hit, got ${hit.type}`);
    expect(hit.record.subject).toMatch(/^Client search printer/);
    expect(hit.highlights[0]!.field).toBe('subject');
    const second = await api.search('"client search" printer', { limit: 1, cursor: first.next_cursor! });
    expect(second.hits[0]!.record.id).not.toBe(hit.record.id);
    await expect(api.search('x', { types: ['contact'] })).rejects.toThrow(TypeError);
    const malformed = await api.search('"unterminated').catch((e: unknown) => e);
    expect(malformed).toBeInstanceOf(SupportApiError);
    expect(malformed).toMatchObject({ status: 422 });
    const session = createSupportClient({ baseUrl, sessionToken: t.adminToken });
    const all = await session.search('"client search"', { types: ['ticket', 'contact'] });
    expect(all.hits.map((h) => h.type)).toEqual(['ticket', 'ticket']);
  });

  it('a list without paging is fetched once, here with a session token from a function', async () => {
    const rec = recordingFetch();
    const api = createSupportClient({ baseUrl, sessionToken: () => tenant.adminToken, fetch: rec.fetch });
    const plans: string[] = [];
    for await (const plan of api.paginate('/api/v1/billing/plans')) plans.push(plan.plan);
    expect(plans).toEqual(['free', 'starter', 'pro', 'enterprise']);
    expect(rec.sent.map((r) => r.headers.get('Authorization'))).toEqual([`Bearer ${tenant.adminToken}`]);
  });

  it('throws SupportApiError with status, detail and request id', async () => {
    const api = createSupportClient({ baseUrl, apiKey: key });
    const missing = await api
      .GET('/api/v1/tickets/{ticket_id}', {
        params: { path: { ticket_id: '00000000-0000-0000-0000-000000000000' } },
        headers: { 'X-Request-Id': 'req-client-404' },
      })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SupportApiError);
    expect(missing).toMatchObject({ status: 404, requestId: 'req-client-404' });
    expect(typeof (missing as SupportApiError).detail).toBe('string');

    const scope = await api.GET('/api/v1/usage/summary').catch((e: unknown) => e);
    expect(scope).toMatchObject({ status: 403, detail: 'API key missing required scope: usage:read' });
    expect((scope as SupportApiError).requestId).toMatch(/.+/);

    const invalid = (await api
      .GET('/api/v1/tickets', { params: { query: { limit: 1000 } } })
      .catch((e: unknown) => e)) as SupportApiError;
    expect(invalid.status).toBe(422);
    expect(invalid.issues[0]?.loc).toContain('limit');

    const anonymous = await createSupportClient({ baseUrl })
      .GET('/api/v1/tickets')
      .catch((e: unknown) => e);
    expect(anonymous).toMatchObject({ status: 401 });
  });

  it('waits out a 429 for as long as Retry-After says, then succeeds', async () => {
    // free plan: 80 reads per 10-second window (fixed windows: a run may straddle two), so read
    // until refused; the per-minute limit (400) is never reached by 300 reads
    const t = await h.tenant({ plan: 'free' });
    const k = await t.key(['tickets:read']);
    const noRetry = createSupportClient({ baseUrl, apiKey: k, retry: false });
    let refused: SupportApiError | undefined;
    for (let i = 0; i < 300 && !refused; i++) {
      await noRetry.GET('/api/v1/tickets', { params: { query: { limit: 1 } } }).catch((e: unknown) => {
        refused = e as SupportApiError;
      });
    }
    expect(refused?.status).toBe(429);
    const rec = recordingFetch();
    const api = createSupportClient({
      baseUrl,
      apiKey: k,
      fetch: rec.fetch,
      retry: { attempts: 3, maxDelayMs: 15_000 },
    });
    const started = Date.now();
    const { response } = await api.GET('/api/v1/tickets', { params: { query: { limit: 1 } } });
    expect(response.status).toBe(200);
    expect(rec.sent.length).toBeGreaterThanOrEqual(2);
    // the retries carried the same request id: one logical call
    expect(new Set(rec.sent.map((r) => r.headers.get('X-Request-Id'))).size).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });

  it.skipIf(TEST_DB !== 'pglite')(
    "README's steps: the packed tarball installs in an empty project, type-checks (tsc --init, exactOptionalPropertyTypes on and off, no Node types), and README's script and a Worker receiver run",
    async () => {
      // the steps README gives, done here the same way (npm pack, the tarball installed, tsc --init
      // --types node, tsc, node): typescript is this repository's, and the project's other packages
      // are packed from its node_modules instead of fetched
      const readme = readmeClientSection();
      const steps = readme.shell.join('\n');
      for (const step of [
        'cd clients/typescript && npm pack',
        'npm pkg set type=module',
        'npm install <this repository>/clients/typescript/support-platform-client-0.1.0.tgz',
        'npx tsc --init --types node',
        'npx tsc && API_URL=http://127.0.0.1:$PORT API_KEY=itsm_sk_test_… node page-tickets.js',
      ])
        expect(steps).toContain(step);
      expect(readme.script).toContain("from '@support-platform/client'");
      expect(readme.script.trimEnd().split('\n').length).toBeLessThanOrEqual(10);
      const dir = mkdtempSync(join(tmpdir(), 'client-package-'));
      try {
        const tgz = join(dir, 'tgz');
        const app = join(dir, 'app');
        const cache = join(dir, 'npm-cache');
        mkdirSync(tgz);
        // `npm pack` builds first (prepack: `npm run build`, tsc to ESM + .d.ts)
        await npm(['pack', '--pack-destination', tgz], CLIENT_DIR, cache);
        await npm(
          [
            'pack',
            '--ignore-scripts',
            '--pack-destination',
            tgz,
            ...PACKED_DEPENDENCIES.map((name) => join(ROOT, 'node_modules', name)),
          ],
          ROOT,
          cache,
        );
        const tarballs = readdirSync(tgz).map((name) => join(tgz, name));
        expect(tarballs.filter((p) => p.includes('support-platform-client-0.1.0.tgz')).length).toBe(1);
        expect(tarballs.length).toBe(PACKED_DEPENDENCIES.length + 1);

        // what `npm init -y && npm pkg set type=module` leaves, then the install and `tsc --init`
        mkdirSync(app);
        writeFileSync(
          join(app, 'package.json'),
          JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module' }),
        );
        await npm(['install', ...tarballs], app, cache);
        const installed = JSON.parse(
          readFileSync(join(app, 'node_modules', '@support-platform', 'client', 'package.json'), 'utf8'),
        );
        // every bare import of the shipped JavaScript is a declared dependency; none is Node's
        const shipped = readdirSync(join(app, 'node_modules', '@support-platform', 'client', 'dist'), {
          recursive: true,
        })
          .map(String)
          .filter((name) => name.endsWith('.js'))
          .map((name) =>
            readFileSync(join(app, 'node_modules', '@support-platform', 'client', 'dist', name), 'utf8'),
          )
          .join('\n');
        const imports = new Set([...shipped.matchAll(/from '([^'.][^']*)'/g)].map((m) => m[1]));
        expect([...imports].sort()).toEqual(Object.keys(installed.dependencies).sort());

        await tsc(['--init', '--types', 'node'], app);
        const tsconfig = readFileSync(join(app, 'tsconfig.json'), 'utf8');
        expect(tsconfig).toMatch(/"module": "nodenext"/);
        expect(tsconfig).toMatch(/"exactOptionalPropertyTypes": true/);
        // a Worker or a browser: no Node types; and exactOptionalPropertyTypes off, as older configs have it
        writeFileSync(
          join(app, 'tsconfig.worker.json'),
          JSON.stringify({
            extends: './tsconfig.json',
            compilerOptions: { types: [], exactOptionalPropertyTypes: false, noEmit: true },
            files: ['worker.ts'],
          }),
        );
        writeFileSync(join(app, 'page-tickets.ts'), readme.script);
        writeFileSync(join(app, 'worker.ts'), WORKER_SOURCE);
        // tsc --init's defaults (exactOptionalPropertyTypes on) emit the JavaScript run below
        await Promise.all([
          tsc(['-p', 'tsconfig.json'], app),
          tsc(['-p', 'tsconfig.worker.json'], app),
        ]).catch((e: { stdout?: string }) => {
          throw new Error(`tsc failed in the fresh project:\n${e.stdout}`);
        });
        // bundled for a browser or a Worker: no Node built-in on the way
        await build({
          entryPoints: [join(app, 'worker.js')],
          bundle: true,
          platform: 'browser',
          format: 'esm',
          conditions: ['worker', 'browser'],
          write: false,
          logLevel: 'silent',
        });

        const t = await h.tenant();
        const k = await t.key(['tickets:read', 'tickets:write']);
        const api = createSupportClient({ baseUrl, apiKey: k });
        const { data } = await api.POST('/api/v1/tickets', { body: { subject: 'Packed', priority: 'low' } });
        const out = await run(process.execPath, ['page-tickets.js'], {
          cwd: app,
          env: { ...process.env, API_URL: baseUrl, API_KEY: k },
        });
        expect(out.stdout.trim()).toBe(`${data!.id} low Packed`);

        const worker = (await import(pathToFileURL(join(app, 'worker.js')).href)) as {
          default: { fetch(r: Request, env: { WEBHOOK_SECRET: string }): Promise<Response> };
        };
        const secret = 'whsec_client_package_test';
        const signed = await buildSignedRequest({
          secret,
          deliveryId: 'dlv_1',
          eventType: 'ticket.created',
          eventTimestamp: '2026-01-01T00:00:00.000Z',
          data: { ticket: { id: data!.id, subject: 'Packed', status: 'open', priority: 'low' } },
        });
        const deliver = (body: string) =>
          worker.default.fetch(
            new Request('http://receiver.test/', { method: 'POST', headers: signed.headers, body }),
            { WEBHOOK_SECRET: secret },
          );
        const ok = await deliver(signed.body);
        expect(ok.status).toBe(200);
        expect(await ok.json()).toEqual({ signed: true, subject: 'Packed' });
        expect((await deliver(signed.body.replace('Packed', 'Forged'))).status).toBe(401);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
