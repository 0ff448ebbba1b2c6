// In headless Chromium at 1280 and 390 wide: the SLA badges on search results (due, and breached as
// the server's scheduled check records it), a ticket's page opened from them with its SLA and its
// attachments (the download link serves the stored bytes as an attachment, with no credential; an
// upload and a delete through the page), and an endpoint disabled by its failures shown with its
// health and enabled again from its page.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCaller,
  type ConsoleServer,
  chromiumMissing,
  DEMO_ADMIN,
  launchChromium,
  SIZES,
  sessionToken,
  startConsoleServer,
} from './server';

type Json = Record<string, unknown>;

describe.skipIf(chromiumMissing())('the console: SLA badges, a ticket and its files, endpoint health', () => {
  let server: ConsoleServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let token = '';
  const pageErrors: string[] = [];
  const ids = { due: '', breached: '', webhook: '' };
  const NOTE = 'Printer log: paper jam at 09:14\n';

  const { call } = apiCaller(
    () => server.base,
    () => token,
  );

  beforeAll(async () => {
    // an endpoint that fails is disabled a second after it starts failing (five days by default)
    process.env.WEBHOOK_DISABLE_AFTER_S = '1';
    server = await startConsoleServer();
    browser = await launchChromium();
    token = await sessionToken(server.base, DEMO_ADMIN.email, DEMO_ADMIN.password);
    // urgent tickets are due at once (and so breached by the scheduled check); others in 10 hours
    await call('POST', '/api/v2/sla-policies', {
      name: 'Urgent now',
      conditions: { priorities: ['urgent'] },
      first_response_minutes: 0,
    });
    await call('POST', '/api/v2/sla-policies', { name: 'Everything else', first_response_minutes: 600 });
    ids.breached = String(
      (await call('POST', '/api/v1/tickets', { subject: 'Zebra printer on fire', priority: 'urgent' })).id,
    );
    ids.due = String(
      (await call('POST', '/api/v1/tickets', { subject: 'Zebra printer jammed', priority: 'low' })).id,
    );
    const upload = await fetch(
      `${server.base}/api/v1/tickets/${ids.due}/attachments?filename=printer%20log.txt`,
      {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' },
        body: NOTE,
      },
    );
    if (upload.status !== 201) throw new Error(`upload: ${upload.status} ${await upload.text()}`);
    const hook = await call('POST', '/api/v1/webhooks', {
      url: 'https://localhost:1/hook',
      events: ['ticket.created'],
    });
    ids.webhook = String(hook.id);
    await call('POST', `/api/v2/webhooks/${ids.webhook}/test`, { event_type: 'ticket.created' });
    // the scheduled check records the breach with no request touching the ticket
    for (let tries = 0; ; tries++) {
      const sla = (await call('GET', `/api/v1/tickets/${ids.breached}`)).sla as Json;
      if (sla.first_response_breached === true) break;
      if (tries > 60) throw new Error(`no breach recorded: ${JSON.stringify(sla)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const signedIn = async (size: { width: number; height: number }) => {
    const context = await browser.newContext({ viewport: size, acceptDownloads: true });
    const p = await context.newPage();
    p.on('pageerror', (e) => pageErrors.push(String(e)));
    await p.goto(`${server.base}/console/`);
    await p.getByLabel('Email').fill(DEMO_ADMIN.email);
    await p.getByLabel('Password').fill(DEMO_ADMIN.password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('navigation', { name: 'Console' }).waitFor();
    return p;
  };
  const noSidewaysScroll = async (p: Page) =>
    expect(
      await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
  const hit = (p: Page, title: string) =>
    p.getByRole('list', { name: 'Search results' }).getByRole('listitem').filter({ hasText: title });

  for (const [label, size] of SIZES) {
    it(`search shows each ticket's SLA; a ticket's page lists, downloads, uploads and deletes files (${label})`, async () => {
      const p = await signedIn(size);
      await p.goto(`${server.base}/console/search?q=zebra&types=ticket`);
      await expect.poll(() => hit(p, 'Zebra printer').count()).toBe(2);
      expect(await hit(p, 'on fire').locator('[data-sla]').getAttribute('data-sla')).toBe('breached');
      expect(await hit(p, 'on fire').innerText()).toMatch(/SLA breached/);
      expect(await hit(p, 'jammed').locator('[data-sla]').getAttribute('data-sla')).toBe('due');
      expect(await hit(p, 'jammed').innerText()).toMatch(/SLA due\s+in 10 hours/);
      await noSidewaysScroll(p);

      await hit(p, 'jammed').getByRole('link', { name: 'Zebra printer jammed' }).click();
      await p.getByRole('heading', { level: 1, name: 'Zebra printer jammed' }).waitFor();
      expect(new URL(p.url()).pathname).toBe(`/console/tickets/${ids.due}`);
      const row = p.locator('tr[data-attachment="printer log.txt"]');
      await expect.poll(() => row.innerText()).toMatch(/text\/plain/);
      // the signed link needs no credential and serves the stored bytes as an attachment
      const href = (await row.getByRole('link', { name: 'printer log.txt' }).getAttribute('href')) ?? '';
      const download = await fetch(new URL(href, server.base));
      expect(download.status).toBe(200);
      expect(download.headers.get('content-disposition')).toMatch(/^attachment/);
      expect(await download.text()).toBe(NOTE);
      await noSidewaysScroll(p);

      const name = `screenshot-${size.width}.html`;
      await p
        .getByLabel('Add a file')
        .setInputFiles({ name, mimeType: 'text/html', buffer: Buffer.from('<b>hi</b>') });
      await p.getByRole('button', { name: 'Upload' }).click();
      const added = p.locator(`tr[data-attachment="${name}"]`);
      await expect.poll(() => added.count()).toBe(1);
      expect(await p.getByRole('status').filter({ hasText: 'uploaded' }).innerText()).toMatch(
        `${name} uploaded (9 B)`,
      );
      await added.getByRole('button', { name: `Delete ${name}` }).click();
      const confirm = p.getByRole('dialog', { name: 'Delete attachment' });
      await confirm.getByRole('button', { name: 'Delete' }).click();
      await expect.poll(() => added.count()).toBe(0);
      await p.context().close();
    });
  }

  it('an endpoint disabled by its failures shows its health, and Enable turns it back on', async () => {
    await expect
      .poll(async () => ((await call('GET', `/api/v1/webhooks/${ids.webhook}`)).health as Json).state, {
        timeout: 60_000,
        interval: 500,
      })
      .toBe('disabled');
    for (const [, size] of SIZES) {
      const p = await signedIn(size);
      await p.goto(`${server.base}/console/webhooks/${ids.webhook}`);
      const health = p.getByRole('region', { name: 'Endpoint health' });
      await expect.poll(() => health.innerText()).toMatch(/disabled/);
      expect(await health.innerText()).toMatch(/after failing since .+ago/);
      expect(await health.innerText()).toMatch(/last success never/);
      expect(await health.innerText()).toMatch(/failed deliver(y|ies) waiting to be re-sent/);
      await noSidewaysScroll(p);
      if (size === SIZES[1][1]) {
        await health.getByRole('button', { name: 'Enable' }).click();
        await expect.poll(() => health.getByRole('button', { name: 'Enable' }).count()).toBe(0);
        const after = await call('GET', `/api/v1/webhooks/${ids.webhook}`);
        expect(after.is_active).toBe(true);
        expect((after.health as Json).state).not.toBe('disabled');
        expect(await p.getByRole('switch').isChecked()).toBe(true);
      }
      await p.context().close();
    }
    expect(pageErrors).toEqual([]);
  });
});
