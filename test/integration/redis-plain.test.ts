/**
 * A plain Redis (REDIS_URL, through ioredis) serves what the Upstash protocol serves, and every key
 * of either carries the deployment's REDIS_KEY_PREFIX: two deployments on one Redis (staging beside
 * production) share no rate-limit counter and no Idempotency-Key. Against this machine's Redis
 * (127.0.0.1:6379), and through the Upstash REST stand-in in front of the same Redis.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/env';
import { RedisIdempotencyStore } from '../../shared/http/idempotency';
import { createRateLimiter, ruleOf, UpstashRateLimiter } from '../../shared/ratelimit';
import { redisClient, redisKeyPrefix } from '../../shared/redis/client';
import '../../shared/redis/node';
import { standaloneLogger } from '../../shared/log/logger';
import {
  PLAIN_REDIS_URL,
  REDIS_PROTOCOLS,
  redisEnvFor,
  redisForTests,
} from '../support/upstash-rest-adapter';
import { windowBoundaries } from '../unit/ratelimit-suite';

const redisUp = await redisForTests();

describe('the default key prefix', () => {
  it('differs per environment, and REDIS_KEY_PREFIX replaces it', () => {
    const staging = loadConfig({ APP_ENV: 'development', REDIS_KEY_PREFIX: undefined });
    expect(redisKeyPrefix(staging)).toBe('development:');
    expect(redisKeyPrefix({ APP_ENV: 'staging', REDIS_KEY_PREFIX: undefined })).not.toBe(
      redisKeyPrefix({ APP_ENV: 'production', REDIS_KEY_PREFIX: undefined }),
    );
    expect(redisKeyPrefix(loadConfig({ APP_ENV: 'test', REDIS_KEY_PREFIX: 'blue:' }))).toBe('blue:');
  });
});

for (const protocol of REDIS_PROTOCOLS)
  describe.skipIf(!redisUp)(`Redis over ${protocol}: the limiter and the key prefix`, () => {
    let env: Record<string, string>;
    let close = async () => {};
    let raw: Redis;
    const run = Math.random().toString(36).slice(2, 10);
    /** two deployments on this one Redis */
    const deployment = (name: string) =>
      loadConfig({
        ...env,
        APP_ENV: 'test',
        REDIS_KEY_PREFIX: `${name}-${run}:`,
        RATE_LIMIT_TIMEOUT_MS: '5000',
      });

    beforeAll(async () => {
      const backend = await redisEnvFor(protocol);
      env = backend.env;
      close = backend.close;
      raw = new Redis(PLAIN_REDIS_URL);
    });
    afterAll(async () => {
      raw?.disconnect();
      await close();
    });

    it('the runtime picks the Redis limiter, and it admits exactly each window (the suite memory passes)', async () => {
      const config = deployment('suite');
      const limiter = createRateLimiter(config, standaloneLogger);
      expect(limiter).toBeInstanceOf(UpstashRateLimiter);
      await windowBoundaries(limiter as UpstashRateLimiter, `boundary-${run}`);
      expect(await raw.keys(`suite-${run}:rl:*`)).not.toHaveLength(0);
    });

    it("one deployment's counters are not another's: the limit spent in staging is whole in production", async () => {
      const rule = ruleOf({ perMinute: 2, per10s: 2 });
      const staging = new UpstashRateLimiter(redisClient(deployment('staging'), 'rateLimit')!, {
        timeoutMs: 5000,
      });
      const production = new UpstashRateLimiter(redisClient(deployment('production'), 'rateLimit')!, {
        timeoutMs: 5000,
      });
      for (let i = 0; i < 2; i++) expect((await staging.check('t:ten_demo:read', rule)).allowed).toBe(true);
      expect((await staging.check('t:ten_demo:read', rule)).allowed).toBe(false);
      expect((await production.check('t:ten_demo:read', rule)).allowed).toBe(true);
      // every key either wrote is under its own prefix, none bare
      const keys = [...(await raw.keys(`staging-${run}:*`)), ...(await raw.keys(`production-${run}:*`))];
      expect(keys.length).toBeGreaterThan(0);
      expect(await raw.keys('rl:t:ten_demo:read*')).toEqual([]);
    });

    it("one deployment's Idempotency-Key is not another's", async () => {
      const claim = (token: string) => ({
        scope: { tenantId: 'ten_demo', credential: 'api_key:prefix', key: `same-${run}` },
        fingerprint: 'f',
        token,
        leaseMs: 30_000,
        sealKey: 'prefix-test-seal',
      });
      const staging = new RedisIdempotencyStore(redisClient(deployment('staging'), 'idempotency')!);
      const production = new RedisIdempotencyStore(redisClient(deployment('production'), 'idempotency')!);
      expect(await staging.begin(claim('a'))).toEqual({ kind: 'new' });
      expect(await staging.begin(claim('b'))).toEqual({ kind: 'in_progress' });
      expect(await production.begin(claim('c'))).toEqual({ kind: 'new' });
      expect(await raw.keys(`staging-${run}:idem:ten_demo:*`)).toHaveLength(1);
    });
  });

describe('a plain Redis nobody answers', () => {
  it('the limiter fails open to memory; an Idempotency-Key fails (closed), neither hangs', async () => {
    const config = loadConfig({
      APP_ENV: 'test',
      REDIS_URL: 'redis://127.0.0.1:1',
      RATE_LIMIT_TIMEOUT_MS: '300',
    });
    const fallbacks: unknown[] = [];
    const limiter = new UpstashRateLimiter(redisClient(config, 'rateLimit')!, {
      timeoutMs: 300,
      onFallback: (e) => fallbacks.push(e),
    });
    expect((await limiter.check('dead', ruleOf({ perMinute: 5, per10s: 5 }))).allowed).toBe(true);
    expect(fallbacks.length).toBe(1);
    const store = new RedisIdempotencyStore(redisClient(config, 'idempotency')!);
    await expect(
      store.begin({
        scope: { tenantId: 't', credential: 'c', key: 'k' },
        fingerprint: 'f',
        token: 't',
        leaseMs: 1000,
        sealKey: 's',
      }),
    ).rejects.toThrow();
  });
});
