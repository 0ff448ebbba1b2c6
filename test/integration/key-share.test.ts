/**
 * A keyed request's database share taken in its key's round trip (shared/ratelimit/key-records.ts,
 * KEY_AND_LIMIT_SCRIPT with a claim from shared/ratelimit/db-share.ts): a warm key's request costs
 * one script before its handler, not two; the share is still refused beyond TENANT_DB_SHARE (the
 * same 429), still released after the answer, and given back when the request is refused before the
 * share middleware held it (a scope's 403). Against this machine's Redis through the Upstash REST
 * adapter, with no in-process key cache, as on a Worker; skipped without Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Detail } from '../../shared/http/errors';
import type { RedisClient } from '../../shared/redis/client';
import { type Harness, postgresUnavailable, type TestTenant } from '../support/harness';
import { type SharedKeyHarness, startSharedKeyHarness } from '../support/shared-key-harness';
import { redisForTests, type UpstashRestAdapter } from '../support/upstash-rest-adapter';

const redisUp = await redisForTests();
const SHARE = 2;

describe.skipIf(postgresUnavailable() || !redisUp)('the share taken with the key (the edge path)', () => {
  let stack: SharedKeyHarness | undefined;
  let adapter: UpstashRestAdapter | undefined;
  let h: Harness;
  let redis: RedisClient;

  beforeAll(async () => {
    stack = await startSharedKeyHarness('upstash', { TENANT_DB_SHARE: String(SHARE) });
    ({ h, adapter, redis } = stack);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  const held = async (t: TestTenant) =>
    Number(await redis.eval("return redis.call('ZCARD', KEYS[1])", [`dbs:${t.id}`], []));
  const scripts = () => (adapter?.commands ?? []).filter((c) => c === 'evalsha' || c === 'eval').length;
  /** a key whose record is in the shared cache (the first request fills it after its answer) */
  const warmKey = async (t: TestTenant, scopes: string[]) => {
    const key = await t.key(scopes);
    expect((await h.request('GET', '/api/v1/tickets', { apiKey: key })).status).toBe(
      scopes.includes('tickets:read') ? 200 : 403,
    );
    await h.runtime.drain();
    return key;
  };

  it('a warm keyed request: one script for the key, its rate limit and its share; the share is released after', async () => {
    const t = await h.tenant();
    const key = await warmKey(t, ['tickets:read']);
    const before = scripts();
    const res = await h.request('GET', '/api/v1/tickets', { apiKey: key });
    expect(res.status).toBe(200);
    expect(scripts() - before).toBe(1);
    await h.runtime.drain();
    expect(await held(t)).toBe(0);
  });

  it('beyond the share: the same 429 as the share middleware answers, before the handler', async () => {
    const t = await h.tenant();
    const key = await warmKey(t, ['tickets:read']);
    // another process holds the whole share
    await redis.eval(
      "return redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])",
      [`dbs:${t.id}`],
      [String(Date.now() + 60_000), `elsewhere.1|${SHARE}`],
    );
    const res = await h.request('GET', '/api/v1/tickets', { apiKey: key });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ detail: Detail.tenantShareExceeded });
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(SHARE));
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    await h.runtime.drain();
    expect(await held(t)).toBe(1); // only the other process's member
    await redis.eval("return redis.call('DEL', KEYS[1])", [`dbs:${t.id}`], []);
    expect((await h.request('GET', '/api/v1/tickets', { apiKey: key })).status).toBe(200);
  });

  it('a request refused before the share middleware (a scope 403) gives the share back at once', async () => {
    const t = await h.tenant();
    const key = await warmKey(t, ['tickets:write']);
    for (let i = 0; i < SHARE + 1; i++) {
      const res = await h.request('GET', '/api/v1/tickets', { apiKey: key });
      expect(res.status).toBe(403);
    }
    await h.runtime.drain();
    expect(await held(t)).toBe(0);
    // and the tenant's next requests are served
    const reader = await warmKey(t, ['tickets:read']);
    expect((await h.request('GET', '/api/v1/tickets', { apiKey: reader })).status).toBe(200);
  });
});
