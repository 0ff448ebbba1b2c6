/**
 * A tenant's share of the database, counted across processes: two `npm start` processes on one
 * Postgres and one Redis (this machine's, reached over the Upstash REST protocol through its stand-in
 * and as a plain Redis at REDIS_URL through a TCP proxy, with the same expectations on each). Tenant B's requests
 * are kept in flight by a lock another session holds on `tickets`; once B holds its whole share
 * on process one, its next request on process two is refused 429 at once (it never reached the
 * database: it would have waited behind the lock), while tenant A on the same process is served.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDashboardToken } from '../../shared/auth/jwt';
import { Detail } from '../../shared/http/errors';
import { TEST_SECRETS } from '../support/harness';
import { adminQuery, dbUrl, postgresReachable } from '../support/pg';
import {
  type FaultyRedis,
  REDIS_PROTOCOLS,
  redisForTests,
  startFaultyRedis,
} from '../support/upstash-rest-adapter';
import { json, provisionTenant, type ServerProcess, startServer } from './server-process';

const pgUp = await postgresReachable();
if (!pgUp && process.env.CI === 'true') throw new Error('PostgreSQL is required in CI');
const redisUp = await redisForTests();

/** TENANT_DB_SHARE of these servers: three plain requests fill it */
const SHARE = 3;

describe.skipIf(!pgUp || !redisUp).each(REDIS_PROTOCOLS)(
  'a tenant share of the database across two processes, Redis over %s',
  (protocol) => {
    let one: ServerProcess;
    let two: ServerProcess;
    let redis: FaultyRedis;
    let url: string;
    let drop: () => Promise<unknown>;
    let a: string;
    let b: string;
    /** dashboard sessions of A and B (contacts are a dashboard surface) */
    let aSession: string;
    let bSession: string;
    const session = (tenantId: string) =>
      signDashboardToken(TEST_SECRETS.DASHBOARD_JWT_SECRET, {
        sub: 'agent',
        tenant_id: tenantId,
        role: 'agent',
      });

    beforeAll(async () => {
      const name = `spa_share_${protocol}_${Date.now().toString(36)}`;
      await adminQuery(`CREATE DATABASE ${name}`);
      drop = () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      url = dbUrl(name);
      redis = await startFaultyRedis(protocol, { label: 'share' });
      const env = {
        DATABASE_URL: url,
        ...redis.env,
        // counted in Redis every time, also on a loaded machine
        RATE_LIMIT_TIMEOUT_MS: '5000',
        TENANT_DB_SHARE: String(SHARE),
        STATEMENT_TIMEOUT_MS: '20000',
        LOG_LEVEL: 'warn',
      };
      // one after the other: the first migrates the database
      one = await startServer(env);
      two = await startServer(env);
      const ta = await provisionTenant(one.base, 'enterprise', ['tickets:read']);
      const tb = await provisionTenant(one.base, 'enterprise', ['tickets:read']);
      a = ta.key;
      b = tb.key;
      aSession = await session(ta.tenantId);
      bSession = await session(tb.tenantId);
      // keys verified and plans cached on both processes, before the lock
      for (const server of [one, two])
        for (const key of [a, b])
          expect(
            (await json(server.base, 'GET', '/api/v1/tickets', { headers: { 'x-api-key': key } })).status,
          ).toBe(200);
    }, 180_000);
    afterAll(async () => {
      await one?.kill();
      await two?.kill();
      await redis?.close();
      await drop?.();
    });

    it('the request beyond the share is refused 429 on the other process, before the database; another tenant is served', async () => {
      const locker = new pg.Client({ connectionString: url });
      await locker.connect();
      await locker.query('begin');
      await locker.query('lock table tickets in access exclusive mode');
      let held: Promise<{ status: number }>[] = [];
      try {
        held = Array.from({ length: SHARE }, () =>
          json(one.base, 'GET', '/api/v1/tickets', { headers: { 'x-api-key': b } }),
        );
        // until all three are counted in Redis (each waits behind the lock once admitted)
        await new Promise((r) => setTimeout(r, 1500));
        const started = Date.now();
        const refused = await json(two.base, 'GET', '/api/v1/tickets', { headers: { 'x-api-key': b } });
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(refused.status).toBe(429);
        expect(refused.body).toEqual({ detail: Detail.tenantShareExceeded });
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(refused.headers.get('x-ratelimit-limit')).toBe(String(SHARE));
        expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
        expect(refused.headers.get('x-ratelimit-reset')).toBe('1');
        expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
        // an expensive read of B is refused as well, whichever table it reads
        const search = await json(two.base, 'GET', '/api/v2/contacts?q=777', {
          headers: { authorization: `Bearer ${bSession}` },
        });
        expect(search.status).toBe(429);
        // tenant A on the same process: its own share, served (contacts are not locked)
        const other = await json(two.base, 'GET', '/api/v2/contacts?q=777', {
          headers: { authorization: `Bearer ${aSession}` },
        });
        expect(other.status).toBe(200);
      } finally {
        await locker.query('rollback');
        await locker.end();
      }
      expect((await Promise.all(held)).map((r) => r.status)).toEqual(Array(SHARE).fill(200));
      // released once answered: B is served again on either process
      await new Promise((r) => setTimeout(r, 200));
      for (const server of [two, one])
        expect(
          (await json(server.base, 'GET', '/api/v1/tickets', { headers: { 'x-api-key': b } })).status,
        ).toBe(200);
    });
  },
);
