// The Upstash REST stand-in in front of a real Redis; it lives in scripts/edge (the edge bench runs
// it too, and scripts/ never imports test/).
import {
  redisReachable,
  startUpstashRestAdapter,
  type UpstashRestAdapter,
} from '../../scripts/edge/upstash-rest';

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
