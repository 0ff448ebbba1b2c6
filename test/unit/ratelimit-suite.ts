import { expect } from 'vitest';
import { MINUTE_MS, type RateLimiter, ruleOf } from '../../shared/ratelimit';

/** The boundary suite every implementation must pass (the Upstash one runs it in test/integration). */
export async function windowBoundaries(limiter: RateLimiter & { now: () => number }, key: string) {
  let now = 1_800_000_000_000 - (1_800_000_000_000 % MINUTE_MS); // start of a minute
  limiter.now = () => now;
  const rule = ruleOf({ perMinute: 5, per10s: 3 });

  // burst window: exactly 3 in the first 10 s
  for (let i = 1; i <= 3; i++) {
    const d = await limiter.check(key, rule);
    expect(d.allowed).toBe(true);
    expect(d.windows.map((w) => w.remaining)).toEqual([5 - i, 3 - i]);
  }
  now += 9_999; // last millisecond of the burst window
  const blocked = await limiter.check(key, rule);
  expect(blocked).toMatchObject({ allowed: false, limit: 3, remaining: 0, retryAfter: 1 });
  expect(blocked.reset).toBe(now + 1);

  // next burst window: 2 more reach the minute limit of 5
  now += 1; // 10 000 ms into the minute
  expect((await limiter.check(key, rule)).allowed).toBe(true);
  const fifth = await limiter.check(key, rule);
  expect(fifth).toMatchObject({ allowed: true, limit: 5, remaining: 0 });
  const sixth = await limiter.check(key, rule);
  expect(sixth).toMatchObject({ allowed: false, limit: 5, remaining: 0, retryAfter: 50 });
  // refused requests are not counted: still blocked, and still 5 used, until the minute ends
  now += 49_999;
  expect((await limiter.check(key, rule)).allowed).toBe(false);
  now += 1; // the next minute
  const fresh = await limiter.check(key, rule);
  expect(fresh).toMatchObject({ allowed: true });
  expect(fresh.windows.map((w) => w.remaining)).toEqual([4, 2]);
}
