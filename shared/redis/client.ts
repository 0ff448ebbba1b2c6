import { Redis, type RedisConfigNodejs } from '@upstash/redis';
import type { AppConfig } from '../env';

/**
 * The one place an Upstash Redis client is built (rate limits and Idempotency-Key replay), once per
 * configuration and use, kept at module scope so a Worker isolate reuses it across requests. Only
 * the runtimes that wire those services import this (scripts/embedded.ts, shared/runtime/edge.ts):
 * the database-free Workers (docs, console) never bundle the client.
 */
export type RedisUse = 'rateLimit' | 'idempotency';

const OPTIONS: Record<RedisUse, Omit<RedisConfigNodejs, 'url' | 'token'>> = {
  // no retries: a slow or failing Redis is answered by the limiter's fail-open path, not by waiting
  rateLimit: { retry: false, enableTelemetry: false },
  // one quick retry, then the request fails closed (503) instead of hanging; records are raw JSON
  idempotency: {
    automaticDeserialization: false,
    enableTelemetry: false,
    retry: { retries: 1, backoff: () => 50 },
  },
};

const clients = new Map<string, Redis>();

/** The client for `use`, or null when UPSTASH_REDIS_REST_URL/TOKEN are not both set. */
export function upstashRedis(config: AppConfig, use: RedisUse): Redis | null {
  const { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token } = config;
  if (!url || !token) return null;
  const id = `${use}|${url}|${token}`;
  let client = clients.get(id);
  if (!client) {
    client = new Redis({ url, token, ...OPTIONS[use] });
    clients.set(id, client);
  }
  return client;
}
