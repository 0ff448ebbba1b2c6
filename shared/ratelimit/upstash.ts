import { type CheckOptions, RateLimiterUnavailable } from '../context/rate-limiter';
import { errorField, standaloneLogger } from '../log/logger';
import type { RedisClient as Redis } from '../redis/client';
import { UpstashKeyRecords } from './key-records';
import {
  type Clock,
  decide,
  MemoryRateLimiter,
  type RateDecision,
  type RateLimiter,
  type RateRule,
  windowStart,
} from './limiter';

/**
 * Both windows in one atomic script, one round trip: read every window's counter; if all are
 * under their limit, INCR each (setting its expiry on first use); return [allowed, count...].
 * Our own script rather than @upstash/ratelimit because (1) the plan has two windows per key and
 * @upstash/ratelimit checks one window per call (two round trips, and the first would count a
 * request the second refuses), (2) we need both windows' state for the headers, (3) the same
 * fixed-window arithmetic then runs in Redis and in memory, so both implementations pass one test.
 */
export const RATE_LIMIT_SCRIPT = `
local n = #KEYS
local counts = {}
local allowed = 1
for i = 1, n do
  local c = tonumber(redis.call('GET', KEYS[i]) or '0')
  counts[i] = c
  if c >= tonumber(ARGV[i]) then allowed = 0 end
end
if allowed == 1 then
  for i = 1, n do
    counts[i] = redis.call('INCR', KEYS[i])
    if counts[i] == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[n + i]) end
  end
end
local out = { allowed }
for i = 1, n do out[i + 1] = counts[i] end
return out
`;

export interface UpstashLimiterOptions {
  /** give up on Redis after this long and use the per-instance fallback (fail-open) */
  timeoutMs?: number;
  prefix?: string;
  now?: Clock;
  /** called when Redis failed or was slow (logging; tests count it) */
  onFallback?: (err: unknown) => void;
  /** RATE_LIMIT_SCALE: the plan table's multiplier, for the rules the key cache's script applies */
  scale?: number;
}

/**
 * Upstash Redis limiter. Fail-open by default: when Redis errors or answers slower than
 * `timeoutMs`, the request is judged by an in-memory limiter of this instance (same table, per
 * isolate), so an outage neither fails requests (no 500, no blanket 429) nor removes limiting
 * altogether. A check with `failClosed` throws RateLimiterUnavailable instead.
 */
export class UpstashRateLimiter implements RateLimiter {
  private readonly script;
  private readonly fallback: MemoryRateLimiter;
  private readonly timeoutMs: number;
  private readonly prefix: string;
  private readonly onFallback: (err: unknown) => void;
  readonly keyRecords: UpstashKeyRecords;
  now: Clock;

  constructor(redis: Redis, options: UpstashLimiterOptions = {}) {
    this.script = redis.createScript<number[]>(RATE_LIMIT_SCRIPT);
    this.timeoutMs = options.timeoutMs ?? 250;
    this.prefix = options.prefix ?? 'rl:';
    this.now = options.now ?? Date.now;
    this.fallback = new MemoryRateLimiter({ now: () => this.now() });
    this.onFallback =
      options.onFallback ??
      ((err) => standaloneLogger.warn({ error: errorField(err) }, 'rate limiter fell back to memory'));
    this.keyRecords = new UpstashKeyRecords(redis, {
      prefix: this.prefix,
      scale: options.scale ?? 1,
      timeoutMs: this.timeoutMs,
      now: () => this.now(),
      onFallback: this.onFallback,
    });
  }

  async check(key: string, rule: RateRule, options: CheckOptions = {}): Promise<RateDecision> {
    const now = this.now();
    const keys = rule.windows.map(
      (w) => `${this.prefix}${key}:${w.windowMs}:${windowStart(now, w.windowMs)}`,
    );
    const ttls = rule.windows.map((w) => String(windowStart(now, w.windowMs) + w.windowMs - now + 1000));
    const limits = rule.windows.map((w) => String(w.limit));
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const reply = await Promise.race([
        this.script.exec(keys, [...limits, ...ttls]),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`rate limiter timeout after ${this.timeoutMs} ms`)),
            this.timeoutMs,
          );
        }),
      ]);
      if (!Array.isArray(reply) || reply.length !== rule.windows.length + 1)
        throw new Error('bad script reply');
      const [allowed, ...counts] = reply.map(Number);
      return decide(rule, now, counts, allowed === 1);
    } catch (err) {
      // a fail-closed limit is never judged by one instance's memory: a burst spread over
      // processes would pass each one's count (the script may still have counted it: one less
      // accepted, never one more)
      if (options.failClosed) throw new RateLimiterUnavailable(err);
      this.onFallback(err);
      return this.fallback.check(key, rule);
    } finally {
      if (timer) clearTimeout(timer);
    }
  }
}
