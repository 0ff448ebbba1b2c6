// A private PostgreSQL instance (initdb in a temp dir, own port) that a test may stop and start
// without disturbing the machine's shared server.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PG_BIN = (() => {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const version = readdirSync(root).sort().pop();
  return version ? join(root, version, 'bin') : null;
})();

const asPostgres = (bin: string, args: string[]) =>
  execFileSync('runuser', ['-u', 'postgres', '--', join(PG_BIN!, bin), ...args], {
    stdio: 'pipe',
    timeout: 60_000,
  });

export const privatePostgresAvailable = () => PG_BIN !== null && process.getuid?.() === 0;

export function startPrivatePostgres(port: number) {
  const dir = mkdtempSync(join(tmpdir(), 'spa-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const start = () =>
    asPostgres('pg_ctl', [
      '-D',
      data,
      '-o',
      `-p ${port} -k ${dir} -c fsync=off`,
      '-l',
      join(dir, 'log'),
      '-w',
      'start',
    ]);
  const stop = (mode: 'fast' | 'immediate' = 'immediate') =>
    asPostgres('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    destroy() {
      try {
        stop('immediate');
      } catch {
        /* already stopped */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
