import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MAX_SESSION_SECONDS, verifyDashboardToken } from '../../shared/auth/jwt';

// `npm run token` must never mint a token the server then refuses (../shared/DESIGN.md:
// exp - iat <= 3600 s).
const SECRET = 'token-script-test-secret';
const mint = (...args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['scripts/token.ts', '--tenant', 'ten_t', ...args], {
    encoding: 'utf8',
    env: { ...process.env, APP_ENV: 'development', DASHBOARD_JWT_SECRET: SECRET },
  });

describe('npm run token', () => {
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
