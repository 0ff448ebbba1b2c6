import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter, MINUTE_MS, RATE_LIMITS } from '../../shared/ratelimit';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

describe.skipIf(postgresUnavailable())('rate limits through the API (in-memory limiter)', () => {
  let h: Harness;
  let now = 0;
  beforeAll(async () => {
    h = await startHarness();
    expect(h.runtime.services.rateLimiter).toBeInstanceOf(MemoryRateLimiter);
    // a controllable clock: no timed assertions
    now = 1_900_000_000_000 - (1_900_000_000_000 % MINUTE_MS);
    h.runtime.services.rateLimiter = new MemoryRateLimiter({ now: () => now });
  }, 120_000);
  afterAll(() => h?.close());

  it('every response carries the headers; the burst window is reported while it is the tighter one', async () => {
    const t = await h.tenant({ plan: 'starter' });
    const key = await t.key(['billing:read']);
    const res = await h.request('GET', '/api/v1/billing/plan', { apiKey: key });
    expect(res.status).toBe(200);
    const l = RATE_LIMITS.starter.read;
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(l.per10s));
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(l.per10s - 1));
    expect(res.headers.get('x-ratelimit-reset')).toBe('10');
    // a 404 from a handler carries them too
    const missing = await h.request('GET', '/api/v1/billing/invoices/inv_190001', { apiKey: key });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-ratelimit-remaining')).toBe(String(l.per10s - 2));
  });

  it('free plan, read: the burst limit is hit exactly at 80, then the minute limit exactly at 400', async () => {
    const t = await h.tenant({ plan: 'free' });
    const key = await t.key(['billing:read']);
    const { perMinute, per10s } = RATE_LIMITS.free.read;
    const get = () => h.request('GET', '/api/v1/billing/plan', { apiKey: key });
    let sent = 0;
    for (let window = 0; window < perMinute / per10s; window++) {
      for (let i = 0; i < per10s; i++) {
        const res = await get();
        expect(res.status).toBe(200);
        sent++;
      }
      if (sent < perMinute) {
        const refused = await get();
        expect(refused.status).toBe(429);
        expect(refused.body).toEqual({ detail: 'Rate limit exceeded' });
        expect(refused.headers.get('retry-after')).toBe('10');
        expect(refused.headers.get('x-ratelimit-limit')).toBe(String(per10s));
        expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      }
      now += 10_000;
    }
    // 400 used, now 50 s into the minute (5 bursts of 10 s): the minute window refuses
    const refused = await get();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBe(String(perMinute));
    expect(refused.headers.get('retry-after')).toBe('10');
    now += 10_000; // the next minute
    expect((await get()).status).toBe(200);
  }, 120_000);

  it('kinds have separate budgets; a refused write is not served and not counted', async () => {
    const t = await h.tenant({ plan: 'free' });
    const key = await t.key(['users:read', 'users:write', 'roles:write']);
    now += MINUTE_MS; // the key's creation was a write of this tenant: start from a fresh minute
    const { per10s } = RATE_LIMITS.free.write;
    for (let i = 0; i < per10s; i++) {
      const res = await h.request('POST', '/api/v1/tenant/users', {
        apiKey: key,
        body: { email: `u${i}@example.com`, role: 'agent' },
      });
      expect(res.status).toBe(201);
    }
    const refused = await h.request('POST', '/api/v1/tenant/users', {
      apiKey: key,
      body: { email: 'late@example.com' },
    });
    expect(refused.status).toBe(429);
    const list = await h.request('GET', '/api/v1/tenant/users?limit=100', { apiKey: key });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(per10s);
    now += MINUTE_MS;
  });

  it('a plan change takes effect on the next request', async () => {
    const t = await h.tenant({ plan: 'free' });
    const key = await t.key(['billing:read', 'billing:write']);
    const before = await h.request('GET', '/api/v1/billing/plan', { apiKey: key });
    expect(before.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMITS.free.read.per10s));
    const changed = await h.request('PUT', '/api/v1/billing/plan', { apiKey: key, body: { plan: 'pro' } });
    expect(changed.status).toBe(200);
    const after = await h.request('GET', '/api/v1/billing/plan', { apiKey: key });
    expect(after.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMITS.pro.read.per10s));
    now += MINUTE_MS;
  });

  it('end-user login is limited per client IP', async () => {
    const t = await h.tenant();
    for (let i = 0; i < 10; i++) {
      const res = await h.request('POST', '/api/v1/app/auth/login', {
        body: { tenant_id: t.id, email: 'nobody@example.com', password: 'wrong-password' },
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('x-ratelimit-limit')).toBe('10');
    }
    const refused = await h.request('POST', '/api/v1/app/auth/login', {
      body: { tenant_id: t.id, email: 'nobody@example.com', password: 'wrong-password' },
    });
    expect(refused.status).toBe(429);
    now += MINUTE_MS;
  });

  it('internal calls and health are not limited', async () => {
    const res = await h.request('GET', '/api/v2/health');
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });
});
