/**
 * The Upstash path against this machine's real Redis, through the Upstash-REST-compatible adapter
 * (test/support/upstash-rest-adapter.ts). With CI=true a missing Redis fails; otherwise skipped.
 */
import { Redis } from '@upstash/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS, RATE_LIMITS, ruleOf, UpstashRateLimiter } from '../../shared/ratelimit';
import { redisKeyPrefix, upstashClient } from '../../shared/redis/client';
import { freePort } from '../support/free-port';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';
import {
  redisForTests,
  startUpstashRestAdapter,
  type UpstashRestAdapter,
} from '../support/upstash-rest-adapter';
import { windowBoundaries } from '../unit/ratelimit-suite';

const redisUp = await redisForTests();

describe.skipIf(postgresUnavailable() || !redisUp)(
  'rate limits on Upstash Redis (real Redis via REST adapter)',
  () => {
    let adapter: UpstashRestAdapter;
    let h: Harness;
    const run = Math.random().toString(36).slice(2, 10);
    const redis = () =>
      new Redis({ url: adapter.url, token: adapter.token, retry: false, enableTelemetry: false });

    beforeAll(async () => {
      adapter = await startUpstashRestAdapter();
      h = await startHarness({
        UPSTASH_REDIS_REST_URL: adapter.url,
        UPSTASH_REDIS_REST_TOKEN: adapter.token,
        // counted in Redis, every time: on a loaded machine a Redis answer slower than the default
        // 250 ms made the limiter fail open to memory mid-test (remaining 79 where 76 was due)
        RATE_LIMIT_TIMEOUT_MS: '5000',
        // the rate limiter's own round trips only: the tenant's database share (one more before the
        // handler, one after) is tested in db-share.test.ts and tenant-share-processes.test.ts
        TENANT_DB_SHARE: '0',
      });
    }, 120_000);
    afterAll(async () => {
      await h?.close();
      await adapter?.close();
    });

    it('the embedded runtime picks the Upstash limiter when UPSTASH_REDIS_REST_URL/TOKEN are set', () => {
      expect(h.runtime.services.rateLimiter).toBeInstanceOf(UpstashRateLimiter);
    });

    it('the adapter speaks the protocol @upstash/redis uses (single, pipeline, multi-exec, scripts)', async () => {
      const r = redis();
      const k = `adapter:${run}`;
      expect(await r.set(k, 'v1', { ex: 30 })).toBe('OK');
      expect(await r.get(k)).toBe('v1');
      const p = r.pipeline();
      p.incr(`${k}:n`);
      p.incr(`${k}:n`);
      expect(await p.exec()).toEqual([1, 2]);
      const m = r.multi();
      m.incr(`${k}:n`);
      m.get(`${k}:n`);
      expect(await m.exec()).toEqual([3, 3]);
      expect(await r.eval('return ARGV[1]', [], ['hi'])).toBe('hi');
      await r.del(k, `${k}:n`);
    });

    it('admits exactly the limit of each window and resets at the boundary (same suite as in memory)', async () => {
      const limiter = new UpstashRateLimiter(upstashClient(redis()), {
        prefix: `rl-test:${run}:`,
        timeoutMs: 5000,
      });
      await windowBoundaries(limiter, 'boundary');
      expect(adapter.commands.filter((c) => c === 'evalsha' || c === 'eval').length).toBeGreaterThan(0);
    });

    it('answers 429 with the headers through the API, counted in Redis', async () => {
      const limiter = h.runtime.services.rateLimiter as UpstashRateLimiter;
      let now = 2_000_000_000_000 - (2_000_000_000_000 % MINUTE_MS);
      limiter.now = () => now;
      const t = await h.tenant({ plan: 'free' });
      const key = await t.key(['billing:read']);
      const { per10s } = RATE_LIMITS.free.read;
      for (let i = 0; i < per10s; i++) {
        const res = await h.request('GET', '/api/v1/billing/plan', { apiKey: key });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-remaining')).toBe(String(per10s - 1 - i));
      }
      const refused = await h.request('GET', '/api/v1/billing/plan', { apiKey: key });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ detail: 'Rate limit exceeded' });
      expect(refused.headers.get('retry-after')).toBe('10');
      expect(refused.headers.get('x-ratelimit-limit')).toBe(String(per10s));
      expect(refused.headers.get('x-ratelimit-reset')).toBe('10');
      // the counters live in Redis
      const stored = await redis().get<string>(`${redisKeyPrefix(h.config)}rl:t:${t.id}:read:10000:${now}`);
      expect(Number(stored)).toBe(per10s);
      now += 10_000;
      expect((await h.request('GET', '/api/v1/billing/plan', { apiKey: key })).status).toBe(200);
      limiter.now = Date.now;
    });

    it('fails open to the in-memory limiter when Redis is down (never a 500)', async () => {
      const fallbacks: unknown[] = [];
      const limiter = new UpstashRateLimiter(upstashClient(redis()), {
        timeoutMs: 1000,
        onFallback: (e) => fallbacks.push(e),
      });
      const previous = h.runtime.services.rateLimiter;
      h.runtime.services.rateLimiter = limiter;
      adapter.down = true;
      try {
        const t = await h.tenant();
        const key = await t.key(['billing:read']);
        const res = await h.request('GET', '/api/v1/billing/plan', { apiKey: key });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMITS.enterprise.read.per10s));
        expect(res.headers.get('x-ratelimit-remaining')).toBe(String(RATE_LIMITS.enterprise.read.per10s - 1));
        expect(fallbacks.length).toBeGreaterThanOrEqual(1);
        // the fallback still limits
        const d = await limiter.check(`fallback:${run}`, ruleOf({ perMinute: 1, per10s: 1 }));
        expect(d.allowed).toBe(true);
        expect((await limiter.check(`fallback:${run}`, ruleOf({ perMinute: 1, per10s: 1 }))).allowed).toBe(
          false,
        );
      } finally {
        adapter.down = false;
        h.runtime.services.rateLimiter = previous;
      }
    });

    it('fails open when Redis is slower than the timeout', async () => {
      const fallbacks: unknown[] = [];
      const limiter = new UpstashRateLimiter(upstashClient(redis()), {
        timeoutMs: 50,
        onFallback: (e) => fallbacks.push(e),
      });
      adapter.delayMs = 500;
      try {
        const d = await limiter.check(`slow:${run}`, ruleOf({ perMinute: 5, per10s: 5 }));
        expect(d).toMatchObject({ allowed: true, remaining: 4 });
        expect(String(fallbacks[0])).toContain('timeout');
      } finally {
        adapter.delayMs = 0;
      }
    });

    it('fails open when nothing listens at the configured URL', async () => {
      const fallbacks: unknown[] = [];
      const dead = new Redis({
        url: `http://127.0.0.1:${await freePort()}`,
        token: 'x',
        retry: false,
        enableTelemetry: false,
      });
      const limiter = new UpstashRateLimiter(upstashClient(dead), {
        timeoutMs: 2000,
        onFallback: (e) => fallbacks.push(e),
      });
      const d = await limiter.check(`dead:${run}`, ruleOf({ perMinute: 5, per10s: 5 }));
      expect(d.allowed).toBe(true);
      expect(fallbacks).toHaveLength(1);
    });
  },
);
