import { describe, expect, it } from 'vitest';
import {
  BURST_MS,
  decide,
  MemoryRateLimiter,
  MINUTE_MS,
  PLANS,
  RATE_KINDS,
  RATE_LIMITS,
  rateKindOf,
  ruleOf,
} from '../../shared/ratelimit';
import { windowBoundaries } from './ratelimit-suite';

describe('MemoryRateLimiter', () => {
  it('admits exactly the limit of each window, refuses the next, resets at the boundary', async () => {
    await windowBoundaries(new MemoryRateLimiter(), 'k1');
  });

  it('keeps keys apart', async () => {
    const limiter = new MemoryRateLimiter({ now: () => 0 });
    const rule = ruleOf({ perMinute: 1, per10s: 1 });
    expect((await limiter.check('a', rule)).allowed).toBe(true);
    expect((await limiter.check('a', rule)).allowed).toBe(false);
    expect((await limiter.check('b', rule)).allowed).toBe(true);
  });
});

describe('decide (headers)', () => {
  it('reports the window with the fewest remaining, the blocking one when refused', () => {
    const rule = ruleOf({ perMinute: 100, per10s: 10 });
    expect(decide(rule, 0, [50, 2], true)).toMatchObject({ limit: 10, remaining: 8, reset: BURST_MS });
    expect(decide(rule, 0, [99, 2], true)).toMatchObject({ limit: 100, remaining: 1, reset: MINUTE_MS });
    expect(decide(rule, 1000, [100, 10], false)).toMatchObject({
      allowed: false,
      limit: 100,
      retryAfter: 59,
    });
  });
});

describe('limits table', () => {
  it('free allows no more than 600 requests a minute across all kinds', () => {
    const total = RATE_KINDS.reduce((s, k) => s + RATE_LIMITS.free[k].perMinute, 0);
    expect(total).toBeLessThanOrEqual(600);
  });
  it.each(PLANS)('%s: every kind has a burst at most its minute limit, plans grow', (plan) => {
    for (const k of RATE_KINDS) {
      const l = RATE_LIMITS[plan][k];
      expect(l.per10s).toBeGreaterThan(0);
      expect(l.per10s).toBeLessThanOrEqual(l.perMinute);
    }
    const i = PLANS.indexOf(plan);
    if (i > 0)
      for (const k of RATE_KINDS)
        expect(RATE_LIMITS[plan][k].perMinute).toBeGreaterThan(RATE_LIMITS[PLANS[i - 1]!][k].perMinute);
  });
  it('classifies endpoints by kind', () => {
    expect(rateKindOf('GET', '/api/v1/tickets')).toBe('read');
    expect(rateKindOf('HEAD', '/api/v1/tickets')).toBe('read');
    expect(rateKindOf('POST', '/api/v1/tickets')).toBe('write');
    expect(rateKindOf('DELETE', '/api/v1/webhooks/x')).toBe('write');
    expect(rateKindOf('POST', '/api/v1/tenant/exports')).toBe('export');
    expect(rateKindOf('POST', '/api/v1/conversations/cnv_1/export')).toBe('export');
    expect(rateKindOf('GET', '/api/v1/tenant/exports/exp_1/download')).toBe('read');
  });
  it('docs/rate-limits.md shows this table', async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync('docs/rate-limits.md', 'utf8');
    for (const plan of PLANS)
      for (const k of RATE_KINDS) {
        const l = RATE_LIMITS[plan][k];
        expect(doc).toContain(`| ${plan} | ${k} | ${l.perMinute} | ${l.per10s} |`);
      }
  });
});
