/**
 * Revocation, rotation and deletion bite on the next request in every process: two server
 * processes on one Postgres (the embedded runtime as `npm start` builds it, key-cache-process.ts,
 * which also answers the cache's counted lookups), each with its in-process key cache warm —
 * asserted: a warm read looks nothing up — and the change made through one is refused by the
 * other as soon as the change has answered (not after the cache's 60 s).
 * And the NOTIFY path on its own: a third process whose cache serves hits unconfirmed by the
 * key's row refuses the key once the schema trigger's notice reaches its `followKeyChanges`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDashboardToken } from '../../shared/auth/jwt';
import { TEST_SECRETS } from '../support/harness';
import { adminQuery, dbUrl, postgresReachable } from '../support/pg';
import { json, provisionTenant, type ServerProcess, startServer } from './server-process';

const PROCESS = 'test/reliability/key-cache-process.ts';

const pgUp = await postgresReachable();
if (!pgUp && process.env.CI === 'true') throw new Error('PostgreSQL is required in CI');

describe.skipIf(!pgUp)('key revocation across processes on one Postgres', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  /** hits served unconfirmed: only the notice evicts a key here */
  let deafToRows: ServerProcess;
  let admin: string;
  let drop: () => Promise<unknown>;

  beforeAll(async () => {
    const name = `spa_keyrev_${Date.now().toString(36)}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    drop = () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const env = { DATABASE_URL: dbUrl(name) };
    // one after the other: the first migrates the database
    a = await startServer(env, PROCESS);
    b = await startServer(env, PROCESS);
    deafToRows = await startServer({ ...env, KEY_CACHE_UNCONFIRMED: '1' }, PROCESS);
    const { tenantId } = await provisionTenant(a.base, 'enterprise', ['tickets:read']);
    admin = await signDashboardToken(TEST_SECRETS.DASHBOARD_JWT_SECRET, {
      sub: 'a',
      tenant_id: tenantId,
      role: 'tenant_admin',
    });
  }, 120_000);
  afterAll(async () => {
    await a?.kill();
    await b?.kill();
    await deafToRows?.kill();
    await drop?.();
  });

  const newKey = async () => {
    const res = await json(a.base, 'POST', '/api/v1/api-keys', {
      headers: { authorization: `Bearer ${admin}` },
      body: { name: 'two processes', scopes: ['tickets:read'] },
    });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, key: res.body.api_key as string };
  };
  const read = (server: ServerProcess, key: string) =>
    json(server.base, 'GET', '/api/v1/tickets', { headers: { 'x-api-key': key } });
  /** the key lookups a process's cache could not spare, so far */
  const misses = async (server: ServerProcess) =>
    (await json(server.base, 'GET', '/__key-cache')).body.misses as number;
  /** both processes have verified the key and serve it from their cache: a read looks nothing up */
  const warm = async (key: string) => {
    for (const server of [a, b, a, b]) expect((await read(server, key)).status).toBe(200);
    const before = [await misses(a), await misses(b)];
    for (const server of [a, b]) expect((await read(server, key)).status).toBe(200);
    expect([await misses(a), await misses(b)]).toEqual(before);
  };
  const asAdmin = () => ({ headers: { authorization: `Bearer ${admin}` } });

  const CHANGES = {
    revoke: (id: string) => json(a.base, 'POST', `/api/v1/api-keys/${id}/revoke`, asAdmin()),
    rotate: (id: string) => json(a.base, 'POST', `/api/v1/api-keys/${id}/rotate`, asAdmin()),
    delete: (id: string) => json(a.base, 'DELETE', `/api/v1/api-keys/${id}`, asAdmin()),
  } as const;

  for (const [change, run] of Object.entries(CHANGES))
    it(`${change} on one process: the other refuses the key on its next request`, async () => {
      for (let round = 0; round < 5; round++) {
        const { id, key } = await newKey();
        await warm(key);
        const res = await run(id);
        expect(res.status).toBeLessThan(300);
        const next = await read(b, key);
        expect([change, round, next.status]).toEqual([change, round, 401]);
        expect((await read(a, key)).status).toBe(401);
        if (change === 'rotate') expect((await read(b, res.body.api_key)).status).toBe(200);
      }
    });

  it('an unchanged key stays served from the cache on both (the lookups are not all queries)', async () => {
    const { key } = await newKey();
    await warm(key);
    const before = await misses(b);
    for (let i = 0; i < 20; i++) expect((await read(b, key)).status).toBe(200);
    expect(await misses(b)).toBe(before);
  });

  for (const [change, run] of Object.entries(CHANGES))
    it(`${change}: the trigger's NOTIFY and followKeyChanges alone evict the key in another process (no row confirmation)`, async () => {
      const { id, key } = await newKey();
      for (let i = 0; i < 3; i++) expect((await read(deafToRows, key)).status).toBe(200);
      const cached = await misses(deafToRows);
      expect((await read(deafToRows, key)).status).toBe(200);
      expect(await misses(deafToRows)).toBe(cached); // a hit, unconfirmed
      expect((await run(id)).status).toBeLessThan(300);
      // the notice reaches the other process only after the change's commit: within moments
      const deadline = Date.now() + 5000;
      let status = (await read(deafToRows, key)).status;
      while (status === 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        status = (await read(deafToRows, key)).status;
      }
      expect(status).toBe(401);
      // evicted, looked up once anew and found unusable
      expect(await misses(deafToRows)).toBe(cached + 1);
    });
});
