// The console's one sign-in across tabs (the refresh token in an httpOnly cookie, never in script's
// reach; sign-out ends it in every tab), a long key name that must not widen the keys table, the
// strength estimator's reason on the password forms, and the smaller findings of a newcomer's
// first week: "already invited", your own row on top, the audit log's dates and address, sign-ins
// audited, stale errors, Escape on row menus, dialogs focused on their first field, the invited
// name pre-filled, the key's `itsm_sk_…` start and the sandbox badge. Headless Chromium at
// 1280×800 and 390×844 where the layout matters.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDashboardToken } from '../../shared/auth/jwt';
import {
  apiCaller,
  type ConsoleServer,
  chromiumMissing,
  DEMO_ADMIN,
  DESK,
  DEV_JWT_SECRET,
  launchChromium,
  SIZES,
  sessionToken,
  startConsoleServer,
} from './server';

describe.skipIf(chromiumMissing())('the console’s sessions and a newcomer’s findings', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let token = '';
  const pageErrors: string[] = [];

  const { send, call } = apiCaller(
    () => server.base,
    () => token,
  );

  const signIn = async (p: Page, email = DEMO_ADMIN.email, password = DEMO_ADMIN.password) => {
    await p.goto(`${server.base}/console/`);
    await p.getByLabel('Email').fill(email);
    await p.getByLabel('Password').fill(password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('navigation', { name: 'Console' }).waitFor();
  };

  const newContext = async (viewport = DESK): Promise<BrowserContext> => {
    const context = await browser.newContext({ viewport });
    context.on('page', (p) => p.on('pageerror', (e) => pageErrors.push(String(e))));
    return context;
  };

  /** A tab of its own at `viewport`, signed in as the demo admin unless `signedOut`. */
  const inTab = async (
    viewport: { width: number; height: number },
    check: (p: Page) => Promise<void>,
    signedOut = false,
  ) => {
    const context = await newContext(viewport);
    try {
      const p = await context.newPage();
      if (!signedOut) await signIn(p);
      await check(p);
    } finally {
      await context.close();
    }
  };

  const open = async (p: Page, path: string) => {
    await p.goto(`${server.base}/console${path}`);
    await p.locator('main h1').first().waitFor();
  };

  beforeAll(async () => {
    server = await startConsoleServer();
    token = await sessionToken(server.base, DEMO_ADMIN.email, DEMO_ADMIN.password);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    expect(pageErrors).toEqual([]);
  });

  describe('one sign-in across tabs', () => {
    it('a console link opened in a new tab stays signed in; signing out in one tab signs the other out', async () => {
      const context = await newContext();
      try {
        const first = await context.newPage();
        await signIn(first);
        await first.getByRole('heading', { name: 'API keys' }).waitFor();
        // nothing the page's script can read holds the refresh token
        const reachable = await first.evaluate(() => ({
          cookie: document.cookie,
          session: JSON.stringify(Object.entries(sessionStorage)),
          local: JSON.stringify(Object.entries(localStorage)),
        }));
        expect(reachable.cookie).toBe('');
        expect(`${reachable.session}${reachable.local}`).not.toContain('itsm_rt_');
        const [cookie] = await context.cookies(`${server.base}/api/v1/auth/session`);
        expect(cookie).toMatchObject({
          name: 'itsm_refresh',
          httpOnly: true,
          secure: true,
          sameSite: 'Strict',
          path: '/api/v1/auth',
        });
        // the cookie is not sent beyond the auth path
        expect(await context.cookies(`${server.base}/api/v1/api-keys`)).toEqual([]);

        // a link opened in a new tab: signed in there, on that page
        const second = await context.newPage();
        await second.goto(`${server.base}/console/webhooks`);
        await second.getByRole('heading', { name: 'Webhooks' }).waitFor();
        await second.locator('.who').getByText(DEMO_ADMIN.email).waitFor();
        expect(await second.getByRole('heading', { name: 'Sign in' }).count()).toBe(0);
        // and the first tab keeps working after the second renewed the shared session
        await first
          .getByRole('navigation', { name: 'Console' })
          .getByRole('link', { name: 'Team', exact: true })
          .click();
        await first.locator('tr[data-user-email]').first().waitFor();

        // signing out in the second tab signs the first out too, and the cookie is gone
        await second.getByRole('button', { name: 'Sign out' }).click();
        await second.getByRole('heading', { name: 'Sign in' }).waitFor();
        await first.getByRole('heading', { name: 'Sign in' }).waitFor();
        expect(await first.getByRole('dialog', { name: 'Your session ended' }).count()).toBe(0);
        await expect.poll(() => context.cookies(`${server.base}/api/v1/auth/session`)).toEqual([]);
        // a tab opened now asks to sign in
        const third = await context.newPage();
        await third.goto(`${server.base}/console/keys`);
        await third.getByRole('heading', { name: 'Sign in' }).waitFor();
        // the old refresh token no longer works anywhere
        const res = await send('POST', '/api/v1/auth/refresh', { refresh_token: cookie?.value }, '');
        expect(res.status).toBe(401);
      } finally {
        await context.close();
      }
    });

    it('another page cannot spend the cookie: the renewal needs the console’s header and origin', async () => {
      const context = await newContext();
      try {
        const p = await context.newPage();
        await signIn(p);
        // from the console's own origin, a script without the header is refused (403), and the
        // cookie still works for the console afterwards
        const status = await p.evaluate(async () => {
          const res = await fetch('/api/v1/auth/session', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: '{}',
          });
          return res.status;
        });
        expect(status).toBe(403);
        await p.reload();
        await p.getByRole('heading', { name: 'API keys' }).waitFor();
      } finally {
        await context.close();
      }
    });
  });

  describe('a long key name', () => {
    const longName =
      `${'Integration for the regional billing and invoicing '.repeat(2)}`.slice(0, 60) + 'x'.repeat(40);
    beforeAll(async () => {
      expect(longName).toHaveLength(100);
      await call('POST', '/api/v1/api-keys', { name: longName, scopes: ['tickets:read'] });
    });

    for (const [size, viewport] of SIZES)
      it(`wraps inside the keys table, which keeps Scopes, Status and Actions on screen, at ${size}`, async () => {
        await inTab(viewport, async (p) => {
          await open(p, '/keys');
          const row = p.locator('tr', { has: p.getByText(longName, { exact: true }) });
          await row.waitFor();
          const widths = await p.evaluate(() => {
            const wrap = document.querySelector('table.keys')?.closest('.table-wrap') as HTMLElement;
            const table = document.querySelector('table.keys') as HTMLElement;
            return {
              table: table.scrollWidth,
              wrap: wrap.clientWidth,
              page: document.documentElement.scrollWidth,
            };
          });
          expect(
            widths.table,
            `the table is ${widths.table}px in a ${widths.wrap}px box`,
          ).toBeLessThanOrEqual(widths.wrap);
          expect(widths.page).toBeLessThanOrEqual(viewport.width);
          for (const label of ['Scopes', 'Status']) {
            const box = await row.locator(`td[data-label="${label}"]`).boundingBox();
            expect(box && box.x + box.width, label).toBeLessThanOrEqual(viewport.width);
          }
          const actions = await row.locator('summary').boundingBox();
          expect(actions && actions.x + actions.width).toBeLessThanOrEqual(viewport.width);
          // the whole name is there to read
          expect(await row.locator('td[data-label="Name"] strong').getAttribute('title')).toBe(longName);
          // the key column shows how the key starts (the demo tenant is a sandbox)
          expect(await row.locator('td[data-label="Key"]').textContent()).toMatch(
            /^itsm_sk_test_[0-9A-Za-z]{12}…$/,
          );
        });
      });
  });

  describe('the strength estimator’s reason on the password forms', () => {
    for (const [size, viewport] of SIZES)
      it(`accepting an invitation and resetting a password show the API’s reason, at ${size}`, async () => {
        const email = `weak.${viewport.width}@example.com`;
        const weak = 'abcabcabcabcabc';
        await call('POST', '/api/v1/tenant/users', { email, role: 'agent' });
        const link = await server.inviteLink(email);
        const invite = new URL(link).searchParams.get('token');
        // the reason as the API gives it (a refused password leaves the token unspent)
        const refused = await send(
          'POST',
          '/api/v1/auth/accept-invite',
          { token: invite, password: weak },
          '',
        );
        expect(refused.status).toBe(422);
        const reason = ((await refused.json()) as { detail: { msg: string }[] }).detail[0]?.msg ?? '';
        expect(reason).toMatch(/too easy to guess/);
        await inTab(
          viewport,
          async (p) => {
            await p.goto(link);
            await p.getByLabel('Password', { exact: true }).fill(weak);
            await p.getByRole('button', { name: 'Set password and sign in' }).click();
            await expect.poll(() => p.getByRole('alert').textContent()).toContain(reason.replace(/\.$/, ''));
            // an edit clears it: the reason went with the password typed before
            await p.getByLabel('Password', { exact: true }).fill(`${weak}x`);
            expect(await p.getByRole('alert').count()).toBe(0);
            await p.getByLabel('Password', { exact: true }).fill('a sturdy passphrase for the desk');
            await p.getByRole('button', { name: 'Set password and sign in' }).click();
            await p.getByRole('navigation', { name: 'Console' }).waitFor();
          },
          true,
        );
        // a reset link for the new member, and the same weak password
        await send('POST', '/api/v1/auth/password-reset', { email }, '');
        const until = Date.now() + 10_000;
        let resetLink = '';
        while (!resetLink.includes('reset-password')) {
          resetLink = await server.inviteLink(email);
          if (Date.now() > until) throw new Error('no reset mail');
          await new Promise((r) => setTimeout(r, 200));
        }
        await inTab(
          viewport,
          async (p) => {
            await p.goto(resetLink);
            await p.getByLabel('New password').fill(weak);
            await p.getByRole('button', { name: 'Set password and sign in' }).click();
            await expect.poll(() => p.getByRole('alert').textContent()).toContain('too easy to guess');
          },
          true,
        );
      });
  });

  describe('smaller findings', () => {
    it('a second invite of an address only invited says it is already invited', async () => {
      const email = 'invited.twice@example.com';
      await call('POST', '/api/v1/tenant/users', { email, role: 'agent' });
      await inTab(DESK, async (p) => {
        await open(p, '/team');
        await p.getByRole('button', { name: 'Invite member' }).click();
        const dialog = p.getByRole('dialog', { name: 'Invite member' });
        // opened on its first field, not on ×
        expect(await p.evaluate(() => document.activeElement?.getAttribute('aria-label'))).not.toBe('Close');
        expect(await p.evaluate(() => document.activeElement?.tagName)).toBe('INPUT');
        await dialog.getByLabel('Email').fill(email);
        await dialog.getByRole('button', { name: 'Send invitation' }).click();
        await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/already invited/);
        expect(await dialog.getByRole('alert').textContent()).not.toMatch(/already exists/);
      });
    });

    it('the accept page pre-fills the name the invitation was sent with', async () => {
      const email = 'named.invitee@example.com';
      await call('POST', '/api/v1/tenant/users', { email, name: 'Rosa Parks', role: 'agent' });
      const link = await server.inviteLink(email);
      await inTab(
        DESK,
        async (p) => {
          await p.goto(link);
          await p.locator('.invite-for').getByText(email).waitFor();
          await expect.poll(() => p.getByLabel('Your name (optional)').inputValue()).toBe('Rosa Parks');
        },
        true,
      );
    });

    it('the Team page keeps your own row on top, wherever the newest-first order puts it', async () => {
      // members newer than the admin, so the admin's row is not the first by date
      for (const n of [1, 2]) {
        const email = `newer.member.${n}@example.com`;
        await call('POST', '/api/v1/tenant/users', { email, role: 'agent' });
        const invite = new URL(await server.inviteLink(email)).searchParams.get('token');
        await call(
          'POST',
          '/api/v1/auth/accept-invite',
          { token: invite, password: `newer member passphrase ${n}` },
          '',
        );
      }
      await inTab(DESK, async (p) => {
        await open(p, '/team');
        const first = p.locator('tr[data-user-email]').first();
        await first.waitFor();
        expect(await first.getAttribute('data-user-email')).toBe(DEMO_ADMIN.email);
      });
    });

    it('the audit log: To 9999-12-31 works, From after To is said, filters stay in the address, sign-ins are listed', async () => {
      // a failed sign-in, then the tab's own
      await send(
        'POST',
        '/api/v1/auth/login',
        { email: DEMO_ADMIN.email, password: 'wrong password here' },
        '',
      );
      await inTab(DESK, async (p) => {
        await open(p, '/audit');
        const audit = p.locator('table.audit');
        await audit.waitFor();
        await p.locator('td', { hasText: 'user.sign_in_failed' }).first().waitFor();
        await p.locator('td', { hasText: 'user.signed_in' }).first().waitFor();
        expect(await p.locator('table.audit').textContent()).not.toContain('wrong password here');

        await p.getByLabel('To', { exact: true }).fill('9999-12-31');
        await expect.poll(() => p.url()).toContain('to=9999-12-31');
        await p.locator('td', { hasText: 'user.signed_in' }).first().waitFor();
        expect(await p.getByRole('alert').count()).toBe(0);

        await p.getByLabel('Action').selectOption('user.signed_in');
        await p.getByLabel('From', { exact: true }).fill('2030-01-02');
        await p.getByLabel('To', { exact: true }).fill('2030-01-01');
        await p.getByRole('alert').getByText('From is later than To').waitFor();
        // kept in the address: a reload (or a shared link) shows the same filters
        await p.reload();
        await p.locator('main h1').waitFor();
        expect(await p.getByLabel('Action').inputValue()).toBe('user.signed_in');
        expect(await p.getByLabel('From', { exact: true }).inputValue()).toBe('2030-01-02');
        expect(await p.getByLabel('To', { exact: true }).inputValue()).toBe('2030-01-01');
        await p.getByRole('alert').getByText('From is later than To').waitFor();
      });
    });

    it('the sign-in page clears a stale error when the input changes', async () => {
      await inTab(
        DESK,
        async (p) => {
          await p.goto(`${server.base}/console/`);
          await p.getByLabel('Email').fill(DEMO_ADMIN.email);
          await p.getByLabel('Password').fill('not the password');
          await p.getByRole('button', { name: 'Sign in' }).click();
          await p.getByRole('alert').getByText('Invalid email or password').waitFor();
          await p.getByLabel('Password').fill('not the password either');
          expect(await p.getByRole('alert').count()).toBe(0);
        },
        true,
      );
    });

    it('a row menu closes on Escape, focus back on its button', async () => {
      await inTab(DESK, async (p) => {
        await open(p, '/keys');
        const menu = p.locator('details.row-menu').first();
        await menu.locator('summary').click();
        expect(await menu.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
        await menu.getByRole('button').first().focus();
        await p.keyboard.press('Escape');
        expect(await menu.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
        expect(await p.evaluate(() => document.activeElement?.tagName)).toBe('SUMMARY');
      });
    });

    it('a sandbox tenant says so in the sidebar, and its keys start itsm_sk_test_; a production one does not', async () => {
      // the demo tenant is a sandbox
      await inTab(DESK, async (p) => {
        await p.locator('.who .badge').getByText('sandbox').waitFor();
        const cell = p.locator('td[data-label="Key"]').first();
        await expect.poll(() => cell.textContent()).toMatch(/^itsm_sk_test_[0-9A-Za-z]{12}…$/);
      });
      const email = 'production.admin@example.com';
      const password = 'production admin passphrase';
      const platform = await signDashboardToken(DEV_JWT_SECRET, {
        sub: 'user_platform_ops',
        tenant_id: 'platform',
        role: 'super_admin',
      });
      await call(
        'POST',
        '/api/v1/tenants',
        { name: 'Production Desk', plan: 'free', environment: 'production', admin_email: email },
        platform,
      );
      const invite = new URL(await server.inviteLink(email)).searchParams.get('token');
      const pair = await call<{ access_token: string }>(
        'POST',
        '/api/v1/auth/accept-invite',
        { token: invite, password },
        '',
      );
      await call(
        'POST',
        '/api/v1/api-keys',
        { name: 'live key', scopes: ['tickets:read'] },
        pair.access_token,
      );
      await inTab(
        DESK,
        async (p) => {
          await signIn(p, email, password);
          const cell = p.locator('td[data-label="Key"]').first();
          await expect.poll(() => cell.textContent()).toMatch(/^itsm_sk_live_[0-9A-Za-z]{12}…$/);
          expect(await p.locator('.who .badge').count()).toBe(0);
        },
        true,
      );
    });
  });
});
