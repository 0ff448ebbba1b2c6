// /docs/try (Swagger UI) in headless Chromium against `npm start`: on each main list and on
// createTicket, "Try it out" then "Execute" with the request Swagger UI builds from the document's
// examples (every example pre-filled, as a newcomer sends it) answers 2xx in the response panel.
// The credential is the one each operation takes, holding only the scopes the document names.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCaller,
  type ConsoleServer,
  chromiumMissing,
  DEMO_ADMIN,
  launchChromium,
  sessionToken,
  startConsoleServer,
} from './server';

/** API-key operations, tried with a key holding their `x-required-scopes`. */
const API_KEY_OPERATIONS = [
  'listTickets',
  'listCalls',
  'listConversationsV1',
  'listWebhookDeliveries',
  'createTicket',
];
/** Dashboard-only operations, tried with a dashboard session. */
const SESSION_OPERATIONS = ['listContacts', 'listCompanies', 'listConversationsV2', 'listAuditLogEntries'];

// Swagger UI builds its page from the whole document first: slow on a busy 2-core machine
const SWAGGER_READY_MS = 120_000;

describe.skipIf(chromiumMissing())('/docs/try: Execute succeeds with the pre-filled examples', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let token: string;
  let webhookId: string;
  let doc: {
    paths: Record<string, Record<string, { operationId?: string; 'x-required-scopes'?: string[] }>>;
  };

  const { call } = apiCaller(
    () => server.base,
    () => token,
  );

  beforeAll(async () => {
    server = await startConsoleServer();
    browser = await launchChromium();
    token = await sessionToken(server.base, DEMO_ADMIN.email, DEMO_ADMIN.password);
    doc = await (await fetch(`${server.base}/api/v1/openapi.json`)).json();
    // the delivery log is a webhook's: one to list (its path id is filled in, not the example's)
    webhookId = (
      await call<{ id: string }>('POST', '/api/v1/webhooks', {
        url: 'https://localhost/docs-try',
        events: ['ticket.created'],
      })
    ).id;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const scopesOf = (operationId: string) => {
    for (const item of Object.values(doc.paths))
      for (const op of Object.values(item))
        if (op.operationId === operationId) return op['x-required-scopes'] ?? [];
    throw new Error(`${operationId} is not in the document`);
  };

  /** /docs/try with the given security scheme authorized, once Swagger UI has drawn the operations. */
  async function swagger(scheme: string, credential: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.base}/docs/try`);
    await page.locator('.opblock').first().waitFor({ timeout: SWAGGER_READY_MS });
    await page.evaluate(
      ([s, c]) =>
        (
          window as unknown as { ui: { preauthorizeApiKey(s: string, c: string): void } }
        ).ui.preauthorizeApiKey(s!, c!),
      [scheme, credential],
    );
    return page;
  }

  /**
   * The operation's block, scrolled to: Swagger UI draws only the operations near the viewport (a
   * virtual list), so the page is scrolled down from the top until the block exists.
   */
  async function reveal(page: Page, operationId: string) {
    const op = page.locator(`.opblock[id^="operations-"][id$="-${operationId}"]`);
    await page.evaluate(() => window.scrollTo(0, 0));
    for (;;) {
      if ((await op.count()) > 0) return op;
      const moved = await page.evaluate(() => {
        const before = window.scrollY;
        window.scrollBy(0, window.innerHeight * 0.8);
        return window.scrollY !== before;
      });
      // a scroll is drawn on the next frame
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      if (!moved && (await op.count()) === 0) throw new Error(`${operationId} is not on /docs/try`);
    }
  }

  /** Try it out, Execute, and the status the response panel shows (with its body when not 2xx). */
  async function execute(page: Page, operationId: string, path: Record<string, string> = {}) {
    const op = await reveal(page, operationId);
    await op.locator('.opblock-summary').first().click();
    await op.locator('.try-out__btn').click();
    for (const [name, value] of Object.entries(path))
      await op.locator(`tr[data-param-name="${name}"][data-param-in="path"] input`).fill(value);
    await op.locator('button.execute').click();
    const status = op.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    const code = (await status.textContent())?.trim() ?? '';
    const body = /^2/.test(code)
      ? ''
      : await op.locator('.live-responses-table tr.response .response-col_description').first().textContent();
    return `${code}${body ? ` ${body}` : ''}`;
  }

  it(
    'with an API key: each list and createTicket answer 2xx',
    async () => {
      const scopes = [...new Set(API_KEY_OPERATIONS.flatMap(scopesOf))];
      const { api_key: key } = await call<{ api_key: string }>('POST', '/api/v1/api-keys', {
        name: 'Try it out',
        scopes,
      });
      const page = await swagger('ApiKeyHeader', key);
      const answers: Record<string, string> = {};
      for (const id of API_KEY_OPERATIONS)
        answers[id] = await execute(page, id, id === 'listWebhookDeliveries' ? { id: webhookId } : {});
      expect(answers).toEqual({
        listTickets: '200',
        listCalls: '200',
        listConversationsV1: '200',
        listWebhookDeliveries: '200',
        createTicket: '201',
      });
      await page.close();
    },
    SWAGGER_READY_MS + 120_000,
  );

  it(
    'with a dashboard session: each dashboard list answers 2xx',
    async () => {
      const page = await swagger('BearerAuth', token);
      const answers: Record<string, string> = {};
      for (const id of SESSION_OPERATIONS) answers[id] = await execute(page, id);
      expect(answers).toEqual(Object.fromEntries(SESSION_OPERATIONS.map((id) => [id, '200'])));
      await page.close();
    },
    SWAGGER_READY_MS + 120_000,
  );
});
