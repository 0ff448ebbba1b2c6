/**
 * The retry schedule (docs/webhooks.md "Retries"). Pure, so it has its own
 * unit test: attempt n+1 waits 2^n units after attempt n fails, capped at 64 units; at most 5
 * attempts, after which the delivery is `failed`.
 */
export const MAX_ATTEMPTS = 5;
export const RETRY_CAP_UNITS = 64;

/**
 * Milliseconds to wait before the next attempt, given how many attempts have been made (1..5);
 * `null` when no attempt is left.
 */
export function retryDelayMs(attemptsMade: number, unitMs: number): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) throw new RangeError('attemptsMade must be >= 1');
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  return Math.min(2 ** attemptsMade, RETRY_CAP_UNITS) * unitMs;
}

/** The whole schedule as offsets from the first attempt (documentation and the benchmark). */
export function retryOffsetsMs(unitMs: number): number[] {
  const offsets = [0];
  for (let n = 1; n < MAX_ATTEMPTS; n++) offsets.push(offsets[n - 1]! + retryDelayMs(n, unitMs)!);
  return offsets;
}
