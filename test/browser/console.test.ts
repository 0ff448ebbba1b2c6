// The console in headless Chromium against `npm start` (its own port and DATA_DIR): what a new tenant
// admin does, click by click. Sign in as the demo admin; create a key through the dialog (only the
// spec's scope groups) and call the API with it; subscribe a webhook to a local HTTPS receiver, see
// the delivery in the log and redeliver it; invite a colleague who then joins through the link of
// the development mail outbox. With CONSOLE_SCREENSHOTS=<dir> it also saves a PNG of every page
// (`npm run screenshots:console` writes docs/console/).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../clients/typescript/index';
import { type HttpsReceiver, startHttpsReceiver } from '../../scripts/lib/https-receiver';
import { KEY_DIALOG_SCOPE_GROUPS } from '../../shared/context/scopes';
import {
  type ConsoleServer,
  chromiumMissing,
  DEMO_ADMIN,
  endSessionWhileCreatingKey,
  launchChromium,
  startConsoleServer,
} from './server';

const SHOTS = process.env.CONSOLE_SCREENSHOTS;

describe.skipIf(chromiumMissing())('the console in a browser', () => {
  let server: ConsoleServer;
  let receiver: HttpsReceiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];

  const shot = async (name: string, p: Page = page) => {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    await p.screenshot({ path: join(SHOTS, `${name}.png`) });
  };

  const watch = (p: Page) => {
    p.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    p.on('pageerror', (e) => pageErrors.push(String(e)));
    p.on('console', (m) => process.env.DEBUG_CONSOLE && console.log('page:', m.text()));
    p.on('request', (r) => process.env.DEBUG_CONSOLE && console.log('req:', r.method(), r.url()));
  };

  /** a page of the sidebar (a breadcrumb may carry a link of the same name) */
  const nav = (p: Page, name: string) =>
    p.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });

  const signIn = async (p: Page, email: string, password: string) => {
    await p.goto(`${server.base}/console/`);
    await p.getByLabel('Email').fill(email);
    await p.getByLabel('Password').fill(password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('navigation', { name: 'Console' }).waitFor();
  };

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    server = await startConsoleServer();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    page = await context.newPage();
    watch(page);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  it('signs in as the demo admin', async () => {
    await page.goto(`${server.base}/console/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shot('sign-in');
    // a wrong password is the API's one 401 sentence, shown in the form
    await page.getByLabel('Email').fill(DEMO_ADMIN.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Invalid email or password');

    await signIn(page, DEMO_ADMIN.email, DEMO_ADMIN.password);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  });

  it('keeps the session across a reload of the tab (refresh token in an httpOnly cookie, none in storage)', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    const stored = await page.evaluate(() => ({
      local: localStorage.length,
      session: sessionStorage.length,
      cookies: document.cookie,
    }));
    expect(stored).toEqual({ local: 0, session: 0, cookies: '' });
    const [cookie] = await page.context().cookies(`${server.base}/api/v1/auth/session`);
    expect(cookie).toMatchObject({ name: 'itsm_refresh', httpOnly: true, secure: true, sameSite: 'Strict' });
    expect(cookie?.path).toBe('/api/v1/auth');
  });

  it('on a 401 it refreshes the session and retries, keeping the page', async () => {
    let refreshed = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/v1/auth/session')) refreshed++;
    });
    let failedOnce = false;
    await page.route('**/api/v1/api-keys*', async (route) => {
      if (failedOnce) return route.continue();
      failedOnce = true;
      await route.fulfill({ status: 401, json: { detail: 'Invalid or expired session token' } });
    });
    await nav(page, 'Webhooks').click();
    await nav(page, 'API keys').click();
    await page.getByRole('button', { name: 'Create key' }).waitFor();
    await expect.poll(() => failedOnce).toBe(true);
    await expect.poll(() => refreshed).toBe(1);
    await page.getByText('No API keys yet').waitFor();
    await page.unroute('**/api/v1/api-keys*');
  });

  it('when the session ends, a sign-in dialog keeps the page and its unsaved input', async () => {
    const { dialog, ended: again } = await endSessionWhileCreatingKey(page);
    await again.getByLabel('Email').fill(DEMO_ADMIN.email);
    await again.getByLabel('Password').fill(DEMO_ADMIN.password);
    await again.getByRole('button', { name: 'Sign in' }).click();
    await again.waitFor({ state: 'detached' });
    expect(await dialog.getByLabel('Name').inputValue()).toBe('Typed before the session ended');
    expect(await dialog.getByLabel('calls:read').isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  let keySecret = '';
  it('creates a key through the dialog, which offers only the spec scope groups, and the key works', async () => {
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create API key' });
    await dialog.waitFor();
    const groups = await dialog.locator('fieldset.scope-group > legend').allTextContents();
    expect(groups).toEqual(KEY_DIALOG_SCOPE_GROUPS.map((g) => g.label));
    const offered = await dialog
      .locator('input[name=scope]')
      .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    expect(offered).toEqual(KEY_DIALOG_SCOPE_GROUPS.flatMap((g) => g.scopes));
    for (const apiOnly of ['billing:read', 'config:write', 'users:read', 'exports:read', 'usage:write'])
      expect(offered).not.toContain(apiOnly);

    await dialog.getByLabel('Name').fill('Browser test key');
    await dialog.getByLabel('tickets:read').check();
    await dialog.getByLabel('tickets:write').check();
    await shot('api-key-dialog');
    await dialog.getByRole('button', { name: 'Create key' }).click();

    const secretDialog = page.getByRole('dialog', { name: 'Key “Browser test key” created' });
    await secretDialog.waitFor();
    await expect.poll(() => secretDialog.getByRole('note').textContent()).toContain('shown only once');
    const secret = await secretDialog.getByTestId('secret').inputValue();
    expect(secret).toMatch(/^itsm_sk_test_/);
    keySecret = secret;
    await secretDialog.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await shot('api-key-secret');
    await secretDialog.getByRole('button', { name: 'I have copied it' }).click();

    const row = page.locator('tr', { hasText: 'Browser test key' });
    await row.waitFor();
    // listed by its start and the first 12 characters of its random part, never the secret
    const keyPrefix = secret.replace(/^itsm_sk_test_/, '').slice(0, 12);
    expect(await row.locator('td').nth(1).textContent()).toBe(`itsm_sk_test_${keyPrefix}…`);
    expect(await row.textContent()).not.toContain(secret);
    expect(await row.textContent()).toContain('active');
    await shot('api-keys');

    // the key calls the API with exactly its scopes
    const tickets = await fetch(`${server.base}/api/v1/tickets`, { headers: { 'X-API-Key': secret } });
    expect(tickets.status).toBe(200);
    const usage = await fetch(`${server.base}/api/v1/usage/summary`, { headers: { 'X-API-Key': secret } });
    expect(usage.status).toBe(403);
    expect(await usage.json()).toEqual({ detail: 'API key missing required scope: usage:read' });
  });

  it('revokes a key after confirmation, and the key stops working', async () => {
    const row = page.locator('tr', { hasText: 'Browser test key' });
    await row.locator('summary').click();
    await row.getByRole('button', { name: 'Revoke' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke key' });
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('revoked').waitFor();
    // a revoked key is refused on the very next request (docs/auth.md "API keys"): no grace period to poll through
    const res = await fetch(`${server.base}/api/v1/tickets`, { headers: { 'X-API-Key': keySecret } });
    expect(res.status).toBe(401);
  });

  let webhookSecret = '';
  it('subscribes a webhook to a local HTTPS receiver, with events from the catalog', async () => {
    receiver.plan('/console-hook', [500], 'success'); // the first attempt fails, the retry succeeds
    await nav(page, 'Webhooks').click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add endpoint' });
    await dialog.getByLabel('Endpoint URL').fill(receiver.url('/console-hook'));
    await dialog.getByLabel('ticket.created').check();
    await dialog.getByLabel('ticket.updated').check();
    await shot('webhook-dialog');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    const secretDialog = page.getByRole('dialog', { name: 'Endpoint added' });
    webhookSecret = await secretDialog.getByTestId('secret').inputValue();
    expect(webhookSecret.length).toBeGreaterThan(20);
    await secretDialog.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
    expect(page.url()).toMatch(/\/console\/webhooks\/[^/]+$/);
  });

  it('sees the delivery in the log, retried after a failure, with its timeline', async () => {
    await page.getByRole('button', { name: 'Send test event' }).click();
    const test = page.getByRole('dialog', { name: 'Send test event' });
    await expect.poll(() => test.getByLabel('Event type').inputValue()).toBe('ticket.created');
    await shot('webhook-test-event');
    await test.getByRole('button', { name: 'Send test event' }).click();
    const delivered = page.locator('tr[data-status=delivered]');
    await delivered.first().waitFor({ timeout: 30_000 });
    const row = delivered.first();
    expect(await row.textContent()).toContain('ticket.created');
    expect(await row.locator('td').nth(3).textContent()).toBe('200');
    expect(await row.getByRole('img').getAttribute('aria-label')).toBe('2 of 5 attempts');

    // what the receiver got: two signed POSTs of the same delivery
    const got = receiver.received('/console-hook');
    expect(got).toHaveLength(2);
    expect(got[0]?.headers['x-webhook-delivery-id']).toBe(got[1]?.headers['x-webhook-delivery-id']);
    for (const r of got)
      expect(
        await verifyWebhookSignature({ payload: r.body, headers: r.headers, secret: webhookSecret }),
      ).toBe(true);

    await row.getByRole('button', { name: 'ticket.created' }).click();
    const timeline = page.getByRole('list', { name: /Attempts of delivery/ });
    await timeline.waitFor();
    const steps = await timeline.locator('li').allTextContents();
    expect(steps[0]).toContain('ticket.created queued');
    // each attempt as the server recorded it (GET …/deliveries/{delivery_id}: `history`)
    expect(steps[1]).toContain('Attempt 1 failed');
    expect(steps[1]).toContain('HTTP 500');
    expect(steps[1]).toMatch(/\d+ ms/);
    expect(steps[2]).toContain('Attempt 2 delivered');
    expect(steps[2]).toContain('HTTP 200');
    expect(await timeline.locator('li time').count()).toBe(3); // queued, attempt 1, attempt 2
    // what attempt 1 sent and what the receiver answered
    const exchange = timeline.locator('details.exchange[data-attempt="1"]');
    await exchange.locator('summary').click();
    expect(await exchange.locator('code.signature').textContent()).toBe(
      got[0]?.headers['x-webhook-signature'],
    );
    expect(await exchange.locator('[data-part=response] h3').textContent()).toContain('HTTP 500');
    await shot('webhook-deliveries');
  });

  it('redelivers one delivery', async () => {
    const before = receiver.received('/console-hook').length;
    await page
      .locator('tr[data-status=delivered]')
      .first()
      .getByRole('button', { name: 'Redeliver' })
      .click();
    await page.getByRole('status').getByText('queued again').waitFor();
    await expect.poll(() => page.locator('tr[data-status=delivered]').count(), { timeout: 30_000 }).toBe(2);
    await expect.poll(() => receiver.received('/console-hook').length).toBe(before + 1);
  });

  it('disables and enables the endpoint', async () => {
    const toggle = page.getByRole('switch');
    await toggle.uncheck();
    await page.getByText('Endpoint disabled').waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true);
    await toggle.check();
    await page.getByText('Endpoint enabled.').waitFor();
    await nav(page, 'Webhooks').click();
    await page.locator('.card').first().waitFor();
    await shot('webhooks');
  });

  it('shows the audit log and the usage summary', async () => {
    await nav(page, 'Audit log').click();
    await page.locator('td', { hasText: 'api_key.created' }).first().waitFor();
    for (const action of ['api_key.revoked', 'webhook.created', 'webhook.updated'])
      expect(await page.locator('td', { hasText: action }).count(), action).toBeGreaterThan(0);
    await shot('audit-log');
    await nav(page, 'Usage').click();
    const requests = page.locator('[data-metric=api_requests] .big');
    await requests.waitFor();
    expect(Number((await requests.textContent())?.split('/')[0]?.replace(/\D/g, ''))).toBeGreaterThan(0);
    await shot('usage');
  });

  it('invites a colleague, who accepts through the emailed link and is signed in', async () => {
    const email = `agent.${Date.now()}@example.com`;
    await nav(page, 'Team').click();
    await page.getByRole('button', { name: 'Invite member' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite member' });
    await dialog.getByLabel('Email').fill(email);
    await dialog.getByLabel('Name (optional)').fill('Ada Agent');
    await shot('team-invite');
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    const sent = page.getByRole('dialog', { name: 'Invitation sent' });
    await sent.getByText(`We mailed an invitation to ${email}`).waitFor();
    await shot('team-invite-sent');
    await sent.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('status').getByText(`Invitation sent to ${email}`).waitFor();
    await page
      .locator(`tr[data-invitation-email="${email}"], tr[data-user-email="${email}"]`)
      .first()
      .waitFor();
    await shot('team');

    const link = await server.inviteLink(email);
    const theirs = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const p = await theirs.newPage();
      watch(p);
      await p.goto(link);
      await p.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
      // the token leaves the address bar at once (it must not linger in history or be shared)
      expect(p.url()).not.toContain('token=');
      await shot('accept-invite', p);
      await p.getByLabel('Password').fill('correct horse battery staple');
      // the session the acceptance issued opens the console: no second sign-in
      await p.getByRole('button', { name: 'Set password and sign in' }).click();
      await p.getByRole('navigation', { name: 'Console' }).waitFor();
      await p.locator('.who').getByText(email).waitFor();
      expect(await p.locator('.who').textContent()).toContain('agent');
      // an agent reaches the console, which offers nothing that only an admin may do
      await nav(p, 'Audit log').click();
      await p.getByRole('note').getByText('Only admins can read the audit log.').waitFor();
      await nav(p, 'API keys').click();
      await p.getByRole('note').getByText('Only admins can see and manage API keys.').waitFor();
      expect(await p.getByRole('button', { name: 'Create key' }).count()).toBe(0);
      await nav(p, 'Team').click();
      await p.locator(`tr[data-user-email="${email}"]`).waitFor();
      expect(await p.getByRole('button', { name: 'Invite member' }).count()).toBe(0);
      expect(await p.getByRole('button', { name: 'Remove' }).count()).toBe(0);
      for (const select of await p.getByRole('combobox').all()) expect(await select.isDisabled()).toBe(true);
      await nav(p, 'Webhooks').click();
      await p.locator('.card a').first().click();
      await p.getByRole('heading', { name: 'Delivery log' }).waitFor();
      await p.locator('tr[data-status=delivered]').first().waitFor();
      // the log and its timelines are readable; managing the endpoint is not offered
      for (const name of ['Delete', 'Recover failed…', 'Redeliver'])
        expect(await p.getByRole('button', { name }).count(), name).toBe(0);
      expect(await p.getByRole('switch').count()).toBe(0);
      await p.getByText('Only admins can add, pause, delete or redeliver webhooks').waitFor();
      await shot('agent-webhook', p);
    } finally {
      await theirs.close();
    }
  });

  it('signs out: the cookie is cleared and its refresh token no longer refreshes', async () => {
    const [cookie] = await page.context().cookies(`${server.base}/api/v1/auth/session`);
    expect(cookie?.value).toBeTruthy();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expect.poll(() => page.context().cookies(`${server.base}/api/v1/auth/session`)).toEqual([]);
    const res = await fetch(`${server.base}/api/v1/auth/refresh`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ refresh_token: cookie?.value }),
    });
    expect(res.status).toBe(401);
  });

  it('ran with no CSP violation and no script error', () => {
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
