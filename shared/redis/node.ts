// Node only: a plain Redis (REDIS_URL) through ioredis, with the semantics the services rely on
// from the Upstash client (shared/redis/client.ts). Imported by the Node runtime, never by a Worker.
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { providePlainRedis, type RedisClient, type RedisUse } from './client';

/**
 * How each use waits, as its Upstash client does: the limiter gives up at once (its fail-open
 * path answers; it also races RATE_LIMIT_TIMEOUT_MS), Idempotency-Key replay retries once, then
 * fails closed (503) rather than hanging on a Redis that does not answer.
 */
const OPTIONS: Record<RedisUse, { maxRetriesPerRequest: number; commandTimeout: number }> = {
  rateLimit: { maxRetriesPerRequest: 0, commandTimeout: 2_000 },
  idempotency: { maxRetriesPerRequest: 1, commandTimeout: 2_000 },
};

const sha1 = (script: string) => createHash('sha1').update(script).digest('hex');
const isNoScript = (err: unknown) => err instanceof Error && err.message.startsWith('NOSCRIPT');

class PlainRedisClient implements RedisClient {
  constructor(
    private readonly redis: Redis,
    readonly keyPrefix: string,
  ) {}

  /** EVALSHA, and EVAL once when this Redis has not seen the script (as Upstash's Script does) */
  createScript<T>(script: string) {
    const hash = sha1(script);
    return {
      exec: async (keys: string[], args: string[]): Promise<T> => {
        const prefixed = keys.map((k) => this.keyPrefix + k);
        try {
          return (await this.redis.evalsha(hash, prefixed.length, ...prefixed, ...args)) as T;
        } catch (err) {
          if (!isNoScript(err)) throw err;
          return (await this.redis.eval(script, prefixed.length, ...prefixed, ...args)) as T;
        }
      },
    };
  }

  async set(key: string, value: string, options: { nx?: boolean; px?: number; ex?: number } = {}) {
    const args: (string | number)[] = [this.keyPrefix + key, value];
    if (options.px !== undefined) args.push('PX', options.px);
    if (options.ex !== undefined) args.push('EX', options.ex);
    if (options.nx) args.push('NX');
    return (await this.redis.call('SET', ...args)) as string | null;
  }

  async get<T>(key: string) {
    return (await this.redis.get(this.keyPrefix + key)) as T | null;
  }

  eval(script: string, keys: string[], args: string[]) {
    const prefixed = keys.map((k) => this.keyPrefix + k);
    return this.redis.eval(script, prefixed.length, ...prefixed, ...args);
  }

  zrem(key: string, member: string) {
    return this.redis.zrem(this.keyPrefix + key, member);
  }
}

providePlainRedis((url, use, keyPrefix) => {
  const redis = new Redis(url, { ...OPTIONS[use], lazyConnect: false });
  // a dropped connection is reported by the commands that fail on it (the limiter logs its
  // fallback, Idempotency-Key answers 503); ioredis reconnects on its own
  redis.on('error', () => {});
  return new PlainRedisClient(redis, keyPrefix);
});
