// In headless Chromium at 1280 and 390 wide: the Conversations page reached from the navigation,
// filtered by status and channel, and a conversation's page with its messages oldest first (who
// sent each, when, its text) and a message's file by name and size, downloaded from the keyboard
// through its signed link with exactly the bytes that were uploaded.
import { readFile } from 'node:fs/promises';
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

describe.skipIf(chromiumMissing())('the console: conversations and their files', () => {
  let server: ConsoleServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let token = '';
  const pageErrors: string[] = [];
  const SUBJECT = 'Invoice 2026-114 is wrong';
  const ASKED = 'Hello, the invoice you sent charges us twice.';
  const ANSWERED = 'Sorry about that: the corrected invoice is attached.';
  const NOTE = 'Refund approved by finance.';
  const FILE = 'invoice 2026-114.pdf';
  // every byte value, so a download that re-encoded the file (as text, say) would not compare equal
  const BYTES = Buffer.from(Array.from({ length: 1024 }, (_, i) => i % 256));
  let conversationId = '';
  let agentName = '';

  const { call } = apiCaller(
    () => server.base,
    () => token,
  );

  beforeAll(async () => {
    server = await startConsoleServer();
    browser = await launchChromium();
    token = await sessionToken(server.base, DEMO_ADMIN.email, DEMO_ADMIN.password);
    const me = await call('GET', '/api/v1/auth/me');
    const user = me.user as Json;
    agentName = String(user.name || user.email);
    // the contact writes first, through the public widget: a widget conversation with its message
    const asked = await call(
      'POST',
      '/api/v1/widget/messages',
      { tenant_id: (me.tenant as Json).id, email: 'ana@customer.example', name: 'Ana Silva', body: ASKED },
      '',
    );
    conversationId = String(asked.conversation_id);
    await call('PATCH', `/api/v2/conversations/${conversationId}`, { subject: SUBJECT });
    const upload = await fetch(
      `${server.base}/api/v1/conversations/${conversationId}/attachments?filename=${encodeURIComponent(FILE)}`,
      {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/pdf' },
        body: BYTES,
      },
    );
    if (upload.status !== 201) throw new Error(`upload: ${upload.status} ${await upload.text()}`);
    const file = (await upload.json()) as Json;
    await call('POST', `/api/v2/conversations/${conversationId}/messages`, {
      body: ANSWERED,
      attachment_ids: [file.id],
    });
    await call('POST', `/api/v2/conversations/${conversationId}/messages`, { body: NOTE, is_internal: true });
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const signedIn = async (size: { width: number; height: number }) => {
    const context = await browser.newContext({ viewport: size, acceptDownloads: true });
    const p = await context.newPage();
    p.on('pageerror', (e) => pageErrors.push(String(e)));
    p.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/.test(m.text())) pageErrors.push(m.text());
    });
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
  /** Tab from the page's title until `name`'s link has focus: it is reachable without a mouse. */
  const tabTo = async (p: Page, name: string) => {
    await p.locator('#page-title').focus();
    for (let presses = 0; presses < 80; presses++) {
      await p.keyboard.press('Tab');
      if (await p.evaluate((n) => document.activeElement?.textContent === n, name)) return;
    }
    throw new Error(`Tab never reached the link ${name}`);
  };

  for (const [label, size] of SIZES) {
    it(`the conversations list filters, and a conversation shows its messages and downloads its file (${label})`, async () => {
      const p = await signedIn(size);
      await p
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Conversations', exact: true })
        .click();
      await p.getByRole('heading', { level: 1, name: 'Conversations' }).waitFor();
      const row = p.locator(`tr[data-conversation="${conversationId}"]`);
      await expect.poll(() => row.count()).toBe(1);
      expect(await row.innerText()).toMatch(/open/);
      expect(await row.innerText()).toMatch(/widget/);
      await noSidewaysScroll(p);

      // another channel has none of them; this one's open conversations have it again
      await p.getByLabel('Channel').selectOption('email');
      await p.getByText('No conversations match these filters.').waitFor();
      await p.getByLabel('Channel').selectOption('widget');
      await p.getByLabel('Status').selectOption('open');
      await expect.poll(() => row.count()).toBe(1);
      await p.getByLabel('Status').selectOption('closed');
      await expect.poll(() => row.count()).toBe(0);
      await p.getByLabel('Status').selectOption('');

      await row.getByRole('link', { name: SUBJECT }).click();
      await p.getByRole('heading', { level: 1, name: SUBJECT }).waitFor();
      expect(new URL(p.url()).pathname).toBe(`/console/conversations/${conversationId}`);
      const messages = p.getByRole('list', { name: 'Messages' }).locator(':scope > li');
      await expect.poll(() => messages.count()).toBeGreaterThanOrEqual(3);
      // the senders' names load beside the messages: an id shows until they have
      const asked = async () => (await messages.allInnerTexts()).find((t) => t.includes(ASKED)) ?? '';
      await expect.poll(asked).toMatch(/Ana Silva|ana@customer\.example/);
      await expect.poll(async () => (await messages.allInnerTexts()).join('\n')).toContain(agentName);
      const texts = await messages.allInnerTexts();
      const at = (text: string) => texts.findIndex((t) => t.includes(text));
      // oldest first: the contact's question, the agent's answer, then the note
      expect(at(ASKED)).toBeGreaterThanOrEqual(0);
      expect(at(ASKED)).toBeLessThan(at(ANSWERED));
      expect(at(ANSWERED)).toBeLessThan(at(NOTE));
      expect(texts[at(ASKED)]).toMatch(/Ana Silva|ana@customer\.example/);
      expect(texts[at(ASKED)]).toMatch(/contact/);
      expect(texts[at(ANSWERED)]).toContain(agentName);
      expect(texts[at(NOTE)]).toMatch(/internal note/);
      expect(texts[at(ANSWERED)]).toMatch(/ago|now/);

      // the answer's file, by name and size, downloads from the keyboard with the uploaded bytes
      const file = messages.nth(at(ANSWERED)).locator(`li[data-attachment="${FILE}"]`);
      await expect.poll(() => file.getByRole('link', { name: FILE }).count()).toBe(1);
      expect(await file.innerText()).toMatch('1.0 KB');
      await tabTo(p, FILE);
      const [download] = await Promise.all([p.waitForEvent('download'), p.keyboard.press('Enter')]);
      expect(download.suggestedFilename()).toBe(FILE);
      expect((await readFile(await download.path())).equals(BYTES)).toBe(true);
      await noSidewaysScroll(p);
      await p.context().close();
    });
  }

  it('an unknown conversation says so, with no page error anywhere', async () => {
    const p = await signedIn(SIZES[0][1]);
    await p.goto(`${server.base}/console/conversations/cnv_unknown`);
    await p.getByRole('heading', { level: 1, name: 'Conversation not found' }).waitFor();
    await p.getByText('Conversation not found', { exact: true }).last().waitFor();
    await p.context().close();
    expect(pageErrors).toEqual([]);
  });
});
