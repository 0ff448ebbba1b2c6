// The console's account flows and the defects an outside probe found, in headless Chromium at a
// laptop's 1280×800 and a phone's 390×844: signing in when the address has accounts in several
// tenants (the API's 409 and its choice), the invite dialog saying the mail went out, accepting an
// invitation straight into the console with the session it issued, an invitee listed once, the
// audit log's filters and names wrapping whole, rotated keys told apart, the endpoint dialog's
// events side by side without overlap, and every dialog form busy while it sends (one request).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpsReceiver, startHttpsReceiver } from '../../scripts/lib/https-receiver';
import { signDashboardToken } from '../../shared/auth/jwt';
import {
  apiCaller,
  type ConsoleServer,
  chromiumMissing,
  DEMO_ADMIN,
  DEV_JWT_SECRET,
  launchChromium,
  SIZES,
  sessionToken,
  startConsoleServer,
} from './server';

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe.skipIf(chromiumMissing())('the console’s account flows and layout', () => {
  let server: ConsoleServer;
  let receiver: HttpsReceiver;
  let browser: Browser;
  let token = '';
  const pageErrors: string[] = [];

  const { call } = apiCaller(
    () => server.base,
    () => token,
  );

  /** The token of the newest invitation mailed to `email` that is not one of `used`. */
  const mailedToken = async (email: string, used: string[] = []) => {
    const until = Date.now() + 10_000;
    for (;;) {
      const link = await server.inviteLink(email);
      const found = new URL(link).searchParams.get('token') ?? '';
      if (found && !used.includes(found)) return found;
      if (Date.now() > until) throw new Error(`no new invitation mailed to ${email}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  const accept = async (invite: string, password: string) => {
    const res = await fetch(`${server.base}/api/v1/auth/accept-invite`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: invite, password }),
    });
    if (!res.ok) throw new Error(`accept-invite: ${res.status} ${await res.text()}`);
  };

  const signIn = async (p: Page) => {
    await p.goto(`${server.base}/console/`);
    await p.getByLabel('Email').fill(DEMO_ADMIN.email);
    await p.getByLabel('Password').fill(DEMO_ADMIN.password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('navigation', { name: 'Console' }).waitFor();
  };

  /** A tab of its own at `viewport` (signed in as the demo admin unless `signedOut`). */
  const inTab = async (
    viewport: { width: number; height: number },
    check: (p: Page) => Promise<void>,
    signedOut = false,
  ) => {
    const context: BrowserContext = await browser.newContext({ viewport });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    try {
      const p = await context.newPage();
      p.on('pageerror', (e) => pageErrors.push(String(e)));
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

  const noSidewaysScroll = async (p: Page, name: string) => {
    const width = await p.evaluate(() => document.documentElement.scrollWidth);
    expect(width, `${name} is ${width}px wide`).toBeLessThanOrEqual(p.viewportSize()?.width ?? 0);
  };

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    server = await startConsoleServer();
    token = await sessionToken(server.base, DEMO_ADMIN.email, DEMO_ADMIN.password);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
    expect(pageErrors).toEqual([]);
  });

  describe('signing in when the address has accounts in several tenants', () => {
    const platform = () =>
      signDashboardToken(DEV_JWT_SECRET, {
        sub: 'user_platform_ops',
        tenant_id: 'platform',
        role: 'super_admin',
      });

    for (const [size, viewport] of SIZES)
      it(`offers the tenants the API answers with (409), and signs in to the one chosen, at ${size}`, async () => {
        const email = `two.tenants.${viewport.width}@example.com`;
        const password = `same password in both ${viewport.width}`;
        const second = `Second Desk ${viewport.width}`;
        // an account in the demo tenant, and one in a new tenant, with the same password
        await call('POST', '/api/v1/tenant/users', { email, role: 'agent' });
        const first = await mailedToken(email);
        await accept(first, password);
        const created = await call<{ id: string }>(
          'POST',
          '/api/v1/tenants',
          { name: second, plan: 'free', environment: 'sandbox', admin_email: email },
          await platform(),
        );
        await accept(await mailedToken(email, [first]), password);

        await inTab(
          viewport,
          async (p) => {
            await p.goto(`${server.base}/console/`);
            await p.getByLabel('Email').fill(email);
            await p.getByLabel('Password').fill(password);
            await p.getByRole('button', { name: 'Sign in' }).click();
            await p.getByRole('status').getByText('accounts in several tenants').waitFor();
            const choice = p.getByRole('group', { name: 'Which tenant?' });
            const offered = await choice
              .getByRole('radio')
              .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
            expect(offered.sort()).toEqual(['ten_demo', created.id].sort());
            expect(await choice.textContent()).toContain('Demo Support Co');
            expect(await choice.textContent()).toContain(second);
            await noSidewaysScroll(p, `the tenant choice at ${size}`);
            // none picked yet: said, and nothing sent
            await p.getByRole('button', { name: 'Sign in' }).click();
            await p.getByRole('alert').getByText('Choose the tenant to sign in to.').waitFor();
            await choice.getByLabel(new RegExp(second)).check();
            await p.getByRole('button', { name: 'Sign in' }).click();
            await p.getByRole('navigation', { name: 'Console' }).waitFor();
            await p.locator('.who').getByText(second).waitFor();
            // the tenant chosen is picked first when the choice comes again
            await p.getByRole('button', { name: 'Sign out' }).click();
            await p.getByLabel('Email').fill(email);
            await p.getByLabel('Password').fill(password);
            await p.getByRole('button', { name: 'Sign in' }).click();
            await choice.waitFor();
            expect(await choice.getByLabel(new RegExp(second)).isChecked()).toBe(true);
          },
          true,
        );
      });
  });

  describe('invitations', () => {
    for (const [size, viewport] of SIZES)
      it(`the invite dialog says the mail was sent, and the invitee is listed once, at ${size}`, async () => {
        const email = `invited.once.${viewport.width}@example.com`;
        await inTab(viewport, async (p) => {
          await open(p, '/team');
          await p.getByRole('button', { name: 'Invite member' }).click();
          const dialog = p.getByRole('dialog', { name: 'Invite member' });
          await dialog.getByLabel('Email').fill(email);
          await dialog.getByRole('button', { name: 'Send invitation' }).click();
          const sent = p.getByRole('dialog', { name: 'Invitation sent' });
          await sent.getByRole('status').getByText(`We mailed an invitation to ${email}`).waitFor();
          // a development server still returns the link: offered for local use, said to be that
          expect(await sent.textContent()).toContain('Development server');
          expect(await sent.getByRole('textbox', { name: 'Invitation link' }).inputValue()).toBe(
            await server.inviteLink(email),
          );
          await sent.getByRole('button', { name: 'Done' }).click();
          await sent.waitFor({ state: 'detached' });
          const invitation = p.locator(`tr[data-invitation-email="${email}"]`);
          await invitation.waitFor();
          await p.locator('tr[data-user-email]').first().waitFor();
          // once: under the invitations, not again among the members (with a Remove button)
          expect(await p.locator('main').getByText(email, { exact: true }).count()).toBe(1);
          expect(await p.locator(`tr[data-user-email="${email}"]`).count()).toBe(0);
          await noSidewaysScroll(p, `team at ${size}`);
        });
      });

    for (const [size, viewport] of SIZES)
      it(`accepting an invitation opens the console with the session it issued, at ${size}`, async () => {
        const email = `accepts.${viewport.width}@example.com`;
        await call('POST', '/api/v1/tenant/users', { email, role: 'agent' });
        const link = await server.inviteLink(email);
        await inTab(
          viewport,
          async (p) => {
            const signIns: string[] = [];
            p.on('request', (r) => {
              if (r.url().endsWith('/api/v1/auth/login')) signIns.push(r.url());
            });
            await p.goto(link);
            await p.locator('.invite-for').getByText(email).waitFor();
            await p.getByLabel('Password', { exact: true }).fill('accepted straight in 42');
            await p.getByRole('button', { name: 'Set password and sign in' }).click();
            await p.getByRole('navigation', { name: 'Console' }).waitFor();
            // an agent's home page, as the new member, with no second sign-in
            await expect.poll(() => p.url()).toBe(`${server.base}/console/webhooks`);
            await p.locator('.who').getByText(email).waitFor();
            expect(await p.getByRole('heading', { name: 'Sign in' }).count()).toBe(0);
            expect(await p.getByRole('heading', { name: 'You are signed in' }).count()).toBe(0);
            expect(signIns).toEqual([]);
            // the session is a real one: it survives a reload of the tab
            await p.reload();
            await p.locator('.who').getByText(email).waitFor();
            // a member's page reads with it
            await p.goto(`${server.base}/console/team`);
            await p.locator(`tr[data-user-email="${email}"]`).waitFor();
          },
          true,
        );
        // now a member: the admin sees them once, among the members
        await inTab(viewport, async (p) => {
          await open(p, '/team');
          await p.locator(`tr[data-user-email="${email}"]`).waitFor();
          expect(await p.locator(`tr[data-invitation-email="${email}"]`).count()).toBe(0);
        });
      });
  });

  describe('the audit log', () => {
    const longEmail = 'customer.success.operations.lead@subsidiary-division.example-enterprises.com';
    let longUrl = '';
    let keyName = '';
    beforeAll(async () => {
      longUrl = receiver.url('/integrations/warehouse-synchronisation/tickets-and-conversations/v2');
      await call('POST', '/api/v1/webhooks', { url: longUrl, events: ['ticket.created'] });
      await call('POST', '/api/v1/tenant/users', { email: longEmail, role: 'agent' });
      keyName = 'Rotated twice';
      const created = await call<{ id: string }>('POST', '/api/v1/api-keys', {
        name: keyName,
        scopes: ['tickets:read'],
      });
      const once = await call<{ id: string }>('POST', `/api/v1/api-keys/${created.id}/rotate`);
      await call('POST', `/api/v1/api-keys/${once.id}/rotate`);
    });

    for (const [size, viewport] of SIZES)
      it(`each filter's label stays beside its box, and names wrap only between words, at ${size}`, async () => {
        await inTab(viewport, async (p) => {
          await open(p, '/audit');
          await p.locator('td.target', { hasText: 'warehouse' }).first().waitFor();
          // beside at this size, and at every width the filters may get (a narrower window, a
          // longer actor name): each label wraps with its box, never apart
          const apart = await p.locator('form.filters').evaluate((form) => {
            const found: string[] = [];
            const check = (width: string) => {
              for (const label of form.querySelectorAll('label')) {
                const control = document.getElementById(label.getAttribute('for') ?? '');
                if (!control) found.push(`${label.textContent}: no control`);
                if (!control) continue;
                const l = label.getBoundingClientRect();
                const c = control.getBoundingClientRect();
                const middle = l.top + l.height / 2;
                if (!(middle > c.top && middle < c.bottom && l.right <= c.left + 1))
                  found.push(
                    `${width}: "${label.textContent}" at (${l.left},${l.top}), its box at (${c.left},${c.top})`,
                  );
              }
            };
            const el = form as HTMLElement;
            check('as shown');
            for (let w = 300; w <= 1000; w += 10) {
              el.style.width = `${w}px`;
              check(`${w}px`);
            }
            el.style.width = '';
            return found;
          });
          expect(apart).toEqual([]);
          // every line break in an actor's or target's name falls after a space or punctuation
          const cells = p.locator('table.audit td.actor, table.audit td.target');
          const midWord = await cells.evaluateAll((tds) =>
            tds.flatMap((td) => {
              const text = td.textContent ?? '';
              const breaks: string[] = [];
              const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
              let top: number | undefined;
              let before = '';
              for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const value = node.nodeValue ?? '';
                for (let i = 0; i < value.length; i++) {
                  const range = document.createRange();
                  range.setStart(node, i);
                  range.setEnd(node, i + 1);
                  const rect = range.getClientRects()[0];
                  const ch = value[i] ?? '';
                  if (
                    rect &&
                    top !== undefined &&
                    rect.top > top + 2 &&
                    /[a-z0-9]/i.test(before) &&
                    /[a-z0-9]/i.test(ch)
                  )
                    breaks.push(`${text}: "${before}|${ch}"`);
                  if (rect) top = rect.top;
                  before = ch;
                }
              }
              return breaks;
            }),
          );
          expect(midWord).toEqual([]);
          // and they did wrap: these names are wider than their cell
          const wrapped = await p
            .locator('table.audit td.target', { hasText: 'warehouse' })
            .first()
            .evaluate(
              (td) => td.getClientRects()[0] && td.querySelector('.breakable')?.getClientRects().length,
            );
          expect(wrapped).toBeGreaterThan(1);
          await noSidewaysScroll(p, `audit at ${size}`);
        });
      });

    for (const [size, viewport] of SIZES)
      it(`the actor filter tells a rotated key's generations apart by their prefix, at ${size}`, async () => {
        const keys = await call<{ api_keys: { name: string; key_prefix: string }[] }>(
          'GET',
          '/api/v1/api-keys',
        );
        const prefixes = keys.api_keys.filter((k) => k.name === keyName).map((k) => k.key_prefix);
        expect(prefixes).toHaveLength(3);
        await inTab(viewport, async (p) => {
          await open(p, '/audit');
          const actor = p.getByLabel('Actor');
          await expect
            .poll(() => actor.locator('option', { hasText: keyName }).count(), { timeout: 10_000 })
            .toBe(3);
          const labels = await actor.locator('option', { hasText: keyName }).allTextContents();
          expect(new Set(labels).size).toBe(3);
          for (const prefix of prefixes)
            expect(
              labels.filter((l) => l.includes(`(${prefix}…)`)),
              prefix,
            ).toHaveLength(1);
          await noSidewaysScroll(p, `audit filters at ${size}`);
        });
      });
  });

  describe('dialogs', () => {
    for (const [size, viewport] of SIZES)
      it(`"Add endpoint" lays its events out without overlap, at ${size}`, async () => {
        await inTab(viewport, async (p) => {
          await open(p, '/webhooks');
          await p.getByRole('button', { name: 'Add endpoint' }).click();
          const dialog = p.getByRole('dialog', { name: 'Add endpoint' });
          await dialog.getByLabel('conversation.note_added').waitFor();
          const boxes = await dialog.locator('.event-groups label.check').evaluateAll((labels) =>
            labels.map((l) => {
              const r = (l.lastElementChild ?? l).getBoundingClientRect();
              const box = l.querySelector('input')?.getBoundingClientRect();
              const group = l.closest('fieldset')?.getBoundingClientRect();
              return {
                name: l.textContent ?? '',
                text: { x: r.x, y: r.y, width: r.width, height: r.height },
                box: box ? { x: box.x, y: box.y, width: box.width, height: box.height } : null,
                inside: !!group && r.right <= group.right + 0.5 && r.left >= group.left,
              };
            }),
          );
          expect(boxes.length).toBeGreaterThan(10);
          const spilled = boxes.filter((b) => !b.inside).map((b) => b.name);
          expect(spilled, 'names running out of their group').toEqual([]);
          const overlaps: string[] = [];
          for (const a of boxes)
            for (const b of boxes)
              if (a !== b && b.box && overlap(a.text, b.box))
                overlaps.push(`${a.name} over ${b.name}'s checkbox`);
          expect(overlaps).toEqual([]);
          // and each group keeps to its cell of the grid: the gap between groups stays
          const groups = await dialog.locator('.event-groups > fieldset').evaluateAll((sets) =>
            sets.map((f) => {
              const r = f.getBoundingClientRect();
              return {
                name: f.querySelector('legend')?.textContent ?? '',
                x: r.x - 3,
                y: r.y - 3,
                width: r.width + 6,
                height: r.height + 6,
              };
            }),
          );
          const touching: string[] = [];
          for (const [i, a] of groups.entries())
            for (const b of groups.slice(i + 1)) if (overlap(a, b)) touching.push(`${a.name} into ${b.name}`);
          expect(touching).toEqual([]);
        });
      });

    for (const [size, viewport] of SIZES)
      it(`every dialog form is busy while it sends, and a double click sends once, at ${size}`, async () => {
        await inTab(viewport, async (p) => {
          const posts: string[] = [];
          // the API is slow to answer: time for a second click on the same submit
          await p.route('**/api/v1/**', async (r) => {
            if (r.request().method() !== 'POST' || r.request().url().includes('/auth/')) return r.continue();
            posts.push(new URL(r.request().url()).pathname);
            await new Promise((done) => setTimeout(done, 400));
            await r.continue();
          });
          const forms = [
            {
              page: '/keys',
              open: 'Create key',
              title: 'Create API key',
              fill: async (d: ReturnType<Page['getByRole']>) => {
                await d.getByLabel('Name').fill(`Double click ${viewport.width}`);
                await d.getByLabel('tickets:read').check();
              },
              submit: 'Create key',
              path: '/api/v1/api-keys',
            },
            {
              page: '/team',
              open: 'Invite member',
              title: 'Invite member',
              fill: async (d: ReturnType<Page['getByRole']>) => {
                await d.getByLabel('Email').fill(`double.click.${viewport.width}@example.com`);
              },
              submit: 'Send invitation',
              path: '/api/v1/tenant/users',
            },
            {
              page: '/webhooks',
              open: 'Add endpoint',
              title: 'Add endpoint',
              fill: async (d: ReturnType<Page['getByRole']>) => {
                await d.getByLabel('Endpoint URL').fill(receiver.url(`/double-${viewport.width}`));
                await d.getByLabel('ticket.created').check();
              },
              submit: 'Add endpoint',
              path: '/api/v1/webhooks',
            },
          ];
          for (const form of forms) {
            await open(p, form.page);
            await p.getByRole('button', { name: form.open }).click();
            const dialog = p.getByRole('dialog', { name: form.title });
            await form.fill(dialog);
            const submit = dialog.getByRole('button', { name: form.submit });
            await submit.dblclick();
            await expect.poll(() => submit.isDisabled(), { timeout: 2_000 }).toBe(true);
            await dialog.waitFor({ state: 'detached' });
            expect(
              posts.filter((x) => x === form.path),
              form.title,
            ).toHaveLength(1);
          }
        });
      });
  });
});
