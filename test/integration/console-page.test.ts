// The console function through the full chain (gate included): public, static, strict CSP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_VERSION } from '../../functions/console/assets.gen';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

describe.skipIf(postgresUnavailable())('/console', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());

  it('serves the page with no credential, for /console and every client-side route', async () => {
    for (const path of [
      '/console',
      '/console/',
      '/console/keys',
      '/console/webhooks/wh_123',
      '/console/accept-invite',
    ]) {
      const res = await h.request('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toContain(`/console/assets/console.js?v=${CONSOLE_VERSION}`);
      expect(res.text).not.toMatch(/<script>|<style>|style=/);
    }
  });

  it('sets a strict Content-Security-Policy and refuses framing', async () => {
    const res = await h.request('GET', '/console/keys');
    const csp = res.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(
      csp.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    expect(directives).toMatchObject({
      'default-src': "'none'",
      'script-src': "'self'",
      'style-src': "'self'",
      'connect-src': "'self'",
      'frame-ancestors': "'none'",
      'base-uri': "'none'",
    });
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves its script and stylesheet, cached for good only under the current version', async () => {
    const js = await h.request('GET', `/console/assets/console.js?v=${CONSOLE_VERSION}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect(js.headers.get('content-security-policy')).toBeTruthy();
    const css = await h.request('GET', '/console/assets/console.css?v=old');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.headers.get('cache-control')).toBe('no-cache');
  });

  it('answers an unknown asset with the standard 404', async () => {
    for (const file of ['nope.js', '__proto__', 'constructor']) {
      const res = await h.request('GET', `/console/assets/${file}`);
      expect(res.status, file).toBe(404);
      expect(res.body).toEqual({ detail: 'Not Found' });
    }
  });

  it('is not a way around the API: no credential still gets 401 there', async () => {
    const res = await h.request('GET', '/api/v1/api-keys', {
      headers: { Referer: 'http://127.0.0.1/console/keys' },
    });
    expect(res.status).toBe(401);
  });
});
