/** Retry on 429 (rate limited: the request was not run) and 503 (e.g. the Idempotency-Key store unreachable). */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export interface RetryOptions {
  /** attempts in all, the first included (default 3; 1 = never retry) */
  attempts?: number | undefined;
  /** never wait longer than this between attempts; a longer `Retry-After` ends the retries (default 30 000) */
  maxDelayMs?: number | undefined;
  /** wait when the answer has no `Retry-After`: doubled per attempt (default 500) */
  baseDelayMs?: number | undefined;
  /** for tests */
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; `undefined` when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * A fetch that re-sends a request answered 429 or 503, after the server's `Retry-After`. The same
 * Request (same Idempotency-Key and X-Request-Id) is sent each time, so a POST never runs twice.
 */
export function retryingFetch(
  fetchImpl: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const attempts = Math.max(1, options.attempts ?? 3);
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const sleep = options.sleep ?? defaultSleep;
  return async function fetchWithRetry(request: Request): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      // a body can be read once: each attempt sends a copy, the original stays for the next
      const response = await fetchImpl(attempt < attempts ? request.clone() : request);
      if (!RETRIED_STATUSES.has(response.status) || attempt >= attempts) return response;
      const delay = retryAfterMs(response.headers.get('Retry-After')) ?? baseDelayMs * 2 ** (attempt - 1);
      if (delay > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay);
    }
  };
}
