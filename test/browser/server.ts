// `npm start` for the browser tests: a port the OS picks (PORT=0, read back from its start line),
// its own DATA_DIR, a local HTTPS receiver allowed and trusted, a short retry unit, and its stdout
// kept (the development mail adapter prints mail there).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { TLS_CERT_PATH } from '../../scripts/lib/https-receiver';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROOT = join(import.meta.dirname, '..', '..');

/** With CI=true a missing Chromium fails (beforeAll throws) instead of skipping. */
export const chromiumMissing = () => !existsSync(CHROMIUM) && process.env.CI !== 'true';

/** The demo admin `npm start` seeds (scripts/seed.ts). */
export const DEMO_ADMIN = { email: 'admin@demo.example', password: 'demo-admin-password' };

/** Headless Chromium as the browser tests run it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A dashboard session's access token, for a test's own calls to the API (setting up data). */
export async function sessionToken(base: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (!res.ok) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/**
 * A test's own calls to the API (setting up data, reading what a page did): JSON in and out, with
 * `bearer()` as the credential unless a call names its own ('' for none). `send` gives back the
 * response; `call` throws on any status but 2xx, with the body, and reads a 204 as `{}`.
 */
export function apiCaller(base: () => string, bearer: () => string) {
  const send = (method: string, path: string, body?: unknown, token = bearer()) =>
    fetch(`${base()}${path}`, {
      method,
      headers: {
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        'Content-Type': 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const call = async <T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<T> => {
    const res = await send(method, path, body, token);
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? {} : await res.json()) as T;
  };
  return { send, call };
}

export interface ConsoleServer {
  base: string;
  /** everything the server printed so far */
  output(): string;
  /** the link of the newest invitation mailed to `email` (waits for it) */
  inviteLink(email: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The address `npm start` prints once it listens. A server that exits first (a refused
 * configuration, a port it could not take) fails the caller at once, with what it printed.
 */
async function listeningUrl(server: ChildProcess, output: () => string, ms: number): Promise<string> {
  const until = Date.now() + ms;
  for (;;) {
    const url = output().match(/listening on (http:\/\/\S+)/)?.[1];
    if (url) return url;
    if (server.exitCode !== null || server.signalCode !== null)
      throw new Error(
        `the server exited (${server.exitCode ?? server.signalCode}) before listening:\n${output()}`,
      );
    if (Date.now() > until) throw new Error(`the server did not listen within ${ms} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startConsoleServer(): Promise<ConsoleServer> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: apt-get install -y chromium`);
  const dataDir = mkdtempSync(join(tmpdir(), 'spa-console-'));
  let out = '';
  const server = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/serve.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      APP_ENV: 'development',
      WEBHOOK_SSRF_ALLOW: 'localhost',
      NODE_EXTRA_CA_CERTS: TLS_CERT_PATH,
      WEBHOOK_RETRY_UNIT_MS: '200',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  server.stderr?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  const base = await listeningUrl(server, () => out, 120_000);
  return {
    base,
    output: () => out,
    async inviteLink(email) {
      const until = Date.now() + 10_000;
      for (;;) {
        const at = out.lastIndexOf(email);
        const link = at >= 0 ? out.slice(at).match(/https?:\/\/\S+token=[^\s"'<>]+/)?.[0] : undefined;
        if (link) return link;
        if (Date.now() > until) throw new Error(`no invitation mailed to ${email} in:\n${out.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {
      if (server.exitCode === null) {
        server.kill('SIGTERM');
        await new Promise((r) => server.once('exit', r));
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * On the keys page: types a key into the create dialog, then sends it while the server refuses the
 * access token and the refresh token (a session ended elsewhere). Returns the create dialog and the
 * "Your session ended" dialog now open over it; later requests reach the server again.
 */
export async function endSessionWhileCreatingKey(page: Page) {
  await page.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create API key' });
  await dialog.getByLabel('Name').fill('Typed before the session ended');
  await dialog.getByLabel('calls:read').check();
  const refused = { status: 401, json: { detail: 'Invalid or expired session token' } };
  await page.route('**/api/v1/api-keys', (r) =>
    r.request().method() === 'POST' ? r.fulfill(refused) : r.continue(),
  );
  // as the server answers a dead session cookie: 401, and the cookie cleared (else a later renewal
  // would find the live one the browser still holds)
  await page.route('**/api/v1/auth/session', (r) =>
    r.fulfill({
      ...refused,
      headers: {
        'Set-Cookie': 'itsm_refresh=; Path=/api/v1/auth; Max-Age=0; HttpOnly; Secure; SameSite=Strict',
      },
    }),
  );
  await dialog.getByRole('button', { name: 'Create key' }).click();
  const ended = page.getByRole('dialog', { name: 'Your session ended' });
  await ended.waitFor();
  await page.unroute('**/api/v1/api-keys');
  await page.unroute('**/api/v1/auth/session');
  return { dialog, ended };
}

/** The two screens every console page is tested at. */
export const DESK = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
export const SIZES = [
  ['1280×800', DESK],
  ['390×844', PHONE],
] as const;
/** the development default `npm start` signs with (shared/env.ts) */
export const DEV_JWT_SECRET = 'dev-dashboard-jwt-secret-change-me';
