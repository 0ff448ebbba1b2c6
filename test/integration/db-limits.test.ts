/**
 * The database's own limits, as the API answers them: a statement past STATEMENT_TIMEOUT_MS, a pool
 * with no connection free, a database that cannot be reached: each is 503 with Retry-After, never a
 * 500, and a write cut off writes nothing. A statement is made slow the way it gets slow in
 * production, by waiting: another session holds a lock on `tickets`.
 *
 * The statement limit is Postgres' own (statement_timeout): PGlite accepts the setting but cannot
 * enforce it (one single-threaded WASM instance has no timer to interrupt a running statement), so
 * those cases run on the postgres project only.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedRuntime } from '../../scripts/embedded';
import { signDashboardToken } from '../../shared/auth/jwt';
import { createPostgresHandle } from '../../shared/db/adapters/pg';
import { loadConfig } from '../../shared/env';
import { Detail, errorAnswerOf } from '../../shared/http/errors';
import { type Harness, postgresUnavailable, startHarness, TEST_DB, TEST_SECRETS } from '../support/harness';

/** Holds `tickets` locked from a session of its own until released. */
async function lockTickets(url: string, mode: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('begin');
  await client.query(`lock table tickets in ${mode} mode`);
  return async () => {
    await client.query('rollback');
    await client.end();
  };
}

describe('database faults map to 503, not 500', () => {
  it("pg's pool exhaustion, a refused connection and a statement timeout are 503 with Retry-After", () => {
    const at = { path: '/x', logger: { warn() {}, error() {} } as never };
    for (const err of [
      new Error('timeout exceeded when trying to connect'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    ]) {
      const answer = errorAnswerOf(err, at);
      expect(answer.status).toBe(503);
      expect(answer.body.detail).toBe(Detail.databaseUnavailable);
      expect(answer.headers?.['Retry-After']).toBe('1');
    }
    const timeout = Object.assign(new Error('canceling statement due to statement timeout'), {
      code: '57014',
    });
    expect(errorAnswerOf(timeout, at)).toEqual({
      status: 503,
      body: { detail: Detail.statementTimeout },
      headers: { 'Retry-After': '1' },
    });
  });

  it('an unreachable database answers 503 with Retry-After through the API', async () => {
    const config = loadConfig({ APP_ENV: 'test', ...TEST_SECRETS, LOG_LEVEL: 'silent' });
    const handle = createPostgresHandle('postgres://postgres@127.0.0.1:1/none', { listen: false });
    const runtime = await createEmbeddedRuntime({ config, handle });
    try {
      const token = await signDashboardToken(TEST_SECRETS.DASHBOARD_JWT_SECRET, {
        sub: 'u',
        tenant_id: 'ten_unreachable',
        role: 'tenant_admin',
      });
      const res = await runtime.app.request('/api/v1/tickets', {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(((await res.json()) as { detail: string }).detail).toBe(Detail.databaseUnavailable);
    } finally {
      await runtime.close();
      await handle.close();
    }
  });
});

describe.skipIf(TEST_DB !== 'postgres' || postgresUnavailable())('statement time limit (Postgres)', () => {
  let h: Harness;
  let key: string;
  let tenantId: string;

  beforeAll(async () => {
    h = await startHarness({ STATEMENT_TIMEOUT_MS: '400' });
    const t = await h.tenant();
    tenantId = t.id;
    key = await t.key(['tickets:read', 'tickets:write']);
  }, 60_000);
  afterAll(async () => h?.close());

  const countTickets = async () =>
    Number(
      (
        await h.db
          .selectFrom('tickets')
          .select((e) => e.fn.countAll().as('n'))
          .where('tenant_id', '=', tenantId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('a write past STATEMENT_TIMEOUT_MS answers 503 with Retry-After and writes nothing', async () => {
    const before = await countTickets();
    const release = await lockTickets(h.databaseUrl!, 'exclusive');
    let res: Awaited<ReturnType<Harness['request']>>;
    try {
      res = await h.request('POST', '/api/v1/tickets', {
        apiKey: key,
        body: { subject: 'stuck behind a lock' },
      });
    } finally {
      await release();
    }
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.body).toEqual({ detail: Detail.statementTimeout });
    expect(await countTickets()).toBe(before);
    // the limit is per statement, not a broken pool: the next request is served
    const again = await h.request('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'after' } });
    expect(again.status).toBe(201);
    expect(await countTickets()).toBe(before + 1);
  });

  it('a read past STATEMENT_TIMEOUT_MS answers 503 too (the limit holds for every statement)', async () => {
    const release = await lockTickets(h.databaseUrl!, 'access exclusive');
    try {
      const res = await h.request('GET', '/api/v1/tickets', { apiKey: key });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: Detail.statementTimeout });
    } finally {
      await release();
    }
  });
});

describe.skipIf(TEST_DB !== 'postgres' || postgresUnavailable())('pool exhaustion (Postgres)', () => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    // the harness' pool holds 5 connections; the statements wait up to 8 s behind the lock
    h = await startHarness({ STATEMENT_TIMEOUT_MS: '8000', TENANT_DB_SHARE: '0' });
    const t = await h.tenant();
    key = await t.key(['tickets:read', 'tickets:write']);
    await h.request('GET', '/api/v1/tickets', { apiKey: key }); // key and plan cached
  }, 60_000);
  afterAll(async () => h?.close());

  it("a request that finds every connection taken answers 503 with Retry-After (pg's connect timeout)", async () => {
    const release = await lockTickets(h.databaseUrl!, 'exclusive');
    let held: Awaited<ReturnType<Harness['request']>>[];
    let res: Awaited<ReturnType<Harness['request']>>;
    try {
      const holders = Array.from({ length: 5 }, (_, i) =>
        h.request('POST', '/api/v1/tickets', { apiKey: key, body: { subject: `holder ${i}` } }),
      );
      await new Promise((r) => setTimeout(r, 300));
      res = await h.request('GET', '/api/v1/tickets', { apiKey: key });
      await release();
      held = await Promise.all(holders);
    } catch (err) {
      await release().catch(() => {});
      throw err;
    }
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toEqual({ detail: Detail.databaseUnavailable });
    // the requests that held the connections finish normally once the lock is gone
    expect(held.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
  }, 30_000);
});
