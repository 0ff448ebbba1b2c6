// The console's Search page in headless Chromium at 1280 and 390 wide: a query in the API's
// language finds tickets, contacts and companies, the matches are marked in the fragments (as text,
// never as markup), a malformed query shows the API's message with its position, and the query
// lives in the address so a reload keeps it.
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

const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

describe.skipIf(chromiumMissing())('the console: search', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let token = '';
  const pageErrors: string[] = [];

  const { call } = apiCaller(
    () => server.base,
    () => token,
  );

  beforeAll(async () => {
    server = await startConsoleServer();
    browser = await launchChromium();
    token = await sessionToken(server.base, DEMO_ADMIN.email, DEMO_ADMIN.password);
    await call('POST', '/api/v1/tickets', {
      subject: 'Zeppelin printer on fire',
      description: 'Smoke from the <b>zeppelin</b> unit.',
    });
    await call('POST', '/api/v2/contacts', {
      first_name: 'Zelda',
      last_name: 'Zeppelin',
      email: 'zelda@zep.example',
    });
    await call('POST', '/api/v2/companies', { name: 'Zeppelin Works', domain: 'zeppelin.example' });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const signedIn = async (size: (typeof SIZES)[number]) => {
    const context = await browser.newContext({ viewport: size });
    const p = await context.newPage();
    p.on('pageerror', (e) => pageErrors.push(String(e)));
    await p.goto(`${server.base}/console/`);
    await p.getByLabel('Email').fill(DEMO_ADMIN.email);
    await p.getByLabel('Password').fill(DEMO_ADMIN.password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('navigation', { name: 'Console' }).waitFor();
    return p;
  };
  const hits = (p: Page) => p.getByRole('list', { name: 'Search results' }).getByRole('listitem');

  for (const size of SIZES) {
    it(`finds every type, marks the matches as text, keeps the query in the address (${size.width} wide)`, async () => {
      const p = await signedIn(size);
      await p
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Search', exact: true })
        .click();
      await p.getByRole('searchbox', { name: 'Search query' }).fill('zeppelin');
      await p.getByRole('button', { name: 'Search', exact: true }).click();
      await expect.poll(() => hits(p).count()).toBe(3);
      const text = await hits(p).allInnerTexts();
      expect(text.join('\n')).toMatch(/Zeppelin printer on fire/);
      expect(text.join('\n')).toMatch(/Zelda Zeppelin/);
      expect(text.join('\n')).toMatch(/Zeppelin Works/);
      // every match marked, and the ticket's "<b>" shown as the text it is, not as bold
      const marks = await p.locator('.search-hits mark').allInnerTexts();
      expect(marks.length).toBeGreaterThanOrEqual(4);
      for (const m of marks) expect(m.toLowerCase()).toBe('zeppelin');
      expect(await p.locator('.search-hits b').count()).toBe(0);
      expect(text.join('\n')).toContain('<b>');
      // no horizontal scrolling at either width
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      // narrowed to companies, then reloaded: the address keeps both
      await p.getByRole('checkbox', { name: 'Tickets' }).uncheck();
      await p.getByRole('checkbox', { name: 'Contacts' }).uncheck();
      await p.getByRole('checkbox', { name: 'Conversations' }).uncheck();
      // the address first: with tickets and contacts off, the one hit is there before the last uncheck lands
      await expect.poll(() => new URL(p.url()).searchParams.get('types')).toBe('company');
      await expect.poll(() => hits(p).count()).toBe(1);
      await p.reload();
      await expect.poll(() => hits(p).count()).toBe(1);
      expect(await p.getByRole('searchbox', { name: 'Search query' }).inputValue()).toBe('zeppelin');
      await p.context().close();
    });
  }

  it('a malformed query shows what is wrong and where; nothing matching says so', async () => {
    const p = await signedIn(SIZES[0]);
    await p.goto(`${server.base}/console/search`);
    await p.getByRole('searchbox', { name: 'Search query' }).fill('printer "on fire');
    await p.getByRole('button', { name: 'Search', exact: true }).click();
    await expect
      .poll(() => p.locator('#search-error').innerText())
      .toMatch(/unterminated phrase at position 8/);
    await p.getByRole('searchbox', { name: 'Search query' }).fill('qqqnothingqqq');
    await p.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => p.getByText('Nothing matches').count()).toBe(1);
    expect(pageErrors).toEqual([]);
    await p.context().close();
  });
});
