/**
 * The rate-limiter port. Two implementations behind it: in-memory (embedded runtime, and the
 * fail-open fallback) and Upstash Redis (production, CI). Both count fixed windows aligned to the
 * clock (a minute and a 10-second burst window) and count a request only when every window
 * admits it, so a refused request never eats budget.
 */
export interface RateWindow {
  limit: number;
  windowMs: number;
}

export interface RateRule {
  windows: readonly RateWindow[];
}

export interface WindowState {
  limit: number;
  windowMs: number;
  /** requests left in this window after this one */
  remaining: number;
  /** epoch ms when the window ends */
  reset: number;
}

export interface RateDecision {
  allowed: boolean;
  /** the window the headers report: the blocking one, else the one with the fewest remaining */
  limit: number;
  remaining: number;
  /** epoch ms when the reported window resets */
  reset: number;
  /** seconds to wait before retrying (0 when allowed) */
  retryAfter: number;
  /** the limiter's clock when it decided (epoch ms) */
  now: number;
  windows: WindowState[];
}

export interface RateLimiter {
  /** counts one request against every window of the rule; the in-memory limiter answers at once */
  check(key: string, rule: RateRule): RateDecision | Promise<RateDecision>;
}
