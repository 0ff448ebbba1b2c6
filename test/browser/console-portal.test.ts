// The console as an integrator's portal, in headless Chromium at a laptop's 1280×800 and a phone's
// 390×844: each attempt's request and response, test events that create nothing, secret rotation,
// descriptions, errors in view inside dialogs, tables that fit, the audit log by name with filters,
// linked rotations, a home page per role, error states with the request id and a retry, CLI-token
// identities, the invitation page's token and preview, and pending invitations on the team page.
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpsReceiver, startHttpsReceiver } from '../../scripts/lib/https-receiver';
import { signDashboardToken } from '../../shared/auth/jwt';
import {
  apiCaller,
  type ConsoleServer,
  chromiumMissing,
  DEMO_ADMIN,
  DESK,
  DEV_JWT_SECRET,
  launchChromium,
  PHONE,
  SIZES,
  sessionToken,
  startConsoleServer,
} from './server';

describe.skipIf(chromiumMissing())('the console as an integrator’s portal', () => {
  let server: ConsoleServer;
  let receiver: HttpsReceiver;
  let browser: Browser;
  let token = '';
  let hookId = '';
  let paths = new Set<string>();
  const pageErrors: string[] = [];

  const { call } = apiCaller(
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

  /** A signed-in tab of its own at `viewport`, closed however the check ends. */
  const inTab = async (viewport: { width: number; height: number }, check: (p: Page) => Promise<void>) => {
    const context: BrowserContext = await browser.newContext({ viewport });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    try {
      const p = await context.newPage();
      p.on('pageerror', (e) => pageErrors.push(String(e)));
      await signIn(p);
      await check(p);
    } finally {
      await context.close();
    }
  };

  const open = async (p: Page, path: string) => {
    await p.goto(`${server.base}/console${path}`);
    await p.locator('main h1').first().waitFor();
  };

  /** Entirely inside the viewport (not below the fold, not off to a side). */
  const inView = async (p: Page, what: Locator, name: string) => {
    const box = await what.boundingBox();
    const size = p.viewportSize() ?? DESK;
    expect(box, name).not.toBeNull();
    expect(box?.x ?? -1, name).toBeGreaterThanOrEqual(0);
    expect(box?.y ?? -1, name).toBeGreaterThanOrEqual(0);
    expect((box?.x ?? 0) + (box?.width ?? 0), name).toBeLessThanOrEqual(size.width);
    expect((box?.y ?? 0) + (box?.height ?? 0), name).toBeLessThanOrEqual(size.height);
  };

  const noSidewaysScroll = async (p: Page, name: string) => {
    const width = await p.evaluate(() => document.documentElement.scrollWidth);
    expect(width, `${name} is ${width}px wide`).toBeLessThanOrEqual(p.viewportSize()?.width ?? 0);
  };

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    server = await startConsoleServer();
    token = await sessionToken(server.base, DEMO_ADMIN.email, DEMO_ADMIN.password);
    const doc = (await (await fetch(`${server.base}/api/v1/openapi.json`)).json()) as { paths: object };
    paths = new Set(Object.keys(doc.paths));
    receiver.planEach(
      '/portal',
      [
        {
          status: 500,
          body: JSON.stringify({ error: 'database down', retry: true }),
          headers: { 'content-type': 'application/json', 'x-trace': 'abc' },
        },
      ],
      'success',
    );
    hookId = (
      await call<{ id: string }>('POST', '/api/v1/webhooks', {
        url: receiver.url('/portal'),
        events: ['ticket.created', 'contact.created'],
        description: 'Sync to the warehouse',
      })
    ).id;
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
    expect(pageErrors).toEqual([]);
  });

  describe('each attempt of a delivery: what was sent and what came back', () => {
    let deliveryId = '';
    beforeAll(async () => {
      deliveryId = (
        await call<{ delivery_id: string }>('POST', `/api/v2/webhooks/${hookId}/test`, {
          event_type: 'ticket.created',
        })
      ).delivery_id;
      const until = Date.now() + 30_000;
      const status = async () =>
        (await call<{ status: string }>('GET', `/api/v1/webhooks/${hookId}/deliveries/${deliveryId}`)).status;
      while ((await status()) !== 'delivered') {
        if (Date.now() > until) throw new Error('the test delivery was not delivered in 30 s');
        await new Promise((r) => setTimeout(r, 250));
      }
    });

    for (const [size, viewport] of SIZES)
      it(`shows request headers, the exact body, the signature and the response at ${size}`, async () => {
        await inTab(viewport, async (p) => {
          await open(p, `/webhooks/${hookId}`);
          const row = p.locator(`tr[data-delivery-id="${deliveryId}"]`);
          await row.getByRole('button', { name: 'ticket.created' }).click();
          const first = p.locator('details.exchange[data-attempt="1"]');
          await first.locator('summary').click();
          const sent = receiver
            .received('/portal')
            .find((r) => r.headers['x-webhook-delivery-id'] === deliveryId);
          expect(sent).toBeDefined();
          // the signature header as sent
          expect(await first.locator('code.signature').textContent()).toBe(
            sent?.headers['x-webhook-signature'],
          );
          // the body pretty-printed (JSON), the copy giving the exact bytes that were signed
          const request = first.locator('[data-part=request]');
          const shownBody = (await request.locator('pre').nth(1).textContent()) ?? '';
          expect(shownBody).toBe(JSON.stringify(JSON.parse(sent?.body ?? ''), null, 2));
          await request.getByRole('button', { name: 'Copy request body of attempt 1' }).click();
          expect(await p.evaluate(() => navigator.clipboard.readText())).toBe(sent?.body);
          expect((await request.locator('pre').first().textContent())?.toLowerCase()).toContain(
            'x-webhook-signature',
          );
          // the receiver's answer: status, headers, body indented
          const response = first.locator('[data-part=response]');
          expect(await response.locator('h3').textContent()).toContain('HTTP 500');
          expect(await response.locator('pre').first().textContent()).toContain('x-trace: abc');
          expect(await response.locator('pre').nth(1).textContent()).toBe(
            JSON.stringify({ error: 'database down', retry: true }, null, 2),
          );
          expect(await response.locator('.truncated').count()).toBe(0);
          await noSidewaysScroll(p, `delivery detail at ${size}`);
        });
      });

    it('says when a response body was truncated, and when no response came', async () => {
      await inTab(DESK, async (p) => {
        await p.route(`**/api/v1/webhooks/${hookId}/deliveries/${deliveryId}`, async (route) => {
          const real = await (await route.fetch()).json();
          real.history[0].response = {
            status: 200,
            headers: {},
            body: 'x'.repeat(4096),
            body_truncated: true,
          };
          real.history[1].response = null;
          await route.fulfill({ json: real });
        });
        await open(p, `/webhooks/${hookId}`);
        await p
          .locator(`tr[data-delivery-id="${deliveryId}"]`)
          .getByRole('button', { name: 'ticket.created' })
          .click();
        for (const n of [1, 2]) await p.locator(`details.exchange[data-attempt="${n}"] summary`).click();
        await p.locator('details.exchange[data-attempt="1"] .truncated').getByText('Truncated').waitFor();
        await p.locator('details.exchange[data-attempt="2"]').getByText('No response came').waitFor();
      });
    });
  });

  describe('endpoint tools', () => {
    it('shows the description, and rotates the secret once, said to be encrypted rather than hashed', async () => {
      await inTab(DESK, async (p) => {
        await open(p, '/webhooks');
        await p
          .locator('.card', { hasText: receiver.url('/portal') })
          .getByText('Sync to the warehouse')
          .waitFor();
        await open(p, `/webhooks/${hookId}`);
        await p.getByText('Sync to the warehouse').waitFor();
        await p.getByRole('button', { name: 'Rotate secret' }).click();
        await p
          .getByRole('dialog', { name: 'Rotate signing secret' })
          .getByRole('button', { name: 'Rotate secret' })
          .click();
        const shown = p.getByRole('dialog', { name: 'New signing secret' });
        const secret = await shown.getByTestId('secret').inputValue();
        expect(secret).toMatch(/^whsec_/);
        const note = (await shown.getByRole('note').textContent()) ?? '';
        expect(note).toContain('encrypted');
        expect(note).not.toContain('hash');
        await shown.getByRole('button', { name: 'Copy' }).click();
        expect(await p.evaluate(() => navigator.clipboard.readText())).toBe(secret);
        await shown.getByRole('button', { name: 'I have copied it' }).click();
        const audit = await call<{ entries: { action: string }[] }>(
          'GET',
          `/api/v2/audit-log?target_id=${hookId}`,
        );
        expect(audit.entries.map((e) => e.action)).toContain('webhook.secret_rotated');
      });
    });

    it('edits the description', async () => {
      await inTab(DESK, async (p) => {
        await open(p, `/webhooks/${hookId}`);
        await p.getByRole('button', { name: 'Edit' }).click();
        const dialog = p.getByRole('dialog', { name: 'Edit endpoint' });
        expect(await dialog.getByLabel('Description (optional)').inputValue()).toBe('Sync to the warehouse');
        await dialog.getByLabel('Description (optional)').fill('Warehouse sync, nightly');
        await dialog.getByRole('button', { name: 'Save changes' }).click();
        await p.getByText('Warehouse sync, nightly').waitFor();
        const saved = await call<{ description: string }>('GET', `/api/v1/webhooks/${hookId}`);
        expect(saved.description).toBe('Warehouse sync, nightly');
      });
    });
  });

  describe('errors inside dialogs are in view and announced', () => {
    for (const [size, viewport] of SIZES)
      it(`the server's 400 on a refused URL, and a missing key name, at ${size}`, async () => {
        await inTab(viewport, async (p) => {
          await open(p, '/webhooks');
          await p.getByRole('button', { name: 'Add endpoint' }).click();
          const dialog = p.getByRole('dialog', { name: 'Add endpoint' });
          await dialog.getByLabel('Endpoint URL').fill('https://10.1.2.3:3000/hook');
          for (const group of ['Tickets', 'Contacts', 'Calls'])
            await dialog.getByLabel(`All ${group} events`).check();
          await dialog.getByRole('button', { name: 'Add endpoint' }).click();
          const alert = dialog.getByRole('alert');
          await alert.waitFor();
          expect(await alert.textContent()).toMatch(/WEBHOOK_SSRF_ALLOW|private|public/i);
          await inView(p, alert, `endpoint error at ${size}`);
          expect(await alert.evaluate((el) => el === document.activeElement)).toBe(true);
          // an http:// URL: the field says what it needs, not "Please match the requested format"
          await dialog.getByLabel('Endpoint URL').fill('http://example.com/hook');
          const message = await dialog
            .getByLabel('Endpoint URL')
            .evaluate((el) => (el as HTMLInputElement).validationMessage);
          expect(message).toBe('The URL must start with https://');
          await dialog.getByRole('button', { name: 'Cancel' }).click();

          await open(p, '/keys');
          await p.getByRole('button', { name: 'Create key' }).click();
          const keyDialog = p.getByRole('dialog', { name: 'Create API key' });
          await keyDialog.getByLabel('Name').fill('   ');
          await keyDialog.getByRole('button', { name: 'Create key' }).click();
          const nameAlert = keyDialog.getByRole('alert');
          await nameAlert.getByText('Give the key a name.').waitFor();
          await inView(p, nameAlert, `key name error at ${size}`);
          expect(await nameAlert.evaluate((el) => el === document.activeElement)).toBe(true);
        });
      });
  });

  describe('tables fit', () => {
    beforeAll(async () => {
      for (const name of ['Billing sync', 'Warehouse export']) {
        const key = await call<{ id: string }>('POST', '/api/v1/api-keys', {
          name,
          scopes: ['tickets:read', 'tickets:write', 'calls:read', 'webhooks:read'],
        });
        await call('POST', `/api/v1/api-keys/${key.id}/rotate`);
      }
    });

    it('at 1280×800 the keys and audit tables show every column, actions included', async () => {
      await inTab(DESK, async (p) => {
        for (const [path, last] of [
          ['/keys', 'tr[data-key-id] summary'],
          ['/audit', 'tbody tr td:last-child'],
        ] as const) {
          await open(p, path);
          await p.locator(last).first().waitFor();
          const wrap = p.locator('.table-wrap').first();
          expect(await wrap.evaluate((el) => el.scrollWidth <= el.clientWidth), `${path} fits`).toBe(true);
          await inView(p, p.locator(last).first(), `${path}: last column`);
        }
      });
    });

    it('at 390×844 keys and audit entries are cards with their status and actions on screen', async () => {
      await inTab(PHONE, async (p) => {
        await open(p, '/keys');
        const card = p.locator('tr[data-key-id]').first();
        await card.waitFor();
        expect(await card.evaluate((el) => getComputedStyle(el).display)).toBe('block');
        // scrolled to, as a reader would: the navigation above the cards is taller than it was
        await card.scrollIntoViewIfNeeded();
        await inView(p, card.locator('.badge'), 'status');
        await inView(p, card.locator('summary'), 'actions');
        await open(p, '/audit');
        await p.locator('tbody tr').first().waitFor();
        await noSidewaysScroll(p, 'audit');
      });
    });

    it('a rotated key names the key it replaced, both ways', async () => {
      await inTab(DESK, async (p) => {
        await open(p, '/keys');
        const rows = p.locator('tr[data-key-id]', { hasText: 'Billing sync' });
        await expect.poll(() => rows.count()).toBe(2);
        const keys = await call<{
          api_keys: { id: string; name: string; key_prefix: string; rotated_from: string | null }[];
        }>('GET', '/api/v1/api-keys');
        const next = keys.api_keys.find((k) => k.name === 'Billing sync' && k.rotated_from);
        const old = keys.api_keys.find((k) => k.id === next?.rotated_from);
        const newRow = p.locator(`tr[data-key-id="${next?.id}"]`);
        await newRow.getByText('replaces').waitFor();
        expect(await newRow.locator('.rotation a').getAttribute('href')).toBe(`#key-${old?.id}`);
        const oldRow = p.locator(`tr[data-key-id="${old?.id}"]`);
        expect(await oldRow.locator('.rotation').textContent()).toContain(`replaced by ${next?.key_prefix}`);
      });
    });
  });

  describe('the audit log', () => {
    it('names actors and targets, and filters by actor, action and dates', async () => {
      await inTab(DESK, async (p) => {
        await open(p, '/audit');
        const first = p.locator('tbody tr').first();
        await first.waitFor();
        // names arrive with the members, keys and webhooks they come from
        await p
          .locator('td.actor', { hasText: `you (${DEMO_ADMIN.email})` })
          .first()
          .waitFor();
        const actors = await p.locator('td.actor').allTextContents();
        expect(actors.every((a) => !/user:|api_key:|tus_|key_/.test(a))).toBe(true);
        expect((await p.locator('td.target').allTextContents()).join()).toContain('API key “Billing sync”');

        const queries: string[] = [];
        p.on('request', (r) => {
          if (r.url().includes('/api/v2/audit-log')) queries.push(new URL(r.url()).search);
        });
        await p.getByLabel('Action').selectOption('api_key.rotated');
        await expect.poll(() => p.locator('tbody tr').count()).toBe(2);
        await p.getByLabel('Actor').selectOption({ label: `you (${DEMO_ADMIN.email})` });
        await expect.poll(() => queries.at(-1)).toContain('actor=user%3Atus_demo_admin');
        expect(await p.locator('tbody tr').count()).toBe(2);
        const tomorrow = new Date(Date.now() + 86_400_000).toLocaleDateString('en-CA');
        await p.getByLabel('From').fill(tomorrow);
        await p.getByText('Nothing recorded that matches.').waitFor();
        expect(queries.at(-1)).toContain('since=');
        await p.getByRole('button', { name: 'Clear filters' }).click();
        await expect.poll(() => p.locator('tbody tr').count()).toBeGreaterThan(2);
      });
    });
  });

  describe('errors, names and roles', () => {
    it('a failed page shows the request id and a retry; a network failure says so in words', async () => {
      await inTab(DESK, async (p) => {
        let answer: 'error' | 'offline' | 'real' = 'error';
        await p.route('**/api/v1/api-keys', (route) => {
          if (answer === 'error')
            return route.fulfill({
              status: 500,
              headers: { 'X-Request-Id': 'req_console_test_500' },
              json: { detail: 'Internal server error' },
            });
          if (answer === 'offline') return route.abort('internetdisconnected');
          return route.continue();
        });
        await open(p, '/keys');
        const state = p.locator('.error-state');
        await state.getByText('Internal server error').waitFor();
        await state.getByText('req_console_test_500').waitFor();
        answer = 'offline';
        await state.getByRole('button', { name: 'Retry' }).click();
        await state.getByText('The server could not be reached').waitFor();
        expect(await state.textContent()).not.toContain('Failed to fetch');
        answer = 'real';
        await state.getByRole('button', { name: 'Retry' }).click();
        await p.locator('tr[data-key-id]').first().waitFor();
      });
    });

    it('a key made with an `npm run token` identity says "CLI token", with no lookup of that user', async () => {
      const cli = await signDashboardToken(DEV_JWT_SECRET, {
        sub: 'user_local_admin',
        tenant_id: 'ten_demo',
        role: 'tenant_admin',
      });
      await call('POST', '/api/v1/api-keys', { name: 'Made by the CLI', scopes: ['tickets:read'] }, cli);
      await inTab(DESK, async (p) => {
        const lookups: string[] = [];
        p.on('request', (r) => {
          if (/\/api\/v1\/tenant\/users\/user_local_admin/.test(r.url())) lookups.push(r.url());
        });
        await open(p, '/keys');
        const row = p.locator('tr[data-key-id]', { hasText: 'Made by the CLI' });
        await row.waitFor();
        expect(await row.locator('td').nth(3).textContent()).toBe('CLI token');
        await open(p, '/audit');
        await p.locator('td.actor', { hasText: 'CLI token' }).first().waitFor();
        expect(lookups).toEqual([]);
      });
    });

    it('an agent lands on a page it can use (webhooks), an admin on API keys', async () => {
      const invited = await call<{ invite: { token: string } }>('POST', '/api/v1/tenant/users', {
        email: 'agent.home@example.com',
        role: 'agent',
      });
      const accepted = await fetch(`${server.base}/api/v1/auth/accept-invite`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token: invited.invite.token, password: 'agent home password 42' }),
      });
      expect(accepted.status).toBe(200);
      const context = await browser.newContext({ viewport: DESK });
      try {
        const p = await context.newPage();
        await signIn(p, 'agent.home@example.com', 'agent home password 42');
        await expect.poll(() => p.url()).toBe(`${server.base}/console/webhooks`);
        await p.getByRole('heading', { name: 'Webhooks' }).waitFor();
      } finally {
        await context.close();
      }
      await inTab(DESK, async (p) => {
        await expect.poll(() => p.url()).toBe(`${server.base}/console/keys`);
      });
    });
  });

  describe('invitations', () => {
    it('the accept page keeps its token across a reload and names the tenant and the address', async () => {
      expect(paths.has('/api/v1/auth/invite-preview')).toBe(true);
      await call('POST', '/api/v1/tenant/users', { email: 'reload.invite@example.com', role: 'agent' });
      const link = await server.inviteLink('reload.invite@example.com');
      const context = await browser.newContext({ viewport: PHONE });
      try {
        const p = await context.newPage();
        await p.goto(link);
        const about = p.locator('.invite-for');
        await about.getByText('Demo Support Co').waitFor();
        expect(await about.textContent()).toContain('reload.invite@example.com');
        expect(p.url()).not.toContain('token=');
        await p.reload();
        await about.getByText('reload.invite@example.com').waitFor();
        await p.getByLabel('Password', { exact: true }).fill('reloaded and still here 7');
        await p.getByRole('button', { name: 'Set password and sign in' }).click();
        await p.getByRole('navigation', { name: 'Console' }).waitFor();
        await p.getByRole('button', { name: 'Sign out' }).click();
        await p.getByRole('heading', { name: 'Sign in' }).waitFor();
        // a spent or unknown link says so instead of showing the form
        await p.goto(`${server.base}/console/accept-invite?token=itsm_inv_unknown`);
        await p.getByText('This invitation is no longer valid').waitFor();
        expect(await p.getByRole('button', { name: 'Set password and sign in' }).count()).toBe(0);
      } finally {
        await context.close();
      }
    });

    for (const [size, viewport] of SIZES)
      it(`the team page lists pending invitations with copy-link, resend and revoke at ${size}`, async () => {
        expect(paths.has('/api/v1/tenant/invitations')).toBe(true);
        const email = `pending.${viewport.width}@example.com`;
        await inTab(viewport, async (p) => {
          await open(p, '/team');
          await p.getByRole('button', { name: 'Invite member' }).click();
          const dialog = p.getByRole('dialog', { name: 'Invite member' });
          await dialog.getByLabel('Email').fill(email);
          await dialog.getByRole('button', { name: 'Send invitation' }).click();
          await p
            .getByRole('dialog', { name: 'Invitation sent' })
            .getByRole('button', { name: 'Done' })
            .click();
          const row = p.locator(`tr[data-invitation-email="${email}"]`);
          await row.waitFor();
          // an invitee is no member yet: never "Joined now"
          const member = p.locator(`tr[data-user-email="${email}"]`);
          if (await member.count()) expect(await member.textContent()).not.toMatch(/now|ago/);
          await row.getByRole('button', { name: `Copy invitation link for ${email}` }).click();
          const copied = await p.evaluate(() => navigator.clipboard.readText());
          expect(copied).toBe(await server.inviteLink(email));
          await row.getByRole('button', { name: 'Resend' }).click();
          await p.getByRole('status').getByText('the earlier link no longer works').waitFor();
          await row.getByRole('button', { name: 'Revoke' }).click();
          await p
            .getByRole('dialog', { name: 'Revoke invitation' })
            .getByRole('button', { name: 'Revoke' })
            .click();
          await row.waitFor({ state: 'detached' });
          await noSidewaysScroll(p, `team at ${size}`);
        });
      });
  });
});
