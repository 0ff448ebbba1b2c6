import type { AppConfig } from '../env';
import { errorField, type Logger } from '../log/logger';
import { redisClient, redisIdentity } from '../redis/client';
import { MemoryRateLimiter, type RateLimiter } from './limiter';
import { UpstashRateLimiter } from './upstash';

/**
 * Redis when REDIS_URL, or UPSTASH_REDIS_REST_URL and _TOKEN, are set (production, staging, CI), else the
 * in-memory limiter (embedded runtime). One limiter per configuration, kept at module scope so a
 * Worker isolate reuses it (and its fallback counters) across requests.
 */
const limiters = new Map<string, RateLimiter>();

export function createRateLimiter(config: AppConfig, logger: Logger): RateLimiter {
  const redis = redisClient(config, 'rateLimit');
  if (!redis) return new MemoryRateLimiter();
  const id = `${redisIdentity(config, redis)}|${config.RATE_LIMIT_TIMEOUT_MS}|${config.RATE_LIMIT_SCALE}`;
  let limiter = limiters.get(id);
  if (!limiter) {
    limiter = new UpstashRateLimiter(redis, {
      timeoutMs: config.RATE_LIMIT_TIMEOUT_MS,
      scale: config.RATE_LIMIT_SCALE,
      onFallback: (err) => logger.warn({ error: errorField(err) }, 'rate limiter fell back to memory'),
    });
    limiters.set(id, limiter);
  }
  return limiter;
}
