// The Upstash REST stand-in in front of a real Redis; it lives in scripts/edge (the edge bench runs
// it too, and scripts/ never imports test/).
import {
  redisReachable,
  startUpstashRestAdapter,
  type UpstashRestAdapter,
} from '../../scripts/edge/upstash-rest';
import { type RedisProxyFault, startRedisTcpProxy } from './redis-tcp-proxy';

export * from '../../scripts/edge/upstash-rest';

/**
 * Whether this machine's Redis (127.0.0.1:6379) answers, for a test file's top level: a file
 * skips its Redis cases without it, except under CI=true, where a missing Redis fails the file.
 */
export async function redisForTests(): Promise<boolean> {
  const up = await redisReachable();
  if (!up && process.env.CI === 'true')
    throw new Error('Redis is not reachable at 127.0.0.1:6379; CI requires it');
  return up;
}

/** This machine's Redis as a plain Redis (REDIS_URL, Node only). */
export const PLAIN_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * The two ways the Node runtime reaches Redis, for test files that run the same cases on both:
 * Upstash's REST protocol (through the stand-in, whose `commands` a case may count) and a plain
 * Redis (REDIS_URL, through ioredis).
 */
export const REDIS_PROTOCOLS = ['upstash', 'plain'] as const;
export type RedisProtocol = (typeof REDIS_PROTOCOLS)[number];

export async function redisEnvFor(
  protocol: RedisProtocol,
): Promise<{ env: Record<string, string>; adapter?: UpstashRestAdapter; close(): Promise<void> }> {
  if (protocol === 'plain') return { env: { REDIS_URL: PLAIN_REDIS_URL }, close: async () => {} };
  const adapter = await startUpstashRestAdapter();
  return {
    env: { UPSTASH_REDIS_REST_URL: adapter.url, UPSTASH_REDIS_REST_TOKEN: adapter.token },
    adapter,
    close: () => adapter.close(),
  };
}

/**
 * This machine's Redis behind a stand-in that plays faults, reached over `protocol`: the Upstash
 * REST stand-in (REST path) or a TCP proxy (plain path, test/support/redis-tcp-proxy.ts). Both take
 * the same knobs: `delayMs` (every answer that much later), `fault` ('stall': accepted and never
 * answered; 'refuse': the port closed), so one test body runs on both paths. `env` also carries a
 * REDIS_KEY_PREFIX of its own, so that runs (and the two paths) share no key.
 */
export interface FaultyRedis {
  env: Record<string, string>;
  delayMs: number;
  fault: RedisProxyFault;
  close(): Promise<void>;
}

export async function startFaultyRedis(
  protocol: RedisProtocol,
  options: { label: string; fault?: RedisProxyFault },
): Promise<FaultyRedis> {
  const prefix = {
    REDIS_KEY_PREFIX: `${options.label}-${protocol}-${Math.random().toString(36).slice(2, 10)}:`,
  };
  if (protocol === 'plain') {
    const proxy = await startRedisTcpProxy({ fault: options.fault });
    return Object.assign(proxy, { env: { REDIS_URL: proxy.url, ...prefix } });
  }
  const adapter = await startUpstashRestAdapter();
  if (options.fault) adapter.fault = options.fault;
  return Object.assign(adapter, {
    env: { UPSTASH_REDIS_REST_URL: adapter.url, UPSTASH_REDIS_REST_TOKEN: adapter.token, ...prefix },
  });
}
