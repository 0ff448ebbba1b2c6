// What `npm start` checks before its slow start-up (PGlite, migrations, seeding): each refusal is one
// line saying what to do, printed instead of a stack trace.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type AppConfig, ConfigError } from '../shared/env';

/** A refusal to start: its message is the whole of what is printed. */
export class StartupError extends Error {}

/** One line on stderr and exit 1 for a refusal (a bad environment too): it needs no stack trace. */
export function refuse(error: unknown): never {
  if (!(error instanceof StartupError || error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

/** PORT as a number, or a refusal naming the value (0 = any free port, as Node reads it). */
export function parsePort(value: string | undefined): number {
  const port = Number(value ?? 8787);
  if (value === '' || !Number.isInteger(port) || port < 0 || port > 65_535)
    throw new StartupError(`PORT must be a port number from 0 to 65535 (got "${value}")`);
  return port;
}

/**
 * Production must name its public address: every link the service mails (invites, password
 * resets, magic links) starts with it, and nothing else may shape one (a request's Host is the
 * caller's to forge). Elsewhere `npm start` falls back to its own listening address.
 */
export function checkPublicBaseUrl(config: Pick<AppConfig, 'APP_ENV' | 'PUBLIC_BASE_URL'>): void {
  if (config.APP_ENV === 'production' && !config.PUBLIC_BASE_URL)
    throw new StartupError(
      'PUBLIC_BASE_URL must be set when APP_ENV=production: every link mailed (invites, password resets) starts with it (PUBLIC_BASE_URL=https://support.example.com npm start)',
    );
  if (config.PUBLIC_BASE_URL && !/^https?:\/\/[^/?#\s]+\/?$/.test(config.PUBLIC_BASE_URL))
    throw new StartupError(
      `PUBLIC_BASE_URL must be an http(s) origin such as https://support.example.com (got "${config.PUBLIC_BASE_URL}")`,
    );
}

/**
 * Two ways to reach Redis, each in its own variable: a plain Redis's `redis://` URL put where the
 * Upstash REST URL goes would otherwise fail on the first request, deep in the client library.
 */
export function checkRedisUrls(
  config: Pick<AppConfig, 'REDIS_URL' | 'UPSTASH_REDIS_REST_URL' | 'UPSTASH_REDIS_REST_TOKEN'>,
): void {
  const rest = config.UPSTASH_REDIS_REST_URL;
  if (rest && /^rediss?:\/\//i.test(rest))
    throw new StartupError(
      `UPSTASH_REDIS_REST_URL takes Upstash's https:// REST URL; a plain Redis goes in REDIS_URL (REDIS_URL=${rest.replace(/\/\/[^@/]*@/, '//')} npm start)`,
    );
  if (config.REDIS_URL && !/^rediss?:\/\//i.test(config.REDIS_URL))
    throw new StartupError(
      `REDIS_URL must be a redis:// or rediss:// URL (an Upstash REST URL goes in UPSTASH_REDIS_REST_URL and _TOKEN)`,
    );
  if (config.REDIS_URL && rest)
    throw new StartupError(
      'Set REDIS_URL or UPSTASH_REDIS_REST_URL, not both: each names the one Redis to use',
    );
}

/** The base of links when PUBLIC_BASE_URL is unset: the listening address (a wildcard one as loopback). */
export function listeningBase(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** The line for a failed listen on host:port (the probe's or, if another process won the race, the server's). */
export function listenFailure(error: NodeJS.ErrnoException, port: number, host: string): string {
  const another = port >= 65_535 ? 8787 : port + 1;
  switch (error.code) {
    case 'EADDRINUSE':
      return `Port ${port} on ${host} is in use: stop the other server or choose another port (PORT=${another} npm start)`;
    case 'EACCES':
      return `Port ${port} on ${host} needs privileges this user lacks: choose one above 1023 (PORT=8787 npm start)`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `HOST ${host} is not an address of this machine: use 127.0.0.1, 0.0.0.0 or one of its own (HOST=127.0.0.1 npm start)`;
    default:
      return `Cannot listen on ${host}:${port}: ${error.message}`;
  }
}

/**
 * Refuses at once when host:port cannot be listened on, rather than after the ~15 s of start-up
 * that precede the real listen. Another process may still take the port in between: the server's own
 * 'error' handler gives the same line then.
 */
export function checkPortFree(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(new StartupError(listenFailure(error, port, host))),
    );
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** The lock file inside DATA_DIR (PGlite's initdb accepts a directory holding it). */
export const DATA_DIR_LOCK = 'server.lock';

/** The pid a lock file names, or null when it names none (emptied, or written by hand). */
function lockHolder(lockPath: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes DATA_DIR for this process alone: two processes writing one PGlite directory can corrupt
 * it. A lock whose process is gone (killed, crashed) is taken over; one naming this very pid is
 * stale too (a container restarted with the same pid). Returns the release, which removes the
 * file only while it is still this process's.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = join(dataDir, DATA_DIR_LOCK);
  // two tries: the second after removing a stale lock (a third process may win it meanwhile)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockPath, `${process.pid}\n`, { flag: 'wx' });
      return () => {
        if (lockHolder(lockPath) === process.pid) rmSync(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = lockHolder(lockPath);
    if (holder !== null && holder !== process.pid && isAlive(holder))
      throw new StartupError(
        `DATA_DIR ${dataDir} is in use by another server, pid ${holder} (${lockPath}): two processes writing one PGlite directory can corrupt it. Stop that server, or give this one its own (DATA_DIR=.data-2 npm start)`,
      );
    rmSync(lockPath, { force: true });
  }
  throw new StartupError(`DATA_DIR ${dataDir}: another server is taking ${lockPath} at this moment`);
}
