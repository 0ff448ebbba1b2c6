/**
 * `npm start` refusing to start, as a newcomer meets it: one line saying what to do, exit 1, no
 * stack trace, and before the slow start-up (PGlite, migrations) where that is possible.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_SECRETS } from '../support/harness';
import { type ServerProcess, startServer } from './server-process';

const dir = mkdtempSync(join(tmpdir(), 'serve-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** scripts/serve.ts run to its exit (each case here must end on its own) */
function serveUntilExit(env: Record<string, string | undefined>) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/serve.ts'], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...TEST_SECRETS, APP_ENV: 'test', DATABASE_URL: '', HOST: '127.0.0.1', ...env },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}
const STACK_FRAME = /^\s+at /m;

describe('npm start refuses to start, in one line', () => {
  it('on a port in use: before opening the database', async () => {
    const occupant = createServer();
    await new Promise<void>((r) => occupant.listen(0, '127.0.0.1', r));
    const { port } = occupant.address() as AddressInfo;
    const dataDir = join(dir, 'port-in-use');
    try {
      const run = serveUntilExit({ PORT: String(port), DATA_DIR: dataDir });
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        `Port ${port} on 127.0.0.1 is in use: stop the other server or choose another port (PORT=${port + 1} npm start)\n`,
      );
      // PGlite never ran: no initdb in DATA_DIR, and the lock released on exit
      expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(false);
      expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
    } finally {
      occupant.close();
    }
  });

  it('in production without its secrets: every one named at once', () => {
    const unset = Object.fromEntries(Object.keys(TEST_SECRETS).map((name) => [name, undefined]));
    const run = serveUntilExit({ ...unset, APP_ENV: 'production', DATA_DIR: join(dir, 'production') });
    expect(run.status).toBe(1);
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(run.stderr).toMatch(/^Invalid environment \(6 problems\):\n/);
    for (const name of [
      'DASHBOARD_JWT_SECRET',
      'END_USER_JWT_SECRET',
      'INTERNAL_API_TOKEN',
      'API_KEY_HASH_SECRET',
      'WEBHOOK_ENCRYPTION_KEY',
      'VOICE_WIDGET_SECRET',
    ])
      expect(run.stderr).toContain(`\n  ${name} must be set when APP_ENV=production`);
  });
});

describe('npm start in production without PUBLIC_BASE_URL', () => {
  it('refuses in one line, before opening the database: links would have no trusted base', () => {
    const dataDir = join(dir, 'no-public-base');
    const run = serveUntilExit({
      APP_ENV: 'production',
      VOICE_WIDGET_SECRET: 'voice-widget-secret-for-tests',
      PUBLIC_BASE_URL: '',
      DATA_DIR: dataDir,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      'PUBLIC_BASE_URL must be set when APP_ENV=production: every link mailed (invites, password resets) starts with it (PUBLIC_BASE_URL=https://support.example.com npm start)\n',
    );
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(false);
  });
});

describe('npm start with a redis:// URL where the Upstash REST URL goes', () => {
  it('refuses in one line naming REDIS_URL, before opening the database', () => {
    const dataDir = join(dir, 'redis-in-upstash');
    const run = serveUntilExit({
      UPSTASH_REDIS_REST_URL: 'redis://127.0.0.1:6379',
      UPSTASH_REDIS_REST_TOKEN: 'x',
      DATA_DIR: dataDir,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      "UPSTASH_REDIS_REST_URL takes Upstash's https:// REST URL; a plain Redis goes in REDIS_URL (REDIS_URL=redis://127.0.0.1:6379 npm start)\n",
    );
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(false);
  });
});

describe('secrets are not printed outside development', () => {
  let server: ServerProcess | undefined;
  afterAll(() => server?.kill());

  it('production with DEMO_ADMIN_PASSWORD: the banner names the variable, never its value', async () => {
    const password = 'production-demo-admin-secret';
    server = await startServer({
      APP_ENV: 'production',
      VOICE_WIDGET_SECRET: 'voice-widget-secret-for-tests',
      PUBLIC_BASE_URL: 'https://support.example.com',
      DEMO_ADMIN_PASSWORD: password,
      DATA_DIR: join(dir, 'production-demo'),
      DATABASE_URL: '',
    });
    // the admin exists, with that password
    const signedIn = await fetch(`${server.base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'admin@demo.example', password }),
    });
    expect(signedIn.status).toBe(200);
    expect(server.output()).toContain('(sign in as admin@demo.example with DEMO_ADMIN_PASSWORD)');
    expect(server.output()).not.toContain(password);
  });
});

describe('two npm start on one DATA_DIR (PGlite)', () => {
  let first: ServerProcess | undefined;
  afterAll(() => first?.kill());

  it('the second refuses, naming the first one pid; the first keeps serving', async () => {
    const dataDir = join(dir, 'shared-data');
    first = await startServer({ DATA_DIR: dataDir, DATABASE_URL: '' });
    // its banner's token line pastes into TOKEN=$(…) without npm's own banner
    expect(first.output()).toContain(
      'Admin token:  npm run -s token -- --tenant ten_demo --role tenant_admin',
    );

    const second = serveUntilExit({ PORT: '0', DATA_DIR: dataDir });
    expect(second.status).toBe(1);
    expect(second.stderr).toBe(
      `DATA_DIR ${dataDir} is in use by another server, pid ${first.child.pid} (${join(dataDir, 'server.lock')}): two processes writing one PGlite directory can corrupt it. Stop that server, or give this one its own (DATA_DIR=.data-2 npm start)\n`,
    );
    expect((await fetch(`${first.base}/api/v2/health`)).status).toBe(200);
    // npm run migrate keeps out too
    const migrate = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, ...TEST_SECRETS, APP_ENV: 'test', DATABASE_URL: '', DATA_DIR: dataDir },
    });
    expect(migrate.status).toBe(1);
    expect(migrate.stderr).toContain(
      `DATA_DIR ${dataDir} is in use by another server, pid ${first.child.pid}`,
    );
    expect(migrate.stderr).not.toMatch(STACK_FRAME);

    // stopped, it leaves DATA_DIR to the next server
    await first.kill('SIGTERM');
    expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
  });
});
