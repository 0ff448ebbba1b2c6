/**
 * The tenant share's parts (shared/ratelimit/db-share.ts): what a request costs, the in-memory
 * count, and the Redis count that two processes share (two stores on this machine's Redis through
 * the Upstash REST adapter stand for two processes), its leases, and its fall-back to memory when
 * Redis is down or slow. The share through two real server processes: test/reliability/
 * tenant-share-processes.test.ts.
 */
import { Redis } from '@upstash/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryShareStore, RedisShareStore, SHARE_COST, shareCostOf } from '../../shared/ratelimit/db-share';
import {
  BURST_MS,
  FREE_MS,
  MemoryTimeMeter,
  RedisTimeMeter,
  timeMeterFor,
} from '../../shared/ratelimit/db-time';
import { upstashClient } from '../../shared/redis/client';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';
import {
  redisForTests,
  startUpstashRestAdapter,
  type UpstashRestAdapter,
} from '../support/upstash-rest-adapter';

const redisUp = await redisForTests();

describe('what a request costs', () => {
  it('a search or a combined filter costs more than a plain read or a write', () => {
    const { plain, expensive } = SHARE_COST;
    expect(expensive).toBeGreaterThan(plain);
    expect(shareCostOf('GET', '/api/v1/tickets')).toBe(plain);
    expect(shareCostOf('GET', '/api/v1/tickets/tkt_1')).toBe(plain);
    expect(shareCostOf('GET', '/api/v1/tickets?limit=50&cursor=abc&sort=created_at')).toBe(plain);
    expect(shareCostOf('GET', '/api/v1/tickets?status=open')).toBe(plain);
    expect(shareCostOf('GET', '/api/v2/contacts?q=77')).toBe(expensive);
    expect(shareCostOf('GET', '/api/v1/tickets?status=open&priority=high')).toBe(expensive);
    expect(shareCostOf('GET', '/api/v2/contacts?q=')).toBe(plain);
    expect(shareCostOf('POST', '/api/v1/tickets?q=x&a=b')).toBe(plain);
  });
});

describe('the in-memory share', () => {
  it('admits up to the share, refuses beyond it, and frees on release; one costly request alone still runs', async () => {
    const store = new MemoryShareStore();
    expect(await store.acquire('t', '1', 4, 5)).toEqual({ admitted: true, used: 4 });
    expect(await store.acquire('t', '2', 1, 5)).toEqual({ admitted: true, used: 5 });
    expect(await store.acquire('t', '3', 1, 5)).toEqual({ admitted: false, used: 5 });
    // another tenant has its own share
    expect((await store.acquire('u', '4', 1, 5)).admitted).toBe(true);
    await store.release('t', '1', 4);
    expect((await store.acquire('t', '3', 1, 5)).admitted).toBe(true);
    const alone = new MemoryShareStore();
    expect((await alone.acquire('t', '1', 8, 5, 1000)).admitted).toBe(true);
    expect((await alone.acquire('t', '2', 1, 5, 1000)).admitted).toBe(false);
  });
});

describe('Redis down: each process falls back to its own bound', () => {
  it('a refused Redis is judged in memory, per process, and released there', async () => {
    const fallbacks: unknown[] = [];
    const dead = new Redis({ url: 'http://127.0.0.1:1', token: 'x', retry: false, enableTelemetry: false });
    const store = new RedisShareStore(upstashClient(dead), {
      timeoutMs: 1000,
      onFallback: (e) => fallbacks.push(e),
    });
    expect((await store.acquire('t', 'a', 1, 2, 1000)).admitted).toBe(true);
    expect((await store.acquire('t', 'b', 1, 2, 1000)).admitted).toBe(true);
    expect((await store.acquire('t', 'c', 1, 2, 1000)).admitted).toBe(false);
    expect(fallbacks.length).toBe(3);
    await store.release('t', 'a', 1);
    expect(store.fallback.inUse.get('t')).toBe(1);
    expect((await store.acquire('t', 'c', 1, 2, 1000)).admitted).toBe(true);
  });
});

describe('the share over time (shared/ratelimit/db-time.ts)', () => {
  it('meters what an expensive read took past FREE_MS at the share, and waits only past the burst', async () => {
    const meter = new MemoryTimeMeter();
    const now = 1_000_000;
    await meter.spend('t', FREE_MS, 25, now); // a read of FREE_MS is not metered
    expect(await meter.waitFor('t', now)).toBe(0);
    await meter.spend('t', FREE_MS + 250, 25, now); // 250 ms at 25% of a core: 1000 ms ahead
    expect(await meter.waitFor('t', now)).toBe(0); // exactly the burst
    await meter.spend('t', FREE_MS + 100, 25, now); // 400 ms more
    expect(await meter.waitFor('t', now)).toBe(400);
    expect(await meter.waitFor('t', now + 400)).toBe(0); // the meter runs down with the clock
    expect(await meter.waitFor('u', now)).toBe(0); // another tenant's meter is its own
    // time spent while the meter was behind the clock starts from now, not from the past
    await meter.spend('v', FREE_MS + 500, 50, now);
    expect(await meter.waitFor('v', now + 5000)).toBe(0);
    await meter.spend('v', FREE_MS + 600, 50, now + 5000);
    expect(await meter.waitFor('v', now + 5000)).toBe(1200 - BURST_MS);
  });
});

describe.skipIf(postgresUnavailable())('the share over time, through the API', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  it("a tenant past its time share gets 429 for its next search, not for its plain reads, and not another tenant's", async () => {
    const [busy, other] = [await h.tenant(), await h.tenant()];
    const [busyKey, otherKey] = [await busy.key(['tickets:read']), await other.key(['tickets:read'])];
    const search = '/api/v1/tickets?status=open&priority=high';
    expect((await h.request('GET', search, { apiKey: busyKey })).status).toBe(200);
    // the runtime's own meter (no Redis configured: this process's memory) as if the tenant's
    // searches had kept the database busy for three seconds
    await timeMeterFor(h.config, h.runtime.services.logger).spend(busy.id, FREE_MS + 3000, 25);
    const refused = await h.request('GET', search, { apiKey: busyKey });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: 'Too many concurrent requests for this tenant; retry shortly' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(10);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await h.request('GET', '/api/v1/tickets', { apiKey: busyKey })).status).toBe(200);
    expect((await h.request('GET', search, { apiKey: otherKey })).status).toBe(200);
  });
});

describe.skipIf(!redisUp)('the share in Redis (real Redis via the REST adapter)', () => {
  let adapter: UpstashRestAdapter;
  const run = Math.random().toString(36).slice(2, 10);
  const store = (timeoutMs = 5000, onFallback: (e: unknown) => void = () => {}) =>
    new RedisShareStore(
      upstashClient(
        new Redis({ url: adapter.url, token: adapter.token, retry: false, enableTelemetry: false }),
      ),
      { timeoutMs, prefix: `dbs-test:${run}:`, onFallback },
    );

  beforeAll(async () => {
    adapter = await startUpstashRestAdapter();
  });
  afterAll(async () => adapter?.close());

  it('two processes count one share: what one holds, the other cannot take, until released', async () => {
    const one = store();
    const two = store();
    expect(await one.acquire('t1', 'r1', 4, 5, 30_000)).toEqual({ admitted: true, used: 4 });
    expect(await two.acquire('t1', 'r2', 4, 5, 30_000)).toEqual({ admitted: false, used: 4 });
    expect(await two.acquire('t1', 'r3', 1, 5, 30_000)).toEqual({ admitted: true, used: 5 });
    expect((await two.acquire('t2', 'r4', 4, 5, 30_000)).admitted).toBe(true);
    await one.release('t1', 'r1', 4);
    expect(await two.acquire('t1', 'r2', 4, 5, 30_000)).toEqual({ admitted: true, used: 5 });
  });

  it('a share nobody released (its process died) ends with its lease', async () => {
    const one = store();
    // a lease long enough that a busy machine's round trips do not outlast it before the refusal
    expect((await one.acquire('t3', 'lost', 5, 5, 2000)).admitted).toBe(true);
    expect((await one.acquire('t3', 'next', 1, 5, 30_000)).admitted).toBe(false);
    await new Promise((r) => setTimeout(r, 2200));
    expect((await one.acquire('t3', 'next', 1, 5, 30_000)).admitted).toBe(true);
  });

  it('two processes meter one tenant over time: what one spent, the other waits for', async () => {
    const meter = () =>
      new RedisTimeMeter(
        upstashClient(
          new Redis({ url: adapter.url, token: adapter.token, retry: false, enableTelemetry: false }),
        ),
        { timeoutMs: 5000, onFallback: () => {} },
      );
    const [one, two] = [meter(), meter()];
    const tenant = `time-${run}`;
    const now = Date.now();
    await one.spend(tenant, FREE_MS + 500, 25, now); // 2000 ms ahead
    expect(await two.waitFor(tenant, now)).toBe(2000 - BURST_MS);
    expect(await two.waitFor(`${tenant}-other`, now)).toBe(0);
  });

  it('a Redis slower than the timeout is judged in memory (fail-open to the process bound)', async () => {
    const fallbacks: unknown[] = [];
    const slow = store(100, (e) => fallbacks.push(e));
    adapter.delayMs = 400;
    try {
      expect((await slow.acquire('t4', 'a', 1, 1, 30_000)).admitted).toBe(true);
      expect((await slow.acquire('t4', 'b', 1, 1, 30_000)).admitted).toBe(false);
    } finally {
      adapter.delayMs = 0;
    }
    expect(fallbacks.length).toBe(2);
  });
});
