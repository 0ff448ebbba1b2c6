/**
 * A crash and a stop, on a real server process on Postgres:
 * - SIGKILL with ticket creations in flight under Idempotency-Keys, then a restart: once the
 *   dead process's leases have lapsed, a retry with the same key and body gets the first answer
 *   where the ticket committed, or creates it (once) where it did not; never a 409.
 * - SIGTERM with requests in flight: none is reset, everything acknowledged is stored, exit 0.
 * - SIGTERM with deliveries in flight to a slow subscriber: exit 0 leaves no claim behind.
 * - A SIGTERM to `npm start`, or to its process group, leaves no process behind and the port free.
 * The requests are held in flight deterministically: the test locks the tickets table, so each
 * creation waits inside its INSERT, after its Idempotency-Key was taken.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpsReceiver } from '../../scripts/lib/https-receiver';
import { TEST_SECRETS } from '../support/harness';
import { adminQuery, dbUrl, postgresReachable } from '../support/pg';
import { json, listeningPort, provisionTenant, type ServerProcess, startServer } from './server-process';

const required = process.env.CI === 'true';
const pgUp = await postgresReachable();
if (!pgUp && required) throw new Error('PostgreSQL is required in CI');

/** REQUEST_TIMEOUT_MS for these servers: the Idempotency-Key lease (short, so the test is too) */
const LEASE_MS = 1500;
/** how long the requests stay held after the SIGTERM (well within SHUTDOWN_GRACE_MS, 10 s) */
const HELD_AFTER_SIGTERM_MS = 3000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` holds (or fails with `what`). */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.skipIf(!pgUp)('crash and stop (postgres)', () => {
  const name = `spa_crash_${Date.now().toString(36)}`;
  let env: Record<string, string>;
  let port: number;
  let db: pg.Client;
  let apiKey: string;
  let server: ServerProcess | undefined;

  /** backends of the server waiting for the test's lock */
  const lockWaiters = async () =>
    (
      await db.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' ORDER BY pid`,
        [name],
      )
    ).rows.map((r) => r.pid);
  const ticketsWithSubject = async (subject: string) =>
    Number(
      (await db.query<{ n: string }>('SELECT count(*) AS n FROM tickets WHERE subject = $1', [subject]))
        .rows[0]?.n,
    );
  const create = (base: string, idem: string | undefined, subject: string) =>
    json(base, 'POST', '/api/v1/tickets', {
      headers: { 'x-api-key': apiKey, ...(idem ? { 'Idempotency-Key': idem } : {}) },
      body: { subject },
    });
  /** holds the tickets table against every write until `release()` */
  async function lockTickets() {
    const locker = new pg.Client({ connectionString: dbUrl(name) });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE tickets IN EXCLUSIVE MODE');
    return {
      async release() {
        await locker.query('ROLLBACK');
        await locker.end();
      },
    };
  }

  beforeAll(async () => {
    await adminQuery(`CREATE DATABASE ${name}`);
    env = { DATABASE_URL: dbUrl(name), REQUEST_TIMEOUT_MS: String(LEASE_MS), LOG_LEVEL: 'warn' };
    server = await startServer(env);
    port = server.port;
    apiKey = (await provisionTenant(server.base, 'enterprise', ['tickets:write', 'tickets:read'])).key;
    db = new pg.Client({ connectionString: dbUrl(name) });
    await db.connect();
  }, 120_000);
  afterAll(async () => {
    await server?.kill('SIGKILL');
    await db?.end();
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it('SIGKILL mid-request: retries with the same keys resolve once the lease lapses, one ticket per key', async () => {
    const run = Math.random().toString(36).slice(2, 8);
    // `committed`: the dead server's statements still commit (the answer never reached the client);
    // `lost`: its statements are cut off before they commit
    const committed = [0, 1, 2, 3].map((i) => ({ key: `${run}-c${i}`, subject: `crash ${run} c${i}` }));
    const lost = [0, 1, 2, 3].map((i) => ({ key: `${run}-l${i}`, subject: `crash ${run} l${i}` }));
    const live = server!;
    const lock = await lockTickets();
    const inFlight = committed.map((r) => create(live.base, r.key, r.subject).catch((e: Error) => e));
    await until('the first creations to wait for the lock', async () => (await lockWaiters()).length === 4);
    const committing = await lockWaiters();
    inFlight.push(...lost.map((r) => create(live.base, r.key, r.subject).catch((e: Error) => e)));
    await until('the second creations to wait for the lock', async () => (await lockWaiters()).length === 8);
    const cutOff = (await lockWaiters()).filter((pid) => !committing.includes(pid));

    await live.kill('SIGKILL');
    const killedAt = Date.now();
    for (const answer of await Promise.all(inFlight)) expect(answer).toBeInstanceOf(Error); // no answer
    for (const pid of cutOff) await db.query('SELECT pg_terminate_backend($1)', [pid]);
    await lock.release();
    // done once their backends no longer run a statement: out of the lock queue is not yet committed
    await until('the orphaned statements to commit', async () => {
      const running = await db.query(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE pid = ANY($1::int[]) AND state = 'active'`,
        [committing],
      );
      return Number(running.rows[0].n) === 0;
    });
    for (const r of committed) expect(await ticketsWithSubject(r.subject)).toBe(1);
    for (const r of lost) expect(await ticketsWithSubject(r.subject)).toBe(0);
    // the keys of the work that did not commit are still held by the dead process
    const held = await db.query(
      `SELECT count(*) AS n FROM idempotency_keys WHERE idempotency_key LIKE $1 AND state = 'in_progress'`,
      [`${run}-l%`],
    );
    expect(Number(held.rows[0].n)).toBe(lost.length);

    server = await startServer(env);
    port = server.port;
    await sleep(Math.max(0, killedAt + LEASE_MS + 100 - Date.now())); // past the lease, if the start was quicker
    for (const r of committed) {
      const retry = await create(server.base, r.key, r.subject);
      expect(retry.status, JSON.stringify(retry.body)).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body.subject).toBe(r.subject);
      const stored = await json(server.base, 'GET', `/api/v1/tickets/${retry.body.id}`, {
        headers: { 'x-api-key': apiKey },
      });
      expect(stored.body).toEqual(retry.body);
      expect(await ticketsWithSubject(r.subject)).toBe(1);
    }
    for (const r of lost) {
      const retry = await create(server.base, r.key, r.subject);
      expect(retry.status, JSON.stringify(retry.body)).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      const again = await create(server.base, r.key, r.subject);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.id).toBe(retry.body.id);
      expect(await ticketsWithSubject(r.subject)).toBe(1);
    }
  }, 180_000);

  it('SIGTERM mid-load: requests in flight finish, nothing acknowledged is missing, exit 0', async () => {
    const run = Math.random().toString(36).slice(2, 8);
    const live = server!;
    const lock = await lockTickets();
    const sent = Array.from({ length: 6 }, (_, i) => ({
      key: i % 2 === 0 ? `${run}-t${i}` : undefined,
      subject: `stop ${run} ${i}`,
    }));
    // held in the database (the lock), and one whose client is still sending its body
    const inFlight = sent.map((r) => create(live.base, r.key, r.subject).catch((e: Error) => e));
    const slow = slowCreate(port, apiKey, `stop ${run} slow`);
    await until(
      'the creations to wait for the lock',
      async () => (await lockWaiters()).length === sent.length,
    );
    await slow.started;
    const exited = new Promise<number | null>((r) => live.child.once('exit', (code) => r(code)));
    live.child.kill('SIGTERM');
    // the server stops taking connections at once while its requests are still held
    await until('the listener to close', async () => !(await accepts(port)), 10_000);
    await sleep(HELD_AFTER_SIGTERM_MS);
    expect(live.child.exitCode).toBeNull(); // still waiting for its requests
    await lock.release();
    const answers = await Promise.all(inFlight);
    await sleep(HELD_AFTER_SIGTERM_MS);
    slow.finish();
    const last = await slow.answer;
    for (const a of [...answers, last]) {
      expect(a).not.toBeInstanceOf(Error);
      expect((a as { status: number }).status).toBe(201);
    }
    expect(await exited).toBe(0);
    for (const [i, a] of answers.entries()) {
      const { body } = a as { body: { id: string } };
      const row = await db.query('SELECT subject FROM tickets WHERE id = $1', [body.id]);
      expect(row.rows).toEqual([{ subject: sent[i]?.subject }]);
    }
    expect(await ticketsWithSubject(`stop ${run} slow`)).toBe(1);
    // the keyed ones are kept for replay, not left in progress by a store closed under them
    const records = await db.query('SELECT state FROM idempotency_keys WHERE idempotency_key LIKE $1', [
      `${run}-%`,
    ]);
    expect(records.rows).toEqual(sent.filter((r) => r.key).map(() => ({ state: 'done' })));
    expect(live.output()).toContain('SIGTERM: stopped');
    server = undefined;
  }, 180_000);

  it('SIGTERM with a slow subscriber and pending deliveries: exit 0 leaves no claim in webhook_deliveries', async () => {
    // every attempt is held 3 s by the subscriber: at the SIGTERM some are in flight, others
    // claimed ahead in the worker's queue; the stop waits for the ones in flight, records them and
    // hands the others back, so another process can take every one at once instead of after a lease
    const receiver = await startHttpsReceiver({ slowMs: 3000 });
    const live = await startServer({
      ...env,
      WEBHOOK_SSRF_ALLOW: 'localhost',
      WEBHOOK_TIMEOUT_MS: '8000',
    });
    try {
      receiver.plan('/stop', [], 'slow');
      const { key } = await provisionTenant(live.base, 'enterprise', ['tickets:write', 'webhooks:write']);
      const hook = await json(live.base, 'POST', '/api/v1/webhooks', {
        headers: { 'x-api-key': key },
        body: { url: receiver.url('/stop'), events: ['ticket.created'] },
      });
      expect(hook.status).toBe(201);
      for (let i = 0; i < 12; i++) {
        const made = await json(live.base, 'POST', '/api/v1/tickets', {
          headers: { 'x-api-key': key },
          body: { subject: `slow subscriber ${i}` },
        });
        expect(made.status).toBe(201);
      }
      await until('an attempt to reach the subscriber', async () => receiver.received('/stop').length > 0);
      const claimed = async () =>
        Number(
          (
            await db.query<{ n: string }>(
              'SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = $1 AND claim_token IS NOT NULL',
              [hook.body.id],
            )
          ).rows[0]?.n,
        );
      expect(await claimed()).toBeGreaterThan(0);
      const exited = new Promise<number | null>((r) => live.child.once('exit', (code) => r(code)));
      live.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(await claimed()).toBe(0);
      // the attempts in flight were recorded, not dropped with the process
      const made = await db.query<{ n: string }>(
        'SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = $1 AND attempts > 0',
        [hook.body.id],
      );
      expect(Number(made.rows[0]?.n)).toBeGreaterThan(0);
    } finally {
      await live.kill('SIGKILL');
      await receiver.close();
    }
  }, 120_000);

  for (const target of ['npm', 'process group'] as const) {
    it(`a SIGTERM to the ${target} of \`npm start\` stops the server and leaves no process behind`, async () => {
      const npm = spawn('npm', ['start'], {
        // its own process group, as a shell's job or a service manager's unit has
        detached: true,
        env: {
          ...process.env,
          ...TEST_SECRETS,
          ...env,
          APP_ENV: 'test',
          PORT: '0',
          HOST: '127.0.0.1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let log = '';
      npm.stdout?.on('data', (d) => (log += d));
      npm.stderr?.on('data', (d) => (log += d));
      try {
        await until('npm start to listen', async () => listeningPort(log) !== null, 90_000);
        const npmPort = listeningPort(log)!;
        const npmExit = exitOf(npm);
        if (target === 'npm') npm.kill('SIGTERM');
        else process.kill(-npm.pid!, 'SIGTERM');
        await npmExit;
        await until('every process of the group to end', async () => !groupAlive(npm.pid!), 20_000).catch(
          (e) => {
            throw new Error(`${e.message}\n${log}`);
          },
        );
        expect(await accepts(npmPort)).toBe(false);
        expect(log).toContain('SIGTERM: stopped');
      } finally {
        if (groupAlive(npm.pid!)) process.kill(-npm.pid!, 'SIGKILL');
      }
    }, 150_000);
  }
});

/**
 * A ticket creation whose client sends half its body, then the rest on `finish()`: a request in
 * flight that no database lock holds.
 */
function slowCreate(port: number, apiKey: string, subject: string) {
  const body = JSON.stringify({ subject });
  const half = Math.floor(body.length / 2);
  let started!: () => void;
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/v1/tickets',
    headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': apiKey },
  });
  const answer = new Promise<{ status: number; body: unknown } | Error>((resolve) => {
    req.once('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.once('error', resolve);
  });
  req.flushHeaders();
  req.write(body.slice(0, half), () => setTimeout(started, 300)); // time for the server to take it
  return {
    started: new Promise<void>((r) => (started = r)),
    finish: () => req.end(body.slice(half)),
    answer,
  };
}

function exitOf(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once('exit', () => r()));
}

/** any process left in the group `pgid` */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** whether something takes TCP connections on the port */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
