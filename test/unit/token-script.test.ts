import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MAX_SESSION_SECONDS, verifyDashboardToken } from '../../shared/auth/jwt';

// `npm run token` must never mint a token the server then refuses: a dashboard token lives at most
// an hour, exp - iat <= 3600 s (docs/auth.md "Dashboard sessions").
const SECRET = 'token-script-test-secret';
const mint = (...args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['scripts/token.ts', '--tenant', 'ten_t', ...args], {
    encoding: 'utf8',
    env: { ...process.env, APP_ENV: 'development', DASHBOARD_JWT_SECRET: SECRET },
  });

/** what a newcomer must learn from --help: every option, its default, and the server's limits */
const USAGE_LINES = [
  'Usage: npm run -s token -- [options]',
  '--tenant <id> ',
  '(default ten_demo',
  '--role <role>   agent, tenant_admin, super_admin (default tenant_admin)',
  '--sub <user> ',
  '(default user_local_admin)',
  `--ttl <s>       lifetime in seconds, 1 to ${MAX_SESSION_SECONDS}: the server refuses longer (default ${MAX_SESSION_SECONDS})`,
  '-h, --help',
];

describe('npm run token', () => {
  it('--help and -h print the usage and exit 0', { timeout: 90_000 }, () => {
    for (const flag of ['--help', '-h']) {
      const run = mint(flag);
      expect(run.status, flag).toBe(0);
      expect(run.stderr, flag).toBe('');
      for (const line of USAGE_LINES) expect(run.stdout, flag).toContain(line);
    }
  });

  it('a wrong option or value: what is wrong and the usage on stderr, exit 2, no stack trace', {
    timeout: 120_000,
  }, () => {
    for (const [args, problem] of [
      [['--tenat', 'ten_x'], "Unknown option '--tenat'"],
      [['--ttl'], "Option '--ttl <value>' argument missing"],
      [['--role', 'owner'], '--role must be one of agent, tenant_admin, super_admin (got owner)'],
      [['ten_x'], "Unexpected argument 'ten_x'"],
    ] as const) {
      const run = mint(...args);
      expect(run.status, problem).toBe(2);
      expect(run.stdout, problem).toBe('');
      expect(run.stderr.split('\n')[0], problem).toBe(problem);
      expect(run.stderr, problem).toContain(USAGE_LINES[0]);
      expect(run.stderr, problem).not.toMatch(/^\s+at /m);
    }
  });

  // each case starts tsx: seconds apiece on a busy machine
  it('refuses a ttl the server would reject, saying why', { timeout: 90_000 }, () => {
    for (const ttl of ['86400', 'soon']) {
      const run = mint('--ttl', ttl);
      expect(run.status, ttl).toBe(2);
      expect(run.stdout, ttl).toBe('');
      expect(run.stderr, ttl).toContain(
        `--ttl must be a whole number of seconds from 1 to ${MAX_SESSION_SECONDS}`,
      );
    }
  });

  it('mints a token the server accepts at the longest allowed ttl', { timeout: 60_000 }, async () => {
    const run = mint('--ttl', String(MAX_SESSION_SECONDS));
    expect(run.status).toBe(0);
    const session = await verifyDashboardToken(run.stdout.trim(), { secret: SECRET });
    expect(session).toMatchObject({ tenantId: 'ten_t', role: 'tenant_admin' });
  });
});
