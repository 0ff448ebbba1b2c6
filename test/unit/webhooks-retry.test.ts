import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, RETRY_CAP_UNITS, retryDelayMs, retryOffsetsMs } from '../../shared/webhooks/retry';

describe('webhook retry schedule', () => {
  it('waits 2^n units after attempt n, for n = 1..4 (spec: ~2, 4, 8, 16 s)', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1000))).toEqual([2000, 4000, 8000, 16000]);
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 10))).toEqual([20, 40, 80, 160]);
  });

  it('stops after 5 attempts', () => {
    expect(MAX_ATTEMPTS).toBe(5);
    expect(retryDelayMs(5, 1000)).toBeNull();
    expect(retryDelayMs(6, 1000)).toBeNull();
  });

  it('caps a delay at 64 units', () => {
    expect(RETRY_CAP_UNITS).toBe(64);
    for (let n = 1; n < MAX_ATTEMPTS; n++) expect(retryDelayMs(n, 1)!).toBeLessThanOrEqual(64);
  });

  it('puts the 5 attempts at 0, 2, 6, 14, 30 units', () => {
    expect(retryOffsetsMs(1)).toEqual([0, 2, 6, 14, 30]);
  });

  it('refuses a non-attempt', () => {
    expect(() => retryDelayMs(0, 1000)).toThrow(RangeError);
  });
});
