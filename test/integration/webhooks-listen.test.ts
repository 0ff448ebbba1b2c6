// README's "Receive your first webhook", run as a newcomer would: `npm run webhooks:listen -- --init`,
// the server started with the line it prints, a dashboard token from `npm run token`, the listener
// subscribed with it, a ticket created, and the verified delivery line. Real processes on real ports.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookUrlError } from '../../shared/webhooks/ssrf';
import { freePort } from '../support/free-port';
import { postgresUnavailable, startHarness, TEST_DB } from '../support/harness';
import { createTestDatabase } from '../support/pg';

const ROOT = join(import.meta.dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/**
 * The script behind an npm script of package.json, as node arguments (spawned without npm's own
 * start-up): `tsx <file> …` or `exec node --import tsx <file> …`.
 */
function npmScript(name: string): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = pkg.scripts[name]!.split(' ');
  const direct = ['exec', 'node', '--import', 'tsx'];
  if (direct.every((w, i) => words[i] === w)) return ['--import', 'tsx', ...words.slice(direct.length)];
  const [runner, ...rest] = words;
  expect(runner).toBe('tsx');
  return ['--import', 'tsx', ...rest];
}

interface Proc {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  stop(): Promise<void>;
}

type Env = Record<string, string | undefined>;
/** this process's environment with `env` applied; `undefined` removes a variable */
function withEnv(env: Env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete out[name];
  return out;
}

function start(args: string[], env: Env): Proc {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: withEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (d) => (log += d));
  child.stderr?.on('data', (d) => (log += d));
  return {
    child,
    output: () => log,
    async waitFor(pattern, ms = 60_000) {
      for (const until = Date.now() + ms; Date.now() < until; ) {
        const match = log.match(pattern);
        if (match) return match;
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no ${pattern} in the output of ${args.join(' ')}:\n${log}`);
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
    },
  };
}

describe.skipIf(postgresUnavailable())(
  'npm run webhooks:listen (README: receive your first webhook)',
  { timeout: 180_000 },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-listen-'));
    const certDir = join(dir, 'cert');
    let server: Proc | undefined;
    let listener: Proc | undefined;
    let dropDatabase: (() => Promise<void>) | undefined;
    let serverEnv: Env;
    /** the server's address, from its start line (it listens on a port the OS picks) */
    let api = '';

    beforeAll(async () => {
      // APP_ENV and the secrets unset, as on a fresh clone: the server runs in development
      serverEnv = {
        APP_ENV: undefined,
        DASHBOARD_JWT_SECRET: undefined,
        PORT: '0',
        HOST: '127.0.0.1',
      };
      if (TEST_DB === 'postgres') {
        const db = await createTestDatabase(process.env.TEST_POSTGRES_TEMPLATE!);
        dropDatabase = db.drop;
        serverEnv.DATABASE_URL = db.url;
      } else {
        serverEnv.DATA_DIR = join(dir, 'data');
        serverEnv.DATABASE_URL = undefined;
      }
    });
    afterAll(async () => {
      await listener?.stop();
      await server?.stop();
      await dropDatabase?.();
      rmSync(dir, { recursive: true, force: true });
    });

    it('init prints the start line README shows; the listener gets a verified delivery', async () => {
      const init = spawnSync(
        process.execPath,
        [...npmScript('webhooks:listen'), '--init', '--dir', certDir],
        {
          cwd: ROOT,
          encoding: 'utf8',
        },
      );
      expect(init.status).toBe(0);
      const certPath = join(certDir, 'localhost.crt');
      const startLine = init.stdout.match(
        /^ {2}(WEBHOOK_SSRF_ALLOW=localhost NODE_EXTRA_CA_CERTS=(\S+) npm start)$/m,
      );
      expect(startLine?.[2]).toBe(certPath.startsWith(ROOT) ? certPath.slice(ROOT.length + 1) : certPath);
      // README shows the same line for the default directory
      expect(README).toContain(
        'WEBHOOK_SSRF_ALLOW=localhost NODE_EXTRA_CA_CERTS=.data-webhooks/localhost.crt npm start',
      );
      expect(README).toContain('npm run -s webhooks:listen -- --init');
      expect(README).toContain('npm run -s webhooks:listen -- --token "$TOKEN"');

      server = start(npmScript('start'), {
        ...serverEnv,
        WEBHOOK_SSRF_ALLOW: 'localhost',
        NODE_EXTRA_CA_CERTS: certPath,
      });
      // PGlite's migrations on a busy two-core machine can take more than a minute
      api = (await server.waitFor(/listening on (http:\/\/\S+)/, 150_000))[1]!;
      const token = spawnSync(
        process.execPath,
        [...npmScript('token'), '--tenant', 'ten_demo', '--role', 'tenant_admin'],
        {
          cwd: ROOT,
          encoding: 'utf8',
          env: withEnv(serverEnv),
        },
      ).stdout.trim();
      expect(token.split('.')).toHaveLength(3);

      listener = start(
        [...npmScript('webhooks:listen'), '--token', token, '--api', api, '--port', '0', '--dir', certDir],
        {},
      );
      const [, subscription] = await listener.waitFor(/Subscribed (\S+) to \*/);
      await listener.waitFor(/Secret: whsec_/);
      await listener.waitFor(/Listening on https:\/\/localhost:\d+\/webhooks/);
      // the certificate exists since --init: one line about it, not the start-line block again
      expect(listener.output()).toContain(
        `Certificate: ${startLine?.[2]} (--init prints the server's start line again)`,
      );
      expect(listener.output()).not.toContain('Start the server so that');

      const created = await fetch(`${api}/api/v1/tickets`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ subject: 'My first webhook' }),
      });
      expect(created.status).toBe(201);
      const [line] = await listener.waitFor(
        /ticket\.created {2}delivery (\S+) {2}attempt 1 {2}signature verified {2}-> 200/,
      );
      expect(line).toBeTruthy();

      // the server recorded the delivery as delivered (the listener answered 200)
      const deliveries = await fetch(`${api}/api/v1/webhooks/${subscription}/deliveries`, {
        headers: { Authorization: `Bearer ${token}` },
      }).then((r) => r.json() as Promise<{ deliveries: { status: string; event_type: string }[] }>);
      expect(deliveries.deliveries.map((d) => [d.event_type, d.status])).toContainEqual([
        'ticket.created',
        'delivered',
      ]);

      // Ctrl-C removes the subscription it made
      await listener.stop();
      expect(listener.output()).toContain(`Removed subscription ${subscription}`);
      const after = await fetch(`${api}/api/v1/webhooks/${subscription}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(after.status).toBe(404);
    });

    it('a wrong secret is reported INVALID and refused with 401', async () => {
      expect(server, 'runs after the first test').toBeDefined();
      const listenPort = await freePort();
      const token = spawnSync(process.execPath, [...npmScript('token'), '--tenant', 'ten_demo'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: withEnv(serverEnv),
      }).stdout.trim();
      const hook = await fetch(`${api}/api/v1/webhooks`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          url: `https://localhost:${listenPort}/webhooks`,
          events: ['ticket.created'],
        }),
      }).then((r) => r.json() as Promise<{ id: string }>);
      listener = start(
        [
          ...npmScript('webhooks:listen'),
          '--secret',
          'whsec_not_the_secret',
          '--port',
          String(listenPort),
          '--dir',
          certDir,
        ],
        {},
      );
      await listener.waitFor(/Listening on/);
      await fetch(`${api}/api/v1/tickets`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ subject: 'Signed with another secret' }),
      });
      await listener.waitFor(/ticket\.created {2}delivery \S+ {2}attempt 1 {2}signature INVALID {2}-> 401/);
      await fetch(`${api}/api/v1/webhooks/${hook.id}`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${token}` },
      });
    });
  },
);

describe('npm run webhooks:listen with no server at --api', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-listen-unreachable-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says the server must run and how to point --api at another port', { timeout: 60_000 }, async () => {
    const api = `http://127.0.0.1:${await freePort()}`;
    const run = spawnSync(
      process.execPath,
      [
        ...npmScript('webhooks:listen'),
        '--token',
        'any',
        '--api',
        api,
        '--port',
        '0',
        '--dir',
        join(dir, 'cert'),
      ],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(run.status).toBe(1);
    // a certificate made just now: the server must be (re)started with it, so the whole block
    // the port the OS gave (--port 0), never 0 itself
    expect(run.stdout).toMatch(
      /Start the server so that it may deliver to https:\/\/localhost:[1-9]\d*\/webhooks/,
    );
    expect(run.stderr).toContain(`Could not reach ${api} (ECONNREFUSED): is the server running there?`);
    expect(run.stderr).toContain('point this command at it: --api http://127.0.0.1:<PORT>');
  });
});

describe.skipIf(postgresUnavailable())(
  'the private-address 400 names the local escape hatch in development only',
  () => {
    it.each([
      ['development', true],
      ['production', false],
      ['test', false],
    ])('APP_ENV=%s', async (appEnv, hinted) => {
      const h = await startHarness({ APP_ENV: appEnv, VOICE_WIDGET_SECRET: 'test-voice-secret' });
      try {
        const tenant = await h.tenant();
        const res = await h.request('POST', '/api/v1/webhooks', {
          bearer: tenant.adminToken,
          body: { url: 'https://localhost:8788/webhooks', events: ['*'] },
        });
        expect(res.status).toBe(400);
        if (hinted) {
          expect(res.body.detail).toMatch(new RegExp(`^${WebhookUrlError.private}\\. `));
          expect(res.body.detail).toContain('WEBHOOK_SSRF_ALLOW=localhost');
          expect(res.body.detail).toContain('npm run webhooks:listen');
        } else {
          expect(res.body).toEqual({ detail: WebhookUrlError.private });
        }
      } finally {
        await h.close();
      }
    });
  },
);

describe('npm run webhooks:listen when TLS to it fails', { timeout: 90_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-listen-tls-'));
  let listener: Proc;
  let port = 0;
  beforeAll(async () => {
    // the test certificate in place of a new one (a 2048-bit key takes long on a busy machine)
    for (const ext of ['crt', 'key'])
      copyFileSync(join(ROOT, 'scripts/lib/tls', `localhost.${ext}`), join(dir, `localhost.${ext}`));
    listener = start([...npmScript('webhooks:listen'), '--port', '0', '--dir', dir], {});
    port = Number((await listener.waitFor(/Listening on https:\/\/localhost:(\d+)\/webhooks/))[1]);
  }, 90_000);
  afterAll(async () => {
    await listener?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** the listener's line about the client that connected from `clientPort` */
  const lineAbout = async (clientPort: number) =>
    (
      await listener.waitFor(
        new RegExp(`^\\S+ {2}TLS handshake from 127\\.0\\.0\\.1:${clientPort} failed: (.+)$`, 'm'),
        20_000,
      )
    )[1]!;

  /** a TCP client that sends `bytes` (or runs a TLS handshake with `tlsOptions`); its local port */
  const client = (send: { bytes: string } | { tlsOptions: ConnectionOptions }) =>
    new Promise<number>((resolve, reject) => {
      const socket =
        'bytes' in send
          ? netConnect({ host: '127.0.0.1', port }, () => socket.write(send.bytes))
          : tlsConnect({ host: '127.0.0.1', port, servername: 'localhost', ...send.tlsOptions });
      socket.on('error', () => {});
      socket.once('connect', () => resolve(socket.localPort!));
      socket.once('close', () => socket.destroy());
      setTimeout(() => socket.destroy(), 5_000).unref();
      socket.once('error', (e) => (socket.localPort ? undefined : reject(e)));
    });

  it('plain HTTP to the HTTPS port: one line with the client address and the reason', async () => {
    const from = await client({ bytes: 'POST /webhooks HTTP/1.1\r\nHost: localhost\r\n\r\n' });
    expect(await lineAbout(from)).toMatch(/^plain HTTP sent to this HTTPS port .*\(ERR_SSL_HTTP_REQUEST\)$/);
  });

  it('a TLS version the listener does not speak, and bytes that are no handshake', async () => {
    const old = await client({
      tlsOptions: { maxVersion: 'TLSv1', minVersion: 'TLSv1', rejectUnauthorized: false },
    });
    expect(await lineAbout(old)).toMatch(/TLS version this listener does not speak/);
    const garbage = await client({ bytes: 'hello\r\n\r\n' });
    expect(await lineAbout(garbage)).toMatch(/\(ERR_SSL_\w+\)$/);
  });

  it('a client that does not trust the certificate and aborts: the line names NODE_EXTRA_CA_CERTS', async () => {
    // Node's own trust store, without the listener's certificate: the client hangs up mid-handshake
    const from = await client({ tlsOptions: { ca: [], rejectUnauthorized: true } });
    expect(await lineAbout(from)).toContain(`NODE_EXTRA_CA_CERTS=${join(dir, 'localhost.crt')}`);
    // a client that trusts it completes its handshake, and gets no line (the next client's line
    // comes after any line about it)
    const trusted = await new Promise<number>((resolve, reject) => {
      const socket = tlsConnect(
        { host: '127.0.0.1', port, servername: 'localhost', ca: readFileSync(join(dir, 'localhost.crt')) },
        () => {
          resolve(socket.localPort!);
          socket.end();
        },
      );
      socket.once('error', reject);
    });
    await lineAbout(await client({ bytes: 'GET / HTTP/1.1\r\n\r\n' }));
    expect(listener.output()).not.toContain(`127.0.0.1:${trusted} `);
  });
});
