// The docs Worker serves documents built at build time (functions/docs/worker.ts,
// scripts/edge/docs-worker.ts) instead of building them from the route registry at startup: every
// answer must be byte for byte the embedded server's, and the Worker's entry must not import the
// registry (its schemas were most of the Worker's startup) nor marked (the page is rendered ahead).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { app } from '../../functions/docs/app';
import { docsApp } from '../../functions/docs/worker';
import { DOCS_WORKER_ENTRY, ROOT } from '../../scripts/edge/config';
import { builtDocuments, prepareDocsWorker } from '../../scripts/edge/docs-worker';

const PATHS = [
  '/',
  '/openapi.json',
  '/api/v1/openapi.json',
  '/api/internal/openapi.json',
  '/docs',
  '/docs/',
  '/docs/try',
  '/docs/assets/docs.css',
  '/docs/assets/docs.js',
  '/docs/assets/docs-init.js',
  '/docs/assets/nope.js',
];

async function answer(
  target: { request: (r: Request) => Response | Promise<Response> },
  path: string,
  encoding: string,
) {
  const res = await target.request(
    new Request(`https://api.example.test${path}`, { headers: { 'accept-encoding': encoding } }),
  );
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    body: Buffer.from(await res.arrayBuffer()).toString('base64'),
  };
}

describe('the docs Worker over documents built ahead', () => {
  const prebuilt = docsApp(builtDocuments());

  it.each(['identity', 'gzip', 'br'])(
    'answers every docs path as the embedded server does (Accept-Encoding %s)',
    async (encoding) => {
      for (const path of PATHS) {
        const expected = await answer(app, path, encoding);
        expect({ path, ...(await answer(prebuilt, path, encoding)) }).toEqual({ path, ...expected });
      }
    },
  );

  it('answers a conditional request with the same ETag 304', async () => {
    const first = await app.request('https://api.example.test/api/v1/openapi.json');
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const res = await prebuilt.request('https://api.example.test/api/v1/openapi.json', {
      headers: { 'if-none-match': etag! },
    });
    expect(res.status).toBe(304);
  });

  describe('its generated entry', () => {
    const dir = mkdtempSync(join(tmpdir(), 'docs-worker-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('embeds the documents and the page, and imports no route declarations nor marked', async () => {
      const entry = prepareDocsWorker();
      expect(entry).toBe(DOCS_WORKER_ENTRY);
      expect(readFileSync(entry, 'utf8')).toContain(JSON.stringify(builtDocuments().public));
      const result = await build({
        absWorkingDir: ROOT,
        entryPoints: [entry],
        bundle: true,
        outdir: dir,
        format: 'esm',
        platform: 'neutral',
        mainFields: ['workerd', 'worker', 'browser', 'module', 'main'],
        conditions: ['workerd', 'worker', 'browser'],
        metafile: true,
        logLevel: 'silent',
      });
      const inputs = Object.keys(result.metafile.inputs);
      expect(inputs).toContain('functions/docs/worker.ts');
      // the registry, and with it every function's routes and schemas, stays out
      expect(
        inputs.filter(
          (f) => f === 'functions/registry.ts' || /^functions\/(?!docs\/)[^/]+\/routes\.ts$/.test(f),
        ),
      ).toEqual([]);
      // the reference page's Markdown is rendered at build time: marked is not evaluated at startup
      expect(inputs.filter((f) => f.includes('node_modules/marked/'))).toEqual([]);
      expect(existsSync(join(dir, 'index.js'))).toBe(true);
    });
  });
});
