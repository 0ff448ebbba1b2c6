// The reference page as the docs Worker serves it in workerd: the page and the OpenAPI document
// compressed per Accept-Encoding (the bytes on the wire really are br/gzip, and decode to the page),
// ETag revalidation, content-hashed files cached for good, and the page in headless Chromium
// (Debian's) with its first operation shown, no failed or foreign request, and the examples naming
// the server the page came from.
import { existsSync } from 'node:fs';
import { get } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const base = () => inject('edgeUrl');

/** The raw answer (no client-side decoding): status, headers, bytes as sent. */
function raw(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }>(
    (resolve, reject) => {
      get(`${base()}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      }).on('error', reject);
    },
  );
}

describe('/docs from the docs Worker', () => {
  it.each([
    ['br', brotliDecompressSync],
    ['gzip', gunzipSync],
  ] as const)('sends the page and the document %s-encoded', async (encoding, decode) => {
    for (const [path, marker] of [
      ['/docs', '<details class="op" id="createTicket"'],
      ['/api/v1/openapi.json', '"openapi":"3.1'],
    ] as const) {
      const res = await raw(path, { 'Accept-Encoding': encoding });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      const text = decode(res.bytes).toString('utf8');
      expect(text).toContain(marker);
      expect(res.bytes.length).toBeLessThan(text.length / 5);
    }
    // no request without Accept-Encoding here: Cloudflare (and workerd) hand every request to a
    // Worker with `Accept-Encoding: br, gzip` and decode the answer for a client that takes neither
  });

  it('revalidates by ETag, and caches its content-hashed files for good', async () => {
    const page = await raw('/docs', { 'Accept-Encoding': 'gzip' });
    const etag = String(page.headers.etag);
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    expect((await raw('/docs', { 'Accept-Encoding': 'gzip', 'If-None-Match': etag })).status).toBe(304);
    const files = [
      ...gunzipSync(page.bytes)
        .toString('utf8')
        .matchAll(/(\/docs\/assets\/docs\.(?:css|js)\?v=[0-9a-f]+)/g),
    ];
    expect(files).toHaveLength(2);
    for (const [path] of files) {
      const res = await raw(path, { 'Accept-Encoding': 'gzip' });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
  });

  it.skipIf(!existsSync(CHROMIUM) && process.env.CI !== 'true')(
    'shows its first operation in Chromium, with no failed or foreign request',
    async () => {
      if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: apt-get install -y chromium`);
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      });
      try {
        const page = await browser.newPage();
        const problems: string[] = [];
        page.on('request', (r) => {
          if (!r.url().startsWith(base())) problems.push(`foreign: ${r.url()}`);
        });
        page.on('requestfailed', (r) => problems.push(`${r.url()} ${r.failure()?.errorText}`));
        page.on('response', (r) => {
          if (r.status() >= 400) problems.push(`${r.url()} ${r.status()}`);
        });
        page.on('pageerror', (e) => problems.push(String(e)));
        await page.goto(`${base()}/docs`, { waitUntil: 'load' });
        await page.locator('details.op').first().waitFor({ state: 'visible', timeout: 10_000 });
        const create = page.locator('details#createTicket');
        await create.locator('summary').click();
        // the Workers' PUBLIC_BASE_URL when set, else the page's own origin
        const shown = await create.locator('pre.curl .base-url').textContent();
        expect(shown).toBe(inject('edgeBindings').PUBLIC_BASE_URL || base());
        expect(problems).toEqual([]);
        expect(await page.title()).toContain('API reference');
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
