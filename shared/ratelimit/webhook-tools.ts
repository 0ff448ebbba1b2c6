import type { Context } from 'hono';
import type { AppEnv } from '../context/app-env';
import { RateLimiterUnavailable, type RateRule } from '../context/rate-limiter';
import { ApiError } from '../http/errors';
import { errorField } from '../log/logger';
import { MemoryRateLimiter, MINUTE_MS } from './limiter';

/**
 * Per webhook endpoint, how often the tools that make the service send may run (docs/webhooks.md,
 * "webhook tools"): each test event is up to five POSTs to the receiver with its retries, and a
 * recover re-sends up to 1,000 failed deliveries, so without a limit any credential that may use
 * them could turn the service into a flood against a receiver. Counted per endpoint, whoever
 * calls, in the services' rate-limit store (in memory on one process, Redis shared by every
 * process and Worker). Exact under bursts (one atomic count-and-check in Redis before anything is
 * sent) and fail-closed: when Redis is down or slower than RATE_LIMIT_TIMEOUT_MS the tool is
 * refused (503 with Retry-After), never judged by one process's memory, where 60 requests spread
 * over processes would each pass a count of their own.
 */
export const LIMITER_UNAVAILABLE = 'The limit on this tool cannot be checked right now: try again shortly';
export const WEBHOOK_TOOL_LIMITS = {
  test: {
    rule: { windows: [{ limit: 10, windowMs: MINUTE_MS }] },
    detail: 'At most 10 test events a minute per endpoint',
  },
  recover: {
    rule: { windows: [{ limit: 1, windowMs: MINUTE_MS }] },
    detail: 'At most one recover a minute per endpoint',
  },
} as const satisfies Record<string, { rule: RateRule; detail: string }>;
export type WebhookTool = keyof typeof WEBHOOK_TOOL_LIMITS;

/** A runtime built without a limiter still holds the line, per process. */
const ownLimiter = new MemoryRateLimiter();

/** Counts one use of `tool` on the endpoint, or refuses it (429 with Retry-After) before anything is sent. */
export async function limitWebhookTool(
  c: Context<AppEnv>,
  tool: WebhookTool,
  webhookId: string,
): Promise<void> {
  const limiter = c.get('services').rateLimiter ?? ownLimiter;
  const { rule, detail } = WEBHOOK_TOOL_LIMITS[tool];
  const decision = await Promise.resolve(
    limiter.check(`webhook-${tool}:${webhookId}`, rule, { failClosed: true }),
  ).catch((err: unknown) => {
    if (!(err instanceof RateLimiterUnavailable)) throw err;
    c.get('services').logger.warn(
      { error: errorField(err.reason) },
      'webhook tool refused: rate limiter unavailable',
    );
    throw new ApiError(503, LIMITER_UNAVAILABLE, { 'Retry-After': '5' });
  });
  if (!decision.allowed) throw new ApiError(429, detail, { 'Retry-After': String(decision.retryAfter) });
}
