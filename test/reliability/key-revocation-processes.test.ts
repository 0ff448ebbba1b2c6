/**
 * Revocation, rotation and deletion bite on the next request in every process: two `npm start`
 * processes on one Postgres, each with its in-process key cache warm, and the change made through
 * one is refused by the other as soon as the change has answered (not after the cache's 60 s).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDashboardToken } from '../../shared/auth/jwt';
import { TEST_SECRETS } from '../support/harness';
import { adminQuery, dbUrl, postgresReachable } from '../support/pg';
import { freePort, json, provisionTenant, type ServerProcess, startServer } from './server-process';

const pgUp = await postgresReachable();
if (!pgUp && process.env.CI === 'true') throw new Error('PostgreSQL is required in CI');

describe.skipIf(!pgUp)('key revocation across processes on one Postgres', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  let admin: string;
  let drop: () => Promise<unknown>;

  beforeAll(async () => {
    const name = `spa_keyrev_${Date.now().toString(36)}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    drop = () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const env = { DATABASE_URL: dbUrl(name) };
    // one after the other: the first migrates the database
    a = await startServer(await freePort(), env);
    b = await startServer(await freePort(), env);
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
  /** both processes have verified (and cached) the key */
  const warm = async (key: string) => {
    for (const server of [a, b, a, b]) expect((await read(server, key)).status).toBe(200);
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
    for (let i = 0; i < 20; i++) expect((await read(b, key)).status).toBe(200);
  });
});
