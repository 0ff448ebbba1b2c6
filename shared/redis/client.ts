import { type RedisConfigNodejs, Redis as UpstashRedis } from '@upstash/redis';
import type { AppConfig } from '../env';

/**
 * The one place a Redis client is built (rate limits, the shared key cache, the tenant's database
 * share, webhook tool limits, Idempotency-Key replay), once per configuration and use, kept at
 * module scope so a Worker isolate reuses it across requests. Two protocols behind one interface:
 * Upstash's REST API (UPSTASH_REDIS_REST_URL/_TOKEN: Workers and Node) and a plain Redis over TCP
 * (REDIS_URL: Node only, through ioredis in shared/redis/node.ts, which the Node runtime imports,
 * so that no Worker bundles it). The database-free Workers (docs, console) never bundle either.
 *
 * Every key is written under REDIS_KEY_PREFIX (default `<APP_ENV>:`), so deployments that share
 * one Redis (staging beside production) share no counter, cache entry or Idempotency-Key.
 */
export type RedisUse = 'rateLimit' | 'idempotency';

/** What the services ask of Redis; keys are given unprefixed and stored under `keyPrefix`. */
export interface RedisClient {
  /** prepended to every key; a script that builds keys from its arguments must prepend it too */
  readonly keyPrefix: string;
  createScript<T = unknown>(script: string): { exec(keys: string[], args: string[]): Promise<T> };
  /** SET with NX (only if absent) and an expiry; answers 'OK', or null when NX found the key */
  set(
    key: string,
    value: string,
    options?: { nx?: boolean; px?: number; ex?: number },
  ): Promise<string | null>;
  get<T = string>(key: string): Promise<T | null>;
  eval(script: string, keys: string[], args: string[]): Promise<unknown>;
  zrem(key: string, member: string): Promise<number>;
}

/** Which Redis, and which keys in it, a client built from `config` talks to: the key of a per-configuration cache. */
export const redisIdentity = (config: AppConfig, client: RedisClient): string =>
  `${config.REDIS_URL}|${config.UPSTASH_REDIS_REST_URL}|${config.UPSTASH_REDIS_REST_TOKEN}|${client.keyPrefix}`;

/** The prefix every key of this deployment carries. */
export const redisKeyPrefix = (config: Pick<AppConfig, 'REDIS_KEY_PREFIX' | 'APP_ENV'>): string =>
  config.REDIS_KEY_PREFIX ?? `${config.APP_ENV}:`;

const OPTIONS: Record<RedisUse, Omit<RedisConfigNodejs, 'url' | 'token'>> = {
  // no retries: a slow or failing Redis is answered by the limiter's fail-open path, not by waiting.
  // Replies as sent: every reader takes numbers, arrays and the key cache's tab-separated entry as
  // they come (Number() of a string counter too), so the client's attempt to JSON-parse each string
  // of each reply, on every keyed request, bought nothing. And no `Upstash-Encoding: base64`: the
  // client then decoded every string of every reply (atob, a byte copy, a TextDecoder). Base64 is
  // there for values that are not UTF-8; ours are ASCII (key records of ids, plans and scopes,
  // counters, sealed answers in base64url), which the REST API returns in JSON as they are. And
  // no auto-pipelining: it built a pipeline object per command to batch the commands of one tick,
  // and ours are one script per request (the key's, then the share's release after the answer)
  rateLimit: {
    retry: false,
    enableTelemetry: false,
    automaticDeserialization: false,
    responseEncoding: false,
    enableAutoPipelining: false,
  },
  // one quick retry, then the request fails closed (503) instead of hanging; records are raw JSON
  idempotency: {
    automaticDeserialization: false,
    enableTelemetry: false,
    responseEncoding: false,
    enableAutoPipelining: false,
    retry: { retries: 1, backoff: () => 50 },
  },
};

class UpstashClient implements RedisClient {
  constructor(
    private readonly redis: UpstashRedis,
    readonly keyPrefix: string,
  ) {}
  createScript<T>(script: string) {
    const s = this.redis.createScript<T>(script);
    return {
      exec: (keys: string[], args: string[]) =>
        s.exec(
          keys.map((k) => this.keyPrefix + k),
          args,
        ),
    };
  }
  set(key: string, value: string, options: { nx?: boolean; px?: number; ex?: number } = {}) {
    // the library's option type is a union of exclusive shapes; these are the ones the services use
    return this.redis.set(this.keyPrefix + key, value, options as { nx: true; px: number }) as Promise<
      string | null
    >;
  }
  get<T>(key: string) {
    return this.redis.get<T>(this.keyPrefix + key);
  }
  eval(script: string, keys: string[], args: string[]) {
    return this.redis.eval(
      script,
      keys.map((k) => this.keyPrefix + k),
      args,
    );
  }
  zrem(key: string, member: string) {
    return this.redis.zrem(this.keyPrefix + key, member);
  }
}

/** How the Node runtime opens a plain Redis (shared/redis/node.ts registers it). */
export type PlainRedisConnector = (url: string, use: RedisUse, keyPrefix: string) => RedisClient;
let plainRedis: PlainRedisConnector | null = null;
export function providePlainRedis(connect: PlainRedisConnector): void {
  plainRedis = connect;
}

const clients = new Map<string, RedisClient>();

/** The client for `use`, or null when neither REDIS_URL nor UPSTASH_REDIS_REST_URL/TOKEN is set. */
export function redisClient(config: AppConfig, use: RedisUse): RedisClient | null {
  const prefix = redisKeyPrefix(config);
  const { REDIS_URL: plain, UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token } = config;
  if (plain) {
    if (!plainRedis) throw new Error('REDIS_URL needs the Node runtime (Workers use UPSTASH_REDIS_REST_URL)');
    const id = `plain|${use}|${plain}|${prefix}`;
    let client = clients.get(id);
    if (!client) {
      client = plainRedis(plain, use, prefix);
      clients.set(id, client);
    }
    return client;
  }
  if (!url || !token) return null;
  const id = `${use}|${url}|${token}|${prefix}`;
  let client = clients.get(id);
  if (!client) {
    client = new UpstashClient(new UpstashRedis({ url, token, ...OPTIONS[use] }), prefix);
    clients.set(id, client);
  }
  return client;
}

/** An Upstash client as the services take it (tests build their own against a stand-in). */
export const upstashClient = (redis: UpstashRedis, keyPrefix = ''): RedisClient =>
  new UpstashClient(redis, keyPrefix);
