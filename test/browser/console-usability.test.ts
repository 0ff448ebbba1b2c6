// The console's usability and accessibility in headless Chromium, one block per finding of the
// outside QA probe: narrow screens, the team's pages, the skip link and focus, dialogs returning
// focus, confirmed role changes, form limits and readable 422s, editing an endpoint, stale errors,
// the session-ended dialog, and the smaller ones (counts, clocks, names, unknown paths, links).
// Data is set up through the API with a dashboard session of the demo admin.
import type { Browser, BrowserContext, Locator, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpsReceiver, startHttpsReceiver } from '../../scripts/lib/https-receiver';
import { KEY_DIALOG_SCOPE_GROUPS } from '../../shared/context/scopes';
import {
  apiCaller,
  type ConsoleServer,
  chromiumMissing,
  DEMO_ADMIN,
  endSessionWhileCreatingKey,
  launchChromium,
  sessionToken,
  startConsoleServer,
} from './server';

/** Members invited in setup: with the admin, more than one page of the team (50). */
const MEMBERS = 55;
const NARROW = { width: 390, height: 844 };

describe.skipIf(chromiumMissing())('the console, usable and accessible', () => {
  let server: ConsoleServer;
  let receiver: HttpsReceiver;
  let browser: Browser;
  let desk: BrowserContext;
  let page: Page;
  let token = '';
  let hookId = '';
  let contactsHookId = '';
  const pageErrors: string[] = [];

  /** The API as the demo admin (setup and checks, not what the console does). */
  const { call } = apiCaller(
    () => server.base,
    () => token,
  );

  const nav = (p: Page, name: string) =>
    p.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });

  const signIn = async (p: Page) => {
    await p.goto(`${server.base}/console/`);
    await p.getByLabel('Email').fill(DEMO_ADMIN.email);
    await p.getByLabel('Password').fill(DEMO_ADMIN.password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('navigation', { name: 'Console' }).waitFor();
  };

  const newPage = async (context: BrowserContext) => {
    const p = await context.newPage();
    p.on('pageerror', (e) => pageErrors.push(String(e)));
    return p;
  };

  /** A tab of its own (no session, no storage), closed however the check ends. */
  const inFreshTab = async (check: (p: Page) => Promise<void>) => {
    const context = await browser.newContext();
    try {
      await check(await newPage(context));
    } finally {
      await context.close();
    }
  };

  /** Open a console page by its address (a reload of the tab keeps the session). */
  const open = async (p: Page, path: string) => {
    await p.goto(`${server.base}/console${path}`);
    await p.locator('main h1').first().waitFor();
  };

  const focused = (p: Page) =>
    p.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return { id: el?.id ?? '', tag: el?.tagName ?? '', text: el?.textContent?.trim() ?? '' };
    });

  /** POST /api/v1/auth/invite-preview answers as for a pending invitation of `email`. */
  const previewAnswers = (p: Page, email: string) =>
    p.route('**/api/v1/auth/invite-preview', (r) =>
      r.fulfill({
        json: {
          tenant: { id: 'ten_demo', name: 'Demo Support Co' },
          email,
          role: 'agent',
          expires_at: new Date(Date.now() + 86_400_000).toISOString(),
        },
      }),
    );

  /** Requests of one method whose URL matches, from now on. */
  const recorder = (p: Page, method: string, url: RegExp) => {
    const seen: Request[] = [];
    p.on('request', (r) => {
      if (r.method() === method && url.test(r.url())) seen.push(r);
    });
    return seen;
  };

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    server = await startConsoleServer();
    token = await sessionToken(server.base, DEMO_ADMIN.email, DEMO_ADMIN.password);
    await call('POST', '/api/v1/api-keys', {
      name: 'Every dialog scope',
      scopes: KEY_DIALOG_SCOPE_GROUPS.flatMap((g) => g.scopes),
    });
    hookId = (
      await call<{ id: string }>('POST', '/api/v1/webhooks', {
        url: receiver.url('/qa'),
        events: ['ticket.created', 'ticket.updated'],
      })
    ).id;
    contactsHookId = (
      await call<{ id: string }>('POST', '/api/v1/webhooks', {
        url: receiver.url('/qa-contacts'),
        events: ['contact.created'],
      })
    ).id;
    await call('POST', '/api/v1/tickets', { subject: 'QA ticket', description: 'For the delivery log.' });
    // members who joined (an invitee not yet joined is listed under the invitations instead)
    for (let i = 0; i < MEMBERS; i++) {
      const invited = await call<{ invite: { token: string } }>('POST', '/api/v1/tenant/users', {
        email: `member.${i}@example.com`,
        name: `Member ${i}`,
      });
      await fetch(`${server.base}/api/v1/auth/accept-invite`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token: invited.invite.token, password: `member ${i} password here` }),
      }).then((r) => expect(r.status).toBe(200));
    }
    browser = await launchChromium();
    desk = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await newPage(desk);
    await signIn(page);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  describe('on a phone-sized screen (390×844)', () => {
    it('no page scrolls sideways, and every primary action is on screen', async () => {
      const phone = await browser.newContext({ viewport: NARROW });
      try {
        const p = await newPage(phone);
        await signIn(p);
        const onScreen = async (what: Locator, name: string) => {
          const box = await what.boundingBox();
          expect(box, name).not.toBeNull();
          expect(box?.x, name).toBeGreaterThanOrEqual(0);
          expect((box?.x ?? 0) + (box?.width ?? 0), name).toBeLessThanOrEqual(NARROW.width);
        };
        const pages: [string, Locator, string[]][] = [
          ['/keys', p.locator('tr[data-key-id]'), ['Create key']],
          ['/webhooks', p.locator('.card'), ['Add endpoint']],
          [
            `/webhooks/${hookId}`,
            p.locator('tr[data-delivery-id]'),
            ['Send test event', 'Edit', 'Recover failed…', 'Delete'],
          ],
          ['/team', p.locator('tr[data-user-email]'), ['Invite member']],
          ['/audit', p.locator('tbody tr'), []],
          ['/usage', p.locator('.meter-card'), []],
        ];
        for (const [path, loaded, actions] of pages) {
          await open(p, path);
          await loaded.first().waitFor();
          const width = await p.evaluate(() => document.documentElement.scrollWidth);
          expect(width, `${path} is ${width}px wide`).toBeLessThanOrEqual(NARROW.width);
          for (const name of actions) await onScreen(p.getByRole('button', { name }), `${path}: ${name}`);
          await onScreen(p.getByRole('button', { name: 'Sign out' }), `${path}: Sign out`);
          if (path.startsWith('/webhooks/')) await onScreen(p.getByRole('switch'), `${path}: switch`);
          if (path === '/team') {
            const select = p.locator('select.role').nth(1);
            expect((await select.boundingBox())?.width ?? 0, 'role select width').toBeGreaterThanOrEqual(90);
          }
        }
        // records are cards: a key's status and actions are on screen without scrolling a table
        await open(p, '/keys');
        const card = p.locator('tr[data-key-id]').first();
        await card.waitFor();
        await onScreen(card.locator('.badge'), 'key status');
        await onScreen(card.locator('summary'), 'key actions');
        const wrap = p.locator('.table-wrap').first();
        expect(await wrap.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(false);
      } finally {
        await phone.close();
      }
    });
  });

  describe('team', () => {
    it('pages through every member, the signed-in admin always shown', async () => {
      const { total } = await call<{ total: number }>('GET', '/api/v1/tenant/users?limit=1');
      expect(total).toBe(MEMBERS + 1);
      await open(page, '/team');
      const pager = page.getByRole('navigation', { name: 'Pages' });
      await pager.getByText(`1–50 of ${total}`).waitFor();
      expect(await page.locator('tr[data-user-email]').count()).toBe(51); // the page, and the admin on top
      expect(await page.locator('tr', { hasText: '(you)' }).count()).toBe(1);
      await pager.getByRole('button', { name: 'Next' }).click();
      await pager.getByText(`51–${total} of ${total}`).waitFor();
      expect(await page.locator('tr[data-user-email]').count()).toBe(total - 50);
      expect(await page.locator('tr', { hasText: '(you)' }).count()).toBe(1);
    });
  });

  describe('skip link and page titles', () => {
    it('the skip link moves focus to the content without a history entry', async () => {
      await open(page, '/keys');
      const entries = await page.evaluate(() => history.length);
      const url = page.url();
      await page.getByRole('link', { name: 'Skip to content' }).focus();
      await page.keyboard.press('Enter');
      expect((await focused(page)).id).toBe('main');
      expect(await page.evaluate(() => history.length)).toBe(entries);
      expect(page.url()).toBe(url);
    });

    it('after a navigation focus is on the new page title, which the page is labelled by', async () => {
      await nav(page, 'Team').click();
      await expect.poll(() => focused(page)).toEqual({ id: 'page-title', tag: 'H1', text: 'Team' });
      const label = await page.evaluate(
        () =>
          document.getElementById(document.querySelector('section')?.getAttribute('aria-labelledby') ?? '')
            ?.textContent,
      );
      expect(label).toBe('Team');
    });
  });

  describe('dialogs and focus', () => {
    it('focus returns to the opener however a dialog closes', async () => {
      await open(page, '/keys');
      const create = page.getByRole('button', { name: 'Create key' });
      await create.click();
      const dialog = page.getByRole('dialog', { name: 'Create API key' });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await focused(page)).toMatchObject({ tag: 'BUTTON', text: 'Create key' });

      // an action picked from a row's menu returns focus to the menu's button
      const row = page.locator('tr', { hasText: 'Every dialog scope' });
      await row.locator('summary').click();
      await row.getByRole('button', { name: 'Rotate' }).click();
      await page.getByRole('dialog', { name: 'Rotate key' }).getByRole('button', { name: 'Cancel' }).click();
      expect(await focused(page)).toMatchObject({ tag: 'SUMMARY', text: 'Actions' });

      // a dialog that follows another (the secret after "Create key") returns to the first opener
      await create.click();
      await dialog.getByLabel('Name').fill('Focus check');
      await dialog.getByLabel('tickets:read').check();
      await dialog.getByRole('button', { name: 'Create key' }).click();
      const secret = page.getByRole('dialog', { name: 'Key “Focus check” created' });
      await secret.getByRole('button', { name: 'I have copied it' }).click();
      await secret.waitFor({ state: 'detached' });
      expect(await focused(page)).toMatchObject({ tag: 'BUTTON', text: 'Create key' });
    });

    it('after a wrong password focus stays in the form, on the password', async () => {
      await inFreshTab(async (p) => {
        await p.goto(`${server.base}/console/`);
        await p.getByLabel('Email').fill(DEMO_ADMIN.email);
        await p.getByLabel('Password').fill('not the password');
        await p.getByRole('button', { name: 'Sign in' }).click();
        await p.getByRole('alert').waitFor();
        expect((await focused(p)).id).toBe('password');
      });
    });
  });

  describe('role changes', () => {
    const email = `member.${MEMBERS - 1}@example.com`; // the newest: on the first page
    const select = () => page.getByRole('combobox', { name: `Role of ${email}` });

    it('ask first, and a cancelled or refused change shows the role the member still has', async () => {
      await open(page, '/team');
      const patches = recorder(page, 'PATCH', /\/api\/v1\/tenant\/users\//);
      // keyboard: an arrow press opens the confirmation, and sends nothing
      await select().focus();
      await page.keyboard.press('ArrowDown');
      const confirm = page.getByRole('dialog', { name: 'Change role' });
      await confirm.waitFor();
      // a raised role: the server keeps their sessions (only a lowered one ends them), and says so
      expect(await confirm.textContent()).toContain('they get the new role within 15 minutes');
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      expect(await select().inputValue()).toBe('agent');
      expect(patches).toHaveLength(0);

      await page.route('**/api/v1/tenant/users/*', (r) =>
        r.request().method() === 'PATCH'
          ? r.fulfill({ status: 409, json: { detail: 'The role could not be changed' } })
          : r.continue(),
      );
      await select().selectOption('tenant_admin');
      await confirm.getByRole('button', { name: 'Change role' }).click();
      await confirm.getByRole('alert').getByText('The role could not be changed').waitFor();
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      expect(await select().inputValue()).toBe('agent');
      await page.unroute('**/api/v1/tenant/users/*');

      await select().selectOption('tenant_admin');
      await confirm.getByRole('button', { name: 'Change role' }).click();
      await page.getByRole('status').getByText(`${email} is now an admin`).waitFor();
      expect(await select().inputValue()).toBe('tenant_admin');
      const users = await call<{ users: { email: string; role: string }[] }>(
        'GET',
        '/api/v1/tenant/users?limit=5',
      );
      expect(users.users.find((u) => u.email === email)?.role).toBe('tenant_admin');
    });

    it('removing a member already removed elsewhere refreshes the list', async () => {
      const gone = `member.${MEMBERS - 2}@example.com`;
      await open(page, '/team');
      const row = page.locator(`tr[data-user-email="${gone}"]`);
      await row.waitFor();
      const { users } = await call<{ users: { id: string; email: string }[] }>(
        'GET',
        '/api/v1/tenant/users?limit=10',
      );
      await call('DELETE', `/api/v1/tenant/users/${users.find((u) => u.email === gone)?.id}`);
      await row.getByRole('button', { name: 'Remove' }).click();
      await page
        .getByRole('dialog', { name: 'Remove member' })
        .getByRole('button', { name: 'Remove' })
        .click();
      await page.getByRole('status').getByText(`${gone} had already been removed`).waitFor();
      await row.waitFor({ state: 'detached' });
    });
  });

  describe('forms check what the API checks', () => {
    it('a key name of spaces is refused before sending', async () => {
      await open(page, '/keys');
      const posts = recorder(page, 'POST', /\/api\/v1\/api-keys$/);
      await page.getByRole('button', { name: 'Create key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create API key' });
      await dialog.getByLabel('Name').fill('   ');
      await dialog.getByLabel('tickets:read').check();
      await dialog.getByRole('button', { name: 'Create key' }).click();
      await dialog.getByRole('alert').getByText('Give the key a name.').waitFor();
      expect(posts).toHaveLength(0);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    });

    it('the invite takes at most the API’s 200 characters of name, and a 422 reads as a sentence', async () => {
      await open(page, '/team');
      await page.getByRole('button', { name: 'Invite member' }).click();
      const dialog = page.getByRole('dialog', { name: 'Invite member' });
      await dialog.getByLabel('Name (optional)').fill('x'.repeat(250));
      expect((await dialog.getByLabel('Name (optional)').inputValue()).length).toBe(200);
      await page.route('**/api/v1/tenant/users', (r) =>
        r.fulfill({
          status: 422,
          json: {
            detail: [
              { loc: ['body', 'name'], msg: 'Too big: expected string to have <=200 characters', type: 'x' },
            ],
          },
        }),
      );
      await dialog.getByLabel('Email').fill('someone@example.com');
      await dialog.getByRole('button', { name: 'Send invitation' }).click();
      await dialog
        .getByRole('alert')
        .getByText('Name must be at most 200 characters.', { exact: true })
        .waitFor();
      await page.unroute('**/api/v1/tenant/users');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    });

    it('accepting an invitation states the password rule up front', async () => {
      await inFreshTab(async (p) => {
        // the page asks which invitation it is before showing the form (any valid one will do)
        await previewAnswers(p, 'someone@example.com');
        await p.goto(`${server.base}/console/accept-invite?token=not-a-real-one`);
        const password = p.getByLabel('Password', { exact: true });
        await password.waitFor();
        expect(await password.getAttribute('minlength')).toBe('12');
        const rule = await p.evaluate(
          () =>
            document.getElementById(
              document.getElementById('new-password')?.getAttribute('aria-describedby') ?? '',
            )?.textContent,
        );
        expect(rule).toContain('At least 12 characters');
      });
    });
  });

  describe('one endpoint', () => {
    it('edits the URL and events in place, keeping the endpoint and its secret', async () => {
      await open(page, `/webhooks/${hookId}`);
      await page.getByRole('button', { name: 'Edit' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit endpoint' });
      expect(await dialog.getByLabel('Endpoint URL').inputValue()).toBe(receiver.url('/qa'));
      expect(await dialog.getByLabel('ticket.updated').isChecked()).toBe(true);
      await dialog.getByLabel('Endpoint URL').fill(receiver.url('/qa-edited'));
      await dialog.getByLabel('ticket.updated').uncheck();
      await dialog.getByLabel('ticket.resolved').check();
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').getByText('Endpoint saved').waitFor();
      await page.getByText(receiver.url('/qa-edited')).first().waitFor();
      const saved = await call<{ url: string; events: string[] }>('GET', `/api/v1/webhooks/${hookId}`);
      expect(saved.url).toBe(receiver.url('/qa-edited'));
      expect(saved.events.sort()).toEqual(['ticket.created', 'ticket.resolved']);
    });

    it('sends a test event of the type picked, to this endpoint only, creating no ticket', async () => {
      const tickets = (await call<{ total: number }>('GET', '/api/v1/tickets?limit=1')).total;
      await open(page, `/webhooks/${contactsHookId}`);
      await page.getByRole('button', { name: 'Send test event' }).click();
      const dialog = page.getByRole('dialog', { name: 'Send test event' });
      const type = dialog.getByLabel('Event type');
      // the first event it subscribes to, once the catalog is read
      await expect.poll(() => type.inputValue()).toBe('contact.created');
      await type.selectOption('contact.updated');
      await dialog.getByRole('button', { name: 'Send test event' }).click();
      await page.getByRole('status').getByText('A test contact.updated event is on its way').waitFor();
      await page.locator('tr[data-delivery-id]', { hasText: 'contact.updated' }).first().waitFor();
      expect((await call<{ total: number }>('GET', '/api/v1/tickets?limit=1')).total).toBe(tickets);
    });

    it('pages the delivery log instead of stopping at the newest ones silently', async () => {
      const fake = Array.from({ length: 50 }, (_, i) => ({
        id: `whd_fake${String(i).padStart(3, '0')}`,
        event_type: 'ticket.created',
        status: 'delivered',
        attempts: 1,
        last_attempt_at: new Date().toISOString(),
        next_attempt_at: null,
        response_status: 200,
        duration_ms: 5,
        error: null,
        created_at: new Date().toISOString(),
      }));
      const asked: string[] = [];
      await page.route('**/api/v1/webhooks/*/deliveries?*', (r) => {
        asked.push(r.request().url());
        return r.fulfill({
          json: { deliveries: new URL(r.request().url()).searchParams.get('before') ? [] : fake },
        });
      });
      await open(page, `/webhooks/${hookId}`);
      const pager = page.getByRole('navigation', { name: 'Delivery log pages' });
      await pager.getByText('The newest 50 deliveries').waitFor();
      await pager.getByRole('button', { name: 'Older' }).click();
      await page.getByText('No older deliveries.').waitFor();
      expect(asked.some((u) => u.includes('before=whd_fake049'))).toBe(true);
      await page.unroute('**/api/v1/webhooks/*/deliveries?*');
    });

    it('counts read as words ("1 delivery queued again")', async () => {
      await page.route('**/api/v1/webhooks/*/recover', (r) =>
        r.fulfill({ json: { deliveries: [{ id: 'x' }] } }),
      );
      await open(page, `/webhooks/${hookId}`);
      await page.getByRole('button', { name: 'Recover failed…' }).click();
      await page
        .getByRole('dialog', { name: 'Recover failed deliveries' })
        .getByRole('button', { name: 'Recover' })
        .click();
      await page.getByRole('status').getByText('1 delivery queued again.', { exact: true }).waitFor();
      await page.unroute('**/api/v1/webhooks/*/recover');
    });
  });

  describe('errors go when their cause does', () => {
    it('"Pick at least one event" goes once an event is picked', async () => {
      await open(page, '/webhooks');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add endpoint' });
      await dialog.getByLabel('Endpoint URL').fill(receiver.url('/qa-stale'));
      await dialog.getByRole('button', { name: 'Add endpoint' }).click();
      await dialog.getByRole('alert').getByText('Pick at least one event').waitFor();
      await dialog.getByLabel('ticket.created').check();
      expect(await dialog.getByRole('alert').count()).toBe(0);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    });

    it('the session-ended dialog survives Escape, and signing in clears the error it caused', async () => {
      await open(page, '/keys');
      const { dialog, ended: again } = await endSessionWhileCreatingKey(page);
      // Escape (twice: Chromium closes anyway on a second one) keeps the dialog and the page under it
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');
      await page.waitForTimeout(200);
      expect(await again.isVisible()).toBe(true);
      expect(await dialog.getByLabel('Name').inputValue()).toBe('Typed before the session ended');
      await again.getByLabel('Email').fill(DEMO_ADMIN.email);
      await again.getByLabel('Password').fill(DEMO_ADMIN.password);
      await again.getByRole('button', { name: 'Sign in' }).click();
      await again.waitFor({ state: 'detached' });
      expect(await dialog.getByRole('alert').count()).toBe(0);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      token = await sessionToken(server.base, DEMO_ADMIN.email, DEMO_ADMIN.password);
    });
  });

  describe('smaller things', () => {
    it('relative times move on while the page stays open', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const p = await newPage(context);
        await p.clock.install();
        await signIn(p);
        const created = p.locator('tr', { hasText: 'Every dialog scope' }).locator('time').first();
        await created.waitFor();
        const before = await created.textContent();
        await p.clock.runFor(3 * 60_000);
        await expect.poll(() => created.textContent()).not.toBe(before);
      } finally {
        await context.close();
      }
    });

    it('the sidebar names the tenant and the user, and keys say who created them', async () => {
      await open(page, '/keys');
      const who = page.locator('.who');
      await who.getByText('Demo Support Co').waitFor();
      await who.getByText(DEMO_ADMIN.email).waitFor();
      const row = page.locator('tr', { hasText: 'Every dialog scope' });
      expect(await row.locator('td').nth(3).textContent()).toBe('you');
    });

    it('an agent’s sidebar names the tenant and the user too (GET /api/v1/auth/me, any role)', async () => {
      const invited = await call<{ invite: { token: string } }>('POST', '/api/v1/tenant/users', {
        email: 'agent.sidebar@example.com',
        role: 'agent',
      });
      const accepted = await fetch(`${server.base}/api/v1/auth/accept-invite`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token: invited.invite.token, password: 'agent sidebar password' }),
      });
      expect(accepted.status).toBe(200);
      await inFreshTab(async (p) => {
        await p.goto(`${server.base}/console/`);
        await p.getByLabel('Email').fill('agent.sidebar@example.com');
        await p.getByLabel('Password').fill('agent sidebar password');
        await p.getByRole('button', { name: 'Sign in' }).click();
        const who = p.locator('.who');
        await who.getByText('Demo Support Co').waitFor();
        await who.getByText('agent.sidebar@example.com').waitFor();
      });
    });

    it('a refused sign-in is the API’s one sentence, with no tenant field to guess at (the API names the tenants when it needs one)', async () => {
      await inFreshTab(async (p) => {
        await p.goto(`${server.base}/console/`);
        await p.getByLabel('Email').fill(DEMO_ADMIN.email);
        await p.getByLabel('Password').fill('not the password');
        await p.getByRole('button', { name: 'Sign in' }).click();
        await p.getByRole('alert').getByText('Invalid email or password', { exact: true }).waitFor();
        expect(await p.getByRole('radio').count()).toBe(0);
        expect(await p.getByLabel('Tenant ID').count()).toBe(0);
        await p.getByLabel('Password').fill(DEMO_ADMIN.password);
        await p.getByRole('button', { name: 'Sign in' }).click();
        await p.getByRole('navigation', { name: 'Console' }).waitFor();
      });
    });

    it('signing in opens API keys as the current page; an unknown path says it is not found', async () => {
      await page.goto(`${server.base}/console/`);
      await page.getByRole('heading', { name: 'API keys' }).waitFor();
      await expect.poll(() => page.url()).toBe(`${server.base}/console/keys`);
      expect(await nav(page, 'API keys').getAttribute('aria-current')).toBe('page');
      await page.goto(`${server.base}/console/nonsense`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      // the title follows the heading in the same render, a tick later
      await expect.poll(() => page.title()).toBe('Page not found · Support Platform');
      expect(await page.locator('[aria-current=page]').count()).toBe(0);
    });

    it('an invitation opened in a signed-in tab is kept: sign out, then accept', async () => {
      await call('POST', '/api/v1/tenant/users', { email: 'late.invite@example.com' });
      const link = await server.inviteLink('late.invite@example.com');
      await inFreshTab(async (p) => {
        await previewAnswers(p, 'late.invite@example.com');
        await signIn(p);
        await p.goto(link);
        await p.getByRole('heading', { name: 'You are signed in' }).waitFor();
        expect(p.url()).not.toContain('token=');
        await p.getByRole('button', { name: 'Sign out and continue' }).click();
        await p.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
        expect(await p.getByRole('button', { name: 'Set password' }).isEnabled()).toBe(true);
      });
    });

    it('a reset link without its token says so', async () => {
      await inFreshTab(async (p) => {
        await p.goto(`${server.base}/console/reset-password`);
        await p.getByRole('alert').getByText('no reset token').waitFor();
      });
    });

    it('the usage month picker refuses months outside the tenant’s life', async () => {
      await open(page, '/usage');
      await page.locator('.meter-card').first().waitFor();
      const asked = recorder(page, 'GET', /usage\/summary\?period=1999-01/);
      await page.getByLabel('Period').fill('1999-01');
      await page.getByRole('alert').getByText('pick a month from').waitFor();
      expect(asked).toHaveLength(0);
      expect(await page.locator('.meter-card').count()).toBe(0);
    });
  });

  it('ran with no script error', () => {
    expect(pageErrors).toEqual([]);
  });
});
