import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkPortFree,
  checkPublicBaseUrl,
  DATA_DIR_LOCK,
  listeningBase,
  lockDataDir,
  parsePort,
  StartupError,
} from '../../scripts/startup-checks';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'startup-checks-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('checkPortFree', () => {
  it('refuses a port in use with the one line to act on', async () => {
    const occupant: Server = createServer();
    await new Promise<void>((r) => occupant.listen(0, '127.0.0.1', r));
    const { port } = occupant.address() as { port: number };
    try {
      const refusal = await checkPortFree(port, '127.0.0.1').catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(StartupError);
      expect((refusal as Error).message).toBe(
        `Port ${port} on 127.0.0.1 is in use: stop the other server or choose another port (PORT=${port + 1} npm start)`,
      );
    } finally {
      occupant.close();
    }
    // and once it is free again, the probe leaves it free
    await checkPortFree(port, '127.0.0.1');
    await checkPortFree(port, '127.0.0.1');
  });

  it('PORT must be a port number', () => {
    expect(parsePort(undefined)).toBe(8787);
    expect(parsePort('8788')).toBe(8788);
    for (const bad of ['', 'http', '70000', '-1', '87.5'])
      expect(() => parsePort(bad), bad).toThrow(`PORT must be a port number from 0 to 65535 (got "${bad}")`);
  });
});

describe('lockDataDir', () => {
  it('takes DATA_DIR with a file naming this pid, removed on release', () => {
    const dir = join(tempDir(), 'data');
    const release = lockDataDir(dir);
    const lockPath = join(dir, DATA_DIR_LOCK);
    expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));
    release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('refuses while a live process holds it, naming that pid', async () => {
    const dir = tempDir();
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    try {
      writeFileSync(join(dir, DATA_DIR_LOCK), `${holder.pid}\n`);
      expect(() => lockDataDir(dir)).toThrow(StartupError);
      expect(() => lockDataDir(dir)).toThrow(
        `DATA_DIR ${dir} is in use by another server, pid ${holder.pid} (${join(dir, DATA_DIR_LOCK)}): two processes writing one PGlite directory can corrupt it.`,
      );
      // the refusal leaves the holder's lock alone
      expect(readFileSync(join(dir, DATA_DIR_LOCK), 'utf8').trim()).toBe(String(holder.pid));
    } finally {
      const exited = new Promise((r) => holder.once('exit', r));
      holder.kill();
      await exited;
    }
  });

  it('takes over a lock whose process is gone (killed, crashed) or that names no pid', () => {
    const dir = tempDir();
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    for (const stale of [`${gone}\n`, '', 'not a pid']) {
      writeFileSync(join(dir, DATA_DIR_LOCK), stale);
      const release = lockDataDir(dir);
      expect(readFileSync(join(dir, DATA_DIR_LOCK), 'utf8').trim(), stale).toBe(String(process.pid));
      release();
    }
  });

  it('release leaves a lock another server has taken since', () => {
    const dir = tempDir();
    const release = lockDataDir(dir);
    writeFileSync(join(dir, DATA_DIR_LOCK), '1\n');
    release();
    expect(readFileSync(join(dir, DATA_DIR_LOCK), 'utf8')).toBe('1\n');
  });
});

describe('checkPublicBaseUrl', () => {
  it('production refuses to start without PUBLIC_BASE_URL, in one line naming it', () => {
    expect(() => checkPublicBaseUrl({ APP_ENV: 'production', PUBLIC_BASE_URL: undefined })).toThrow(
      new StartupError(
        'PUBLIC_BASE_URL must be set when APP_ENV=production: every link mailed (invites, password resets) starts with it (PUBLIC_BASE_URL=https://support.example.com npm start)',
      ),
    );
    expect(() => checkPublicBaseUrl({ APP_ENV: 'production', PUBLIC_BASE_URL: '' })).toThrow(StartupError);
    expect(() =>
      checkPublicBaseUrl({ APP_ENV: 'production', PUBLIC_BASE_URL: 'https://support.example.com' }),
    ).not.toThrow();
  });

  it('development may leave it unset; a set one must be an http(s) origin', () => {
    expect(() => checkPublicBaseUrl({ APP_ENV: 'development', PUBLIC_BASE_URL: undefined })).not.toThrow();
    for (const bad of ['support.example.com', 'javascript:alert(1)', 'https://a.example/path?x'])
      expect(() => checkPublicBaseUrl({ APP_ENV: 'development', PUBLIC_BASE_URL: bad })).toThrow(
        StartupError,
      );
  });

  it('the development default is the listening address, a wildcard one as loopback', () => {
    expect(listeningBase('127.0.0.1', 8787)).toBe('http://127.0.0.1:8787');
    expect(listeningBase('0.0.0.0', 9000)).toBe('http://127.0.0.1:9000');
    expect(listeningBase('::', 9000)).toBe('http://[::1]:9000');
  });
});
