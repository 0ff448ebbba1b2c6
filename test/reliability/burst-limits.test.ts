/**
 * Limits that hold under bursts: two `npm start` processes on one Postgres and one real Redis,
 * reached both ways the server reaches Redis (the Upstash REST protocol, through its stand-in, and
 * a plain Redis at REDIS_URL, through a TCP proxy), with the same expectations on each. 60 test events at once over both processes: exactly 10
 * accepted; 10 recovers at once: exactly one; 30 wrong passwords at once for one account over
 * both: exactly 5 password checks (401), the rest 429. With Redis slower than the limiter's
 * timeout, or down, the webhook tools are refused (503 with Retry-After), never let through on a
 * process's own count.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDashboardToken } from '../../shared/auth/jwt';
import { hashAccountPassword } from '../../shared/auth/password';
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

/** generous: a burst of 60 on a busy 2-core machine must not time out into refusals */
const LIMITER_TIMEOUT_MS = 3000;

describe.skipIf(!pgUp || !redisUp).each(REDIS_PROTOCOLS)(
  'burst-proof limits over two processes, Redis over %s',
  (protocol) => {
    let a: ServerProcess;
    let b: ServerProcess;
    let redis: FaultyRedis;
    let admin: { headers: Record<string, string> };
    let key: string;
    let tenantId: string;
    let drop: () => Promise<unknown>;
    let databaseUrl: string;

    beforeAll(async () => {
      const name = `spa_burst_${protocol}_${Date.now().toString(36)}`;
      await adminQuery(`CREATE DATABASE ${name}`);
      drop = () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      redis = await startFaultyRedis(protocol, { label: 'burst' });
      databaseUrl = dbUrl(name);
      const env = {
        DATABASE_URL: databaseUrl,
        ...redis.env,
        RATE_LIMIT_TIMEOUT_MS: String(LIMITER_TIMEOUT_MS),
        WEBHOOK_SSRF_ALLOW: 'localhost',
        TRUSTED_PROXY_HEADER: 'X-Real-IP',
        // the bursts are of one tenant: its database share (tenant-share-processes.test.ts) stays out
        TENANT_DB_SHARE: '0',
      };
      // one after the other: the first migrates the database
      a = await startServer(env);
      b = await startServer(env);
      ({ tenantId, key } = await provisionTenant(a.base, 'enterprise', ['webhooks:read', 'webhooks:write']));
      const token = await signDashboardToken(TEST_SECRETS.DASHBOARD_JWT_SECRET, {
        sub: 'burst-admin',
        tenant_id: tenantId,
        role: 'tenant_admin',
      });
      admin = { headers: { authorization: `Bearer ${token}` } };
    }, 180_000);
    afterAll(async () => {
      await a?.kill();
      await b?.kill();
      await redis?.close();
      await drop?.();
    });

    /** a new endpoint (nothing listens at its address: a test event's delivery fails, which is fine here) */
    const endpoint = async () => {
      const res = await json(a.base, 'POST', '/api/v1/webhooks', {
        headers: { 'x-api-key': key },
        body: { url: `https://localhost:9/burst-${Math.random()}`, events: ['ticket.created'] },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const testEvent = (server: ServerProcess, id: string) =>
      json(server.base, 'POST', `/api/v2/webhooks/${id}/test`, {
        ...admin,
        body: { event_type: 'ticket.created' },
      });
    const recover = (server: ServerProcess, id: string) =>
      json(server.base, 'POST', `/api/v1/webhooks/${id}/recover`, {
        headers: { 'x-api-key': key },
        body: { since: new Date(Date.now() - 3_600_000).toISOString() },
      });
    /** the statuses of `n` requests sent at once, alternating between the two processes */
    const burst = async (
      n: number,
      send: (server: ServerProcess) => Promise<{ status: number; headers: Headers }>,
    ) => Promise.all(Array.from({ length: n }, (_, i) => send(i % 2 === 0 ? a : b)));
    const count = (answers: { status: number }[], status: number) =>
      answers.filter((r) => r.status === status).length;

    /** Waits, if need be, so that the next few seconds stay in one minute window. */
    const awayFromMinuteEdge = async () => {
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
    };

    it('60 test events at once over two processes: exactly 10 accepted, the rest 429 with Retry-After', async () => {
      const id = await endpoint();
      await awayFromMinuteEdge();
      const answers = await burst(60, (server) => testEvent(server, id));
      const statuses = answers.map((r) => r.status);
      expect(count(answers, 202), `statuses ${statuses}`).toBe(10);
      // the rest refused: over the limit (429), or a limiter answer later than its timeout on this
      // busy machine (503, fail-closed); both with Retry-After, and none of them sent
      expect(statuses.filter((s) => s !== 202 && s !== 429 && s !== 503)).toEqual([]);
      expect(count(answers, 429)).toBeGreaterThan(0);
      for (const r of answers.filter((x) => x.status !== 202))
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }, 120_000);

    it('10 recovers at once over two processes: exactly one runs', async () => {
      const id = await endpoint();
      await awayFromMinuteEdge();
      const answers = await burst(10, (server) => recover(server, id));
      expect(count(answers, 202)).toBe(1);
      expect(count(answers, 429)).toBe(9);
    }, 120_000);

    it('30 wrong passwords at once for one account over two processes: 5 checked (401), 25 refused (429)', async () => {
      const email = 'burst-owner@limits.example';
      // the account straight into the database: outside development no answer carries an invite token
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(
          `INSERT INTO tenant_users (id, tenant_id, email, name, role, password_hash, updated_at)
         VALUES ('tus_burst_owner', $1, $2, 'Burst Owner', 'agent', $3, now())`,
          [tenantId, email, await hashAccountPassword(email, 'the owner knows this one')],
        );
      } finally {
        await client.end();
      }
      const answers = await burst(30, (server) =>
        json(server.base, 'POST', '/api/v1/auth/login', {
          headers: { 'X-Real-IP': '203.0.113.77' },
          body: { email, password: 'a wrong guess at it' },
        }),
      );
      expect(count(answers, 401), `statuses ${answers.map((r) => r.status)}`).toBe(5);
      expect(count(answers, 429)).toBe(25);
      // from elsewhere the owner still signs in
      const owner = await json(b.base, 'POST', '/api/v1/auth/login', {
        headers: { 'X-Real-IP': '198.51.100.77' },
        body: { email, password: 'the owner knows this one' },
      });
      expect(owner.status).toBe(200);
    }, 120_000);

    for (const fault of ['slow', 'stall', 'down'] as const)
      it(`Redis ${fault}: the webhook tools are refused (503 with Retry-After), nothing let through`, async () => {
        const id = await endpoint();
        try {
          if (fault === 'slow') redis.delayMs = LIMITER_TIMEOUT_MS + 1500;
          else redis.fault = fault === 'stall' ? 'stall' : 'refuse';
          const answers = [
            ...(await burst(6, (server) => testEvent(server, id))),
            ...(await burst(2, (s) => recover(s, id))),
          ];
          expect(answers.map((r) => r.status)).toEqual(answers.map(() => 503));
          for (const r of answers) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        } finally {
          redis.delayMs = 0;
          redis.fault = null;
        }
        // once Redis answers again, the tools work again
        expect((await testEvent(a, id)).status).toBe(202);
      }, 120_000);
  },
);
