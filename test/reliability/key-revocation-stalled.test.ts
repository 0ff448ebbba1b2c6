/**
 * A revoke answered by one process bites on the next request to another even when that other
 * process cannot hear it: a cache hit costs no read of the key's row, so what keeps a revoked key
 * out is the revoke's wait for every live process to acknowledge the eviction, and the lease that
 * stands a silent process's cache aside. Two server processes on one Postgres
 * (key-cache-process.ts), the key warm in both — asserted: a warm read looks nothing up — then the
 * second one's LISTEN session is stalled (a row lock holds its lease renewal, so Postgres delivers
 * it no notice) or the whole process is stopped (SIGSTOP), the key is revoked through the first,
 * and the second refuses the key on its next request.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDashboardToken } from '../../shared/auth/jwt';
import { TEST_SECRETS } from '../support/harness';
import { adminQuery, dbUrl, postgresReachable } from '../support/pg';
import { json, provisionTenant, type ServerProcess, startServer } from './server-process';

const PROCESS = 'test/reliability/key-cache-process.ts';

const pgUp = await postgresReachable();
if (!pgUp && process.env.CI === 'true') throw new Error('PostgreSQL is required in CI');

describe.skipIf(!pgUp)('key revocation when another process cannot hear it', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  let admin: string;
  let url: string;
  let drop: () => Promise<unknown>;

  beforeAll(async () => {
    const name = `spa_keystall_${Date.now().toString(36)}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    drop = () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    url = dbUrl(name);
    const env = { DATABASE_URL: url, KEY_CACHE_UNCONFIRMED: '1' };
    // one after the other: the first migrates the database
    a = await startServer(env, PROCESS);
    b = await startServer(env, PROCESS);
    const { tenantId } = await provisionTenant(a.base, 'enterprise', ['tickets:read']);
    admin = await signDashboardToken(TEST_SECRETS.DASHBOARD_JWT_SECRET, {
      sub: 'a',
      tenant_id: tenantId,
      role: 'tenant_admin',
    });
  }, 180_000);
  afterAll(async () => {
    if (b?.child.pid) process.kill(b.child.pid, 'SIGCONT');
    await a?.kill();
    await b?.kill();
    await drop?.();
  });

  const asAdmin = () => ({ headers: { authorization: `Bearer ${admin}` } });
  const newKey = async () => {
    const res = await json(a.base, 'POST', '/api/v1/api-keys', {
      ...asAdmin(),
      body: { name: 'stalled listener', scopes: ['tickets:read'] },
    });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, key: res.body.api_key as string };
  };
  const read = (server: ServerProcess, key: string) =>
    json(server.base, 'GET', '/api/v1/tickets', { headers: { 'x-api-key': key } });
  const misses = async (server: ServerProcess) =>
    (await json(server.base, 'GET', '/__key-cache')).body.misses as number;
  const revoke = (id: string) => json(a.base, 'POST', `/api/v1/api-keys/${id}/revoke`, asAdmin());

  /** b serves the key from its cache: two reads in a row look nothing up */
  const warmOnB = async (key: string) => {
    // a process serves hits once its lease is renewed (a second or so after it starts listening)
    for (let i = 0; i < 200; i++) {
      const before = await misses(b);
      expect((await read(b, key)).status).toBe(200);
      expect((await read(b, key)).status).toBe(200);
      if ((await misses(b)) === before) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the key was never served from the cache');
  };

  const sql = async <T extends pg.QueryResultRow>(client: pg.Client, text: string, values: unknown[] = []) =>
    (await client.query<T>(text, values)).rows;

  it("b's LISTEN session stalled (its lease renewal waits on a lock): the revoke through a still bites on b's next request", async () => {
    const { id, key } = await newKey();
    await warmOnB(key);
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      const ownRow = `${b.child.pid}/%`;
      await sql(locker, 'BEGIN');
      const locked = await sql(locker, 'SELECT id FROM key_cache_processes WHERE id LIKE $1 FOR UPDATE', [
        ownRow,
      ]);
      expect(locked).toHaveLength(1);
      // until b's next renewal is waiting on the lock: from then on its session hears nothing
      const watcher = new pg.Client({ connectionString: url });
      await watcher.connect();
      try {
        for (let i = 0; ; i++) {
          const waiting = await sql(
            watcher,
            `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO key_cache_processes%'`,
          );
          if (waiting.length > 0) break;
          if (i > 300) throw new Error("b's lease renewal never waited on the lock");
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        await watcher.end();
      }
      expect((await revoke(id)).status).toBe(204);
      const looked = await misses(b);
      // the notice has not reached b's cache: only its lapsed lease keeps the key from being served
      expect((await read(b, key)).status).toBe(401);
      expect(await misses(b)).toBe(looked + 1);
      expect((await read(a, key)).status).toBe(401);
    } finally {
      await sql(locker, 'ROLLBACK').catch(() => {});
      await locker.end();
    }
    // heard again: b serves keys from its cache once more
    await warmOnB((await newKey()).key);
  }, 120_000);

  it('b stopped (SIGSTOP) while a revokes: the revoke answers, and b refuses the key as soon as it runs again', async () => {
    const { id, key } = await newKey();
    await warmOnB(key);
    const pid = b.child.pid as number;
    process.kill(pid, 'SIGSTOP');
    let res: Awaited<ReturnType<typeof revoke>>;
    try {
      res = await revoke(id);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(res.status).toBe(204);
    expect((await read(b, key)).status).toBe(401);
  }, 120_000);

  it('every live process acknowledging: a rotation through a is refused by b at once, the new key served', async () => {
    const { id, key } = await newKey();
    await warmOnB(key);
    const res = await json(a.base, 'POST', `/api/v1/api-keys/${id}/rotate`, asAdmin());
    expect(res.status).toBe(200);
    expect((await read(b, key)).status).toBe(401);
    expect((await read(b, res.body.api_key)).status).toBe(200);
  }, 120_000);
});
