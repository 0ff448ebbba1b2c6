// The console's help desk pages in headless Chromium at 1280 and 390 wide: teams (members and
// routing), saved replies (visibility, the placeholder preview, an unknown placeholder refused),
// ticket fields (type, options, required) and business hours with SLA policies (time zone,
// intervals, targets): each created through its dialog, seen in its list, edited and deleted,
// every page without sideways scrolling. Each page's empty state is checked before anything exists.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleServer,
  chromiumMissing,
  DEMO_ADMIN,
  launchChromium,
  SIZES,
  startConsoleServer,
} from './server';

describe.skipIf(chromiumMissing())('the console: teams, saved replies, ticket fields, SLA', () => {
  let server: ConsoleServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startConsoleServer();
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const signedIn = async (size: { width: number; height: number }) => {
    const context = await browser.newContext({ viewport: size });
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
  const open = async (p: Page, label: string) => {
    await p
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: label, exact: true })
      .click();
    await p.getByRole('heading', { level: 1, name: label }).waitFor();
  };
  const noSidewaysScroll = async (p: Page) =>
    expect(
      await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
  /** a row's Actions menu, then one of its items */
  const rowAction = async (row: Locator, name: string, item: string) => {
    await row.locator(`summary[aria-label="Actions for ${name}"]`).click();
    await row.getByRole('button', { name: item, exact: true }).click();
  };
  const confirmDelete = async (p: Page, title: string) => {
    const dialog = p.getByRole('dialog', { name: title });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog.waitFor({ state: 'detached' });
  };

  it('each page says so when it has nothing yet', async () => {
    const p = await signedIn(SIZES[0][1]);
    await open(p, 'Teams');
    await p.getByText('No teams yet.').waitFor();
    await open(p, 'Saved replies');
    await p.getByText('No saved replies yet.').waitFor();
    await open(p, 'Ticket fields');
    await p.getByText('No ticket fields yet.').waitFor();
    await open(p, 'SLA');
    await p.getByText('No SLA policies yet').waitFor();
    await p.getByText('No business hours yet').waitFor();
    await p.context().close();
  });

  for (const [label, size] of SIZES) {
    it(`teams: create with a member and routing, edit, delete (${label})`, async () => {
      const p = await signedIn(size);
      await open(p, 'Teams');
      const name = `Billing ${size.width}`;
      await p.getByRole('button', { name: 'New team' }).click();
      const dialog = p.getByRole('dialog', { name: 'New team' });
      await dialog.getByLabel('Name').fill(name);
      await dialog.getByLabel('Description (optional)').fill('Invoices and refunds');
      await dialog.getByRole('radio', { name: /Round robin/ }).check();
      await dialog.getByRole('checkbox', { name: new RegExp(DEMO_ADMIN.email) }).check();
      await dialog.getByRole('button', { name: 'Create team' }).click();
      await dialog.waitFor({ state: 'detached' });
      const row = p.locator(`tr[data-team="${name}"]`);
      await expect.poll(() => row.innerText()).toMatch(/Round robin/);
      expect(await row.innerText()).toContain('Invoices and refunds');
      // the member by their name or address, not their id
      expect(await row.innerText()).not.toMatch(/tus_/);
      await noSidewaysScroll(p);

      await rowAction(row, name, 'Edit');
      const edit = p.getByRole('dialog', { name: 'Edit team' });
      expect(await edit.getByLabel('Name').inputValue()).toBe(name);
      await edit.getByRole('radio', { name: /Balanced/ }).check();
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await edit.waitFor({ state: 'detached' });
      await expect.poll(() => row.innerText()).toMatch(/Balanced/);

      await rowAction(row, name, 'Delete');
      await confirmDelete(p, 'Delete team');
      await expect.poll(() => row.count()).toBe(0);
      await p.context().close();
    });

    it(`saved replies: preview, an unknown placeholder refused, personal, edit, delete (${label})`, async () => {
      const p = await signedIn(size);
      await open(p, 'Saved replies');
      const title = `Refund ${size.width}`;
      await p.getByRole('button', { name: 'New saved reply' }).click();
      const dialog = p.getByRole('dialog', { name: 'New saved reply' });
      await dialog.getByLabel('Title').fill(title);
      await dialog.getByLabel('Text').fill('Hi {{contact.first_name}}, {{nope.nothing}}');
      await dialog.getByRole('button', { name: 'Create saved reply' }).click();
      // the API's 422 names the placeholder, in the dialog's footer
      await expect.poll(() => dialog.getByRole('alert').innerText()).toMatch(/nope\.nothing/);
      await dialog
        .getByLabel('Text')
        .fill('Hi {{contact.first_name}}, your refund for {{ticket.subject}} is on its way.');
      expect(await dialog.getByTestId('reply-preview').innerText()).toBe(
        'Hi Ada, your refund for Printer on fire is on its way.',
      );
      await dialog.getByRole('radio', { name: /Personal/ }).check();
      await dialog.getByRole('button', { name: 'Create saved reply' }).click();
      await dialog.waitFor({ state: 'detached' });
      const row = p.locator(`tr[data-reply="${title}"]`);
      await expect.poll(() => row.innerText()).toMatch(/personal \(yours\)/);
      await noSidewaysScroll(p);

      await rowAction(row, title, 'Edit');
      const edit = p.getByRole('dialog', { name: 'Edit saved reply' });
      await edit.getByRole('radio', { name: /Tenant-wide/ }).check();
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await edit.waitFor({ state: 'detached' });
      await expect.poll(() => row.innerText()).toMatch(/tenant-wide/);

      await rowAction(row, title, 'Delete');
      await confirmDelete(p, 'Delete saved reply');
      await expect.poll(() => row.count()).toBe(0);
      await p.context().close();
    });

    it(`ticket fields: a dropdown with options, edit, delete (${label})`, async () => {
      const p = await signedIn(size);
      await open(p, 'Ticket fields');
      const key = `plan_${size.width}`;
      await p.getByRole('button', { name: 'New field' }).click();
      const dialog = p.getByRole('dialog', { name: 'New ticket field' });
      await dialog.getByLabel('Label').fill('Plan');
      await dialog.getByLabel('Key').fill(key);
      await dialog.getByLabel('Type').selectOption('dropdown');
      await dialog.getByLabel('Options, one a line').fill('free\npro\nenterprise');
      await dialog.getByRole('checkbox', { name: /Required/ }).check();
      await dialog.getByRole('button', { name: 'Create field' }).click();
      await dialog.waitFor({ state: 'detached' });
      const row = p.locator(`tr[data-field="${key}"]`);
      await expect.poll(() => row.innerText()).toMatch(/Dropdown/);
      expect(await row.innerText()).toMatch(/required/);
      expect(await row.locator('.chips li').allInnerTexts()).toEqual(['free', 'pro', 'enterprise']);
      await noSidewaysScroll(p);

      await rowAction(row, 'Plan', 'Edit');
      const edit = p.getByRole('dialog', { name: 'Edit ticket field' });
      // the key and the type are fixed once created
      expect(await edit.getByLabel('Key').isDisabled()).toBe(true);
      await edit.getByLabel('Label').fill('Plan tier');
      await edit.getByLabel('Options, one a line').fill('free\npro');
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await edit.waitFor({ state: 'detached' });
      await expect.poll(() => row.innerText()).toMatch(/Plan tier/);
      expect(await row.locator('.chips li').allInnerTexts()).toEqual(['free', 'pro']);

      await rowAction(row, 'Plan tier', 'Delete');
      await confirmDelete(p, 'Delete ticket field');
      await expect.poll(() => row.count()).toBe(0);
      await p.context().close();
    });

    it(`SLA: business hours in a time zone and a policy on them; hours in use refused (${label})`, async () => {
      const p = await signedIn(size);
      await open(p, 'SLA');
      const hoursName = `Berlin office ${size.width}`;
      await p.getByRole('button', { name: 'New business hours' }).click();
      const hd = p.getByRole('dialog', { name: 'New business hours' });
      await hd.getByLabel('Name', { exact: true }).fill(hoursName);
      await hd.getByLabel('Time zone').fill('Europe/Berlin');
      await hd.getByLabel('Interval 5 end').fill('15:00');
      await hd.getByLabel(/Holidays/).fill('2026-12-25 Christmas Day');
      await hd.getByRole('button', { name: 'Create business hours' }).click();
      await hd.waitFor({ state: 'detached' });
      const hoursRow = p.locator(`tr[data-hours="${hoursName}"]`);
      await expect.poll(() => hoursRow.innerText()).toMatch(/Europe\/Berlin/);
      expect(await hoursRow.innerText()).toMatch(/Fri 09:00–15:00/);
      expect(await hoursRow.innerText()).toMatch(/2026-12-25 Christmas Day/);

      const policyName = `Urgent ${size.width}`;
      await p.getByRole('button', { name: 'New policy' }).click();
      const pd = p.getByRole('dialog', { name: 'New SLA policy' });
      await pd.getByLabel('Name', { exact: true }).fill(policyName);
      await pd.getByLabel('Counted in').selectOption({ label: `${hoursName} (Europe/Berlin)` });
      await pd.getByRole('checkbox', { name: 'urgent' }).check();
      await pd.getByLabel('First response', { exact: true }).fill('90');
      await pd.getByLabel('Resolution', { exact: true }).fill('480');
      await pd.getByRole('button', { name: 'Create policy' }).click();
      await pd.waitFor({ state: 'detached' });
      const policyRow = p.locator(`tr[data-policy="${policyName}"]`);
      await expect.poll(() => policyRow.innerText()).toMatch(/first response 1 h 30 min; resolution 8 h/);
      expect(await policyRow.innerText()).toMatch(/priority urgent/);
      expect(await policyRow.innerText()).toContain(hoursName);
      await noSidewaysScroll(p);

      // hours a policy uses cannot go: the API's 409 is said in the dialog
      await rowAction(hoursRow, hoursName, 'Delete');
      const refused = p.getByRole('dialog', { name: 'Delete business hours' });
      await refused.getByRole('button', { name: 'Delete' }).click();
      await expect.poll(() => refused.getByRole('alert').innerText()).toMatch(/used by an SLA policy/);
      await refused.getByRole('button', { name: 'Cancel' }).click();

      await rowAction(policyRow, policyName, 'Edit');
      const edit = p.getByRole('dialog', { name: 'Edit SLA policy' });
      await edit.getByLabel('Counted in').selectOption({ label: 'Around the clock' });
      await edit.getByLabel('First response', { exact: true }).fill('');
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await edit.waitFor({ state: 'detached' });
      await expect.poll(() => policyRow.innerText()).toMatch(/first response no target/);
      expect(await policyRow.innerText()).toMatch(/around the clock/);

      await rowAction(policyRow, policyName, 'Delete');
      await confirmDelete(p, 'Delete SLA policy');
      await rowAction(hoursRow, hoursName, 'Delete');
      await confirmDelete(p, 'Delete business hours');
      await expect.poll(async () => (await policyRow.count()) + (await hoursRow.count())).toBe(0);
      await p.context().close();
    });
  }

  it('an API refusal to read a page shows its error with Retry', async () => {
    const p = await signedIn(SIZES[0][1]);
    await p.route('**/api/v2/teams?*', (r) =>
      r.fulfill({
        status: 400,
        json: { detail: 'Teams could not be read' },
        headers: { 'X-Request-Id': 'req_test' },
      }),
    );
    await open(p, 'Teams');
    await p.getByText('Teams could not be read').waitFor();
    await p.getByText('req_test').waitFor();
    await p.unroute('**/api/v2/teams?*');
    await p.getByRole('button', { name: 'Retry' }).click();
    await p.getByText('No teams yet.').waitFor();
    expect(pageErrors).toEqual([]);
    await p.context().close();
  });
});
