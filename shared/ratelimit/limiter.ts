import type { RateDecision, RateLimiter, RateRule, WindowState } from '../context/rate-limiter';
import type { KindLimit } from './limits';

// the port is declared in context, below the services that hold one
export type { RateDecision, RateLimiter, RateRule, RateWindow, WindowState } from '../context/rate-limiter';

export const MINUTE_MS = 60_000;
export const BURST_MS = 10_000;

/** A plan cell as a rule: the per-minute window and the 10-second burst window. */
export const ruleOf = (limit: KindLimit): RateRule => ({
  windows: [
    { limit: limit.perMinute, windowMs: MINUTE_MS },
    { limit: limit.per10s, windowMs: BURST_MS },
  ],
});

export const windowStart = (now: number, windowMs: number) => Math.floor(now / windowMs) * windowMs;

/** Builds the decision from each window's count (after counting, or as found when refused). */
export function decide(
  rule: RateRule,
  now: number,
  counts: readonly number[],
  allowed: boolean,
): RateDecision {
  const windows: WindowState[] = rule.windows.map((w, i) => ({
    limit: w.limit,
    windowMs: w.windowMs,
    remaining: Math.max(0, w.limit - (counts[i] ?? 0)),
    reset: windowStart(now, w.windowMs) + w.windowMs,
  }));
  let shown: WindowState;
  let retryAfter = 0;
  if (!allowed) {
    const blocking = windows.filter((w, i) => (counts[i] ?? 0) >= w.limit);
    // wait for the last blocking window to reset: retrying earlier would be refused again
    shown = blocking.reduce((a, b) => (b.reset > a.reset ? b : a));
    retryAfter = Math.max(1, Math.ceil((shown.reset - now) / 1000));
  } else {
    shown = windows.reduce((a, b) =>
      b.remaining < a.remaining || (b.remaining === a.remaining && b.limit < a.limit) ? b : a,
    );
  }
  return {
    allowed,
    limit: shown.limit,
    remaining: allowed ? shown.remaining : 0,
    reset: shown.reset,
    retryAfter,
    now,
    windows,
  };
}

export type Clock = () => number;

/** In-memory fixed windows: the embedded runtime, and the per-instance fallback of the Redis limiter. */
export class MemoryRateLimiter implements RateLimiter {
  /** per key: the start and count of each window of the rule, by index (one lookup per check) */
  private readonly counters = new Map<string, { starts: number[]; counts: number[]; expiresAt: number }>();
  private checks = 0;
  now: Clock;

  constructor(options: { now?: Clock } = {}) {
    this.now = options.now ?? Date.now;
  }

  check(key: string, rule: RateRule): RateDecision {
    const now = this.now();
    if (++this.checks % 1000 === 0) this.sweep(now);
    const windows = rule.windows;
    let state = this.counters.get(key);
    if (!state || state.starts.length !== windows.length) {
      state = { starts: windows.map(() => -1), counts: windows.map(() => 0), expiresAt: 0 };
      this.counters.set(key, state);
    }
    let allowed = true;
    for (let i = 0; i < windows.length; i++) {
      const w = windows[i]!;
      const start = windowStart(now, w.windowMs);
      if (state.starts[i] !== start) {
        state.starts[i] = start;
        state.counts[i] = 0;
      }
      if (state.counts[i]! >= w.limit) allowed = false;
      state.expiresAt = Math.max(state.expiresAt, start + w.windowMs);
    }
    if (allowed) for (let i = 0; i < windows.length; i++) state.counts[i]! += 1;
    return decide(rule, now, state.counts, allowed);
  }

  private sweep(now: number) {
    for (const [k, v] of this.counters) if (v.expiresAt <= now) this.counters.delete(k);
  }
}
