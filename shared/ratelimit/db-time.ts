import type { AppConfig } from '../env';
import { errorField, type Logger } from '../log/logger';
import { type RedisClient as Redis, redisClient, redisIdentity } from '../redis/client';

/**
 * A tenant's share of the database over time, beside its share at once (db-share.ts): the share at
 * once lets a tenant run one search or combined filter at a time, but one after another they keep a
 * core of the database busy for as long as the tenant has them to send, and every other tenant's
 * requests share what is left. So the time such reads keep the database busy is metered per
 * tenant: it may average `TENANT_DB_TIME_SHARE` percent of one core, with a second of it ahead
 * (a burst). Past that the next expensive read answers 429 with the Retry-After that brings the
 * tenant back within its share; plain reads and writes are never refused by this meter.
 *
 * The meter is a theoretical arrival time (GCRA): each expensive read that ran `d` ms moves the
 * tenant's time forward by `d / share`; a read is admitted while that time is at most the burst
 * ahead of now. Reads of at most FREE_MS are not metered: a tenant's ordinary searches never wait.
 */
export const FREE_MS = 50;
/** How far ahead of now a tenant's metered time may run before its next expensive read waits. */
export const BURST_MS = 1_000;

export interface TimeMeter {
  /** 0 when an expensive read may run now, else how many ms until it may */
  waitFor(tenant: string, now?: number): Promise<number>;
  /** records that an expensive read kept the database busy for `ms` */
  spend(tenant: string, ms: number, sharePercent: number, now?: number): Promise<void>;
}

/** Metered time moved forward by `ms` at `sharePercent` of a core. */
const advance = (ms: number, sharePercent: number) => (Math.max(0, ms - FREE_MS) * 100) / sharePercent;

export class MemoryTimeMeter implements TimeMeter {
  readonly ahead = new Map<string, number>();
  async waitFor(tenant: string, now = Date.now()) {
    const tat = this.ahead.get(tenant) ?? 0;
    return Math.max(0, tat - now - BURST_MS);
  }
  async spend(tenant: string, ms: number, sharePercent: number, now = Date.now()) {
    const added = advance(ms, sharePercent);
    if (added <= 0) return;
    const tat = Math.max(this.ahead.get(tenant) ?? 0, now) + added;
    this.ahead.set(tenant, tat);
  }
}

/** KEYS[1] the tenant's time; ARGV: now, ms to add. Keeps the key only as long as it is ahead of now. */
const SPEND_SCRIPT = `
local now = tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
tat = tat + tonumber(ARGV[2])
redis.call('SET', KEYS[1], tostring(tat), 'PX', math.ceil(tat - now) + 1)
return 1
`;

/** Across processes and isolates; on a Redis error or timeout, this process's memory decides. */
export class RedisTimeMeter implements TimeMeter {
  private readonly script;
  readonly fallback = new MemoryTimeMeter();

  constructor(
    private readonly redis: Redis,
    private readonly options: { timeoutMs: number; onFallback(err: unknown): void },
  ) {
    this.script = redis.createScript<number>(SPEND_SCRIPT);
  }

  private key(tenant: string) {
    return `dbt:${tenant}`;
  }

  private within<T>(work: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`db time timeout after ${this.options.timeoutMs} ms`)),
          this.options.timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
  }

  async waitFor(tenant: string, now = Date.now()) {
    try {
      const tat = Number((await this.within(this.redis.get<string | number>(this.key(tenant)))) ?? 0);
      return Math.max(0, tat - now - BURST_MS, await this.fallback.waitFor(tenant, now));
    } catch (err) {
      this.options.onFallback(err);
      return this.fallback.waitFor(tenant, now);
    }
  }

  async spend(tenant: string, ms: number, sharePercent: number, now = Date.now()) {
    const added = advance(ms, sharePercent);
    if (added <= 0) return;
    try {
      await this.within(this.script.exec([this.key(tenant)], [String(now), String(added)]));
    } catch (err) {
      this.options.onFallback(err);
      await this.fallback.spend(tenant, ms, sharePercent, now);
    }
  }
}

/** One meter per configuration, kept at module scope (a Worker isolate reuses it across requests). */
const meters = new Map<string, TimeMeter>();
export function timeMeterFor(config: AppConfig, logger: Logger): TimeMeter {
  const redis = redisClient(config, 'rateLimit');
  const id = redis ? `${redisIdentity(config, redis)}|${config.RATE_LIMIT_TIMEOUT_MS}` : 'memory';
  let meter = meters.get(id);
  if (!meter) {
    meter = redis
      ? new RedisTimeMeter(redis, {
          timeoutMs: config.RATE_LIMIT_TIMEOUT_MS,
          onFallback: (err) => logger.warn({ error: errorField(err) }, 'db time fell back to memory'),
        })
      : new MemoryTimeMeter();
    meters.set(id, meter);
  }
  return meter;
}
