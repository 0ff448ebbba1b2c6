/**
 * The HTML surfaces (/docs, /console) and everything under them answer with a CSP that runs no
 * inline script and forbids framing, nosniff and a Referrer-Policy (shared/http/html-security.ts).
 * test/browser/docs-csp.test.ts checks that Swagger UI still works under it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

const directives = (csp: string) =>
  Object.fromEntries(
    csp.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name, values];
    }),
  );

describe.skipIf(postgresUnavailable())('HTML surfaces: security headers', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  }, 120_000);
  afterAll(() => h?.close());

  for (const path of [
    '/docs',
    '/docs/try',
    '/docs/assets/docs.js',
    '/docs/assets/docs-init.js',
    '/docs/assets/nope.js',
    '/console',
    '/console/keys',
  ])
    it(`${path}: CSP without inline script, frame-ancestors 'none', nosniff, Referrer-Policy`, async () => {
      const res = await h.request('GET', path);
      const csp = directives(res.headers.get('content-security-policy') ?? '');
      expect(csp['script-src']).toEqual(["'self'"]);
      expect(csp['frame-ancestors']).toEqual(["'none'"]);
      expect(csp['default-src']).toEqual(["'none'"]);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    });

  it('/docs allows no inline style either: the reference page has none', async () => {
    const page = await h.request('GET', '/docs');
    expect(directives(page.headers.get('content-security-policy') ?? '')['style-src']).toEqual(["'self'"]);
    expect(page.text).not.toMatch(/<style|\sstyle=/);
    expect(page.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(page.text).toMatch(/<script src="\/docs\/assets\/docs\.js\?v=[0-9a-f]+" defer><\/script>/);
  });

  it('/docs/try has no inline script: Swagger UI starts from a served file', async () => {
    const page = await h.request('GET', '/docs/try');
    expect(page.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(page.text).toContain('<script src="/docs/assets/docs-init.js"></script>');
    const init = await h.request('GET', '/docs/assets/docs-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain("url: '/api/v1/openapi.json'");
  });
});
