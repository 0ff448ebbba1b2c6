// /docs/try (Swagger UI) in headless Chromium under its own Content-Security-Policy (no inline
// script, no framing): Swagger UI must still start (its init script is a served file) and render the
// operations, with no CSP violation reported; and another page cannot frame /docs or /docs/try.
// test/browser/docs-page.test.ts drives the reference page /docs itself.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleServer, chromiumMissing, launchChromium, startConsoleServer } from './server';

describe.skipIf(chromiumMissing())('/docs and /docs/try under their Content-Security-Policy', () => {
  let server: ConsoleServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startConsoleServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** A page that records every CSP violation (the DOM event and the console's report) and page error. */
  async function watchedPage() {
    const page = await browser.newPage();
    const violations: string[] = [];
    const errors: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Content-Security-Policy/i.test(m.text())) violations.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    // injected by the browser's own protocol, outside the page's CSP
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { __csp: string[] }).__csp = seen;
      document.addEventListener('securitypolicyviolation', (e) =>
        seen.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    const reported = async (p: Page) => [
      ...violations,
      ...(await p.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? [])),
    ];
    return { page, errors, reported };
  }

  it.each(['/docs', '/docs/try'])(
    '%s sends the headers: CSP without inline script, frame-ancestors none, nosniff, Referrer-Policy',
    async (path) => {
      const res = await fetch(`${server.base}${path}`);
      const csp = res.headers.get('content-security-policy') ?? '';
      const directives = Object.fromEntries(
        csp.split(';').map((d) => {
          const [name, ...values] = d.trim().split(/\s+/);
          return [name, values.join(' ')];
        }),
      );
      expect(directives['script-src']).toBe("'self'");
      expect(directives['frame-ancestors']).toBe("'none'");
      expect(directives['default-src']).toBe("'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(await res.text()).not.toMatch(/<script>(?!<)/);
      const init = await fetch(`${server.base}/docs/assets/docs-init.js`);
      expect(init.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(await init.text()).toContain('SwaggerUIBundle(');
    },
  );

  it('Swagger UI starts and renders the operations, and nothing breaks the policy', async () => {
    const { page, errors, reported } = await watchedPage();
    const res = await page.goto(`${server.base}/docs/try`);
    expect(res?.status()).toBe(200);
    // the operations of the document, rendered by the served init script
    await page
      .locator('.opblock-summary-path', { hasText: '/api/v1/tickets' })
      .first()
      // Swagger UI builds its page from the whole document in the browser: tens of seconds on a
      // loaded two-core machine (the reason /docs itself is rendered on the server)
      .waitFor({ timeout: 100_000 });
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
    // expanding one works too (Swagger UI's own handlers run)
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock-body').first().waitFor();
    expect(await reported(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 150_000);

  it.each(['/docs', '/docs/try'])('another page cannot frame %s', async (path) => {
    const { page } = await watchedPage();
    await page.setContent(`<iframe id="f" src="${server.base}${path}" width="800" height="600"></iframe>`);
    await page.waitForTimeout(3000);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    const rendered = frame
      ? await frame
          .locator('.opblock, details.op')
          .count()
          .catch(() => 0)
      : 0;
    expect(rendered).toBe(0);
    await page.close();
  });
});
