// Starts `scripts/serve.ts` (what `npm start` runs) as a child process, for tests that kill it,
// restart it or take its database away.
import { type ChildProcess, spawn } from 'node:child_process';
import { TLS_CERT_PATH } from '../../scripts/lib/https-receiver';
import { signDashboardToken } from '../../shared/auth/jwt';
import { TEST_SECRETS } from '../support/harness';

export interface ServerProcess {
  base: string;
  /** the port the OS gave it */
  port: number;
  child: ChildProcess;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** The servers started here, by base: a request that cannot reach one says what became of it. */
const started = new Map<string, { child: ChildProcess; output: () => string }>();

/** The address a server prints once it listens (scripts/serve.ts: `… listening on http://…`). */
const LISTENING = /listening on (http:\/\/127\.0\.0\.1:(\d+))/;
export const listeningPort = (output: string): number | null => {
  const m = LISTENING.exec(output);
  return m ? Number(m[2]) : null;
};

/**
 * `npm start`'s server (scripts/serve.ts), or another script that serves the same way and prints
 * the same listening line (`script`), on a port the OS picks: it is known from that line, printed
 * once the socket is bound, so no other process's server on a guessed port can pass for this one.
 */
export async function startServer(
  env: Record<string, string>,
  script = 'scripts/serve.ts',
): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      ...TEST_SECRETS,
      APP_ENV: 'test',
      NODE_EXTRA_CA_CERTS: TLS_CERT_PATH,
      ...env,
      PORT: '0',
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (d) => (log += d));
  child.stderr?.on('data', (d) => (log += d));
  // up to 90 s: a start that migrates PGlite takes tens of seconds on a busy machine
  let listening: number | null = null;
  for (let i = 0; i < 1800 && listening === null; i++) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${log}`);
    listening = listeningPort(log);
    if (listening === null) await new Promise((r) => setTimeout(r, 50));
  }
  if (listening === null) {
    child.kill('SIGKILL');
    throw new Error(`server printed no listening line within 90 s:\n${log}`);
  }
  const base = `http://127.0.0.1:${listening}`;
  started.set(base, { child, output: () => log });
  return {
    base,
    port: listening,
    child,
    output: () => log,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
}

export async function json(
  base: string,
  method: string,
  path: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  }).catch((error: Error) => {
    throw unreachable(base, `${method} ${path}`, error);
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers };
}

/** A failed request to a server started here, with whether its process is still there and its output. */
function unreachable(base: string, request: string, error: Error): Error {
  const server = started.get(base);
  if (!server) return error;
  const { exitCode, signalCode } = server.child;
  const state =
    exitCode === null && signalCode === null
      ? 'its process is still running'
      : `its process exited (code ${exitCode}, signal ${signalCode})`;
  const cause = (error.cause as NodeJS.ErrnoException | undefined)?.code ?? error.message;
  return new Error(
    `${request} to ${base}: ${cause}; ${state}. Its output:\n${server.output().slice(-4000)}`,
    {
      cause: error,
    },
  );
}

/** A tenant on a running server and an API key of it with `scopes`, through the public API. */
export async function provisionTenant(
  base: string,
  plan: string,
  scopes: string[],
): Promise<{ tenantId: string; key: string }> {
  const superToken = await signDashboardToken(TEST_SECRETS.DASHBOARD_JWT_SECRET, {
    sub: 's',
    tenant_id: 'platform',
    role: 'super_admin',
  });
  const tenant = await json(base, 'POST', '/api/v1/tenants', {
    headers: { authorization: `Bearer ${superToken}` },
    body: { name: `Reliability ${plan}`, plan, environment: 'production' },
  });
  if (tenant.status !== 201) throw new Error(`tenant: ${tenant.status} ${JSON.stringify(tenant.body)}`);
  const admin = await signDashboardToken(TEST_SECRETS.DASHBOARD_JWT_SECRET, {
    sub: 'a',
    tenant_id: tenant.body.id,
    role: 'tenant_admin',
  });
  const key = await json(base, 'POST', '/api/v1/api-keys', {
    headers: { authorization: `Bearer ${admin}` },
    body: { name: 'reliability', scopes },
  });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${JSON.stringify(key.body)}`);
  return { tenantId: tenant.body.id, key: key.body.api_key };
}
