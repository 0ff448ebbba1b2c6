/**
 * Failed sign-ins, counted per account (the lower-cased email, whatever the tenant and whether or
 * not it exists: a lock tells nothing about existence) and per client IP, in the database so every
 * Worker and process sees the same counts. Failures are slowed down before the answer, then the
 * key is locked: a locked caller gets 429 with Retry-After, even with the right password.
 */
import type { Db } from '../../shared/db/schema';
import { countFailure, deleteFailures, liveLocks } from './data';

interface ThrottleRule {
  /** failures within `windowSeconds` that lock the key */
  maxFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

export const THROTTLE_RULES = {
  account: { maxFailures: 5, windowSeconds: 900, lockSeconds: 900 },
  ip: { maxFailures: 20, windowSeconds: 900, lockSeconds: 900 },
} as const satisfies Record<string, ThrottleRule>;
export type ThrottleKind = keyof typeof THROTTLE_RULES;

export const throttleKey = (kind: ThrottleKind, subject: string) => `${kind}:${subject}`;

/** Delay before answering the n-th failure in a window: none for the first two, then doubling to 2 s. */
export const failureDelayMs = (failures: number) =>
  failures < 3 ? 0 : Math.min(2000, 250 * 2 ** (failures - 3));

/** Seconds until the longest lock among `keys` ends; 0 when none is locked. */
export async function lockedSeconds(db: Db, keys: string[]): Promise<number> {
  const rows = await liveLocks(db, keys);
  const until = Math.max(0, ...rows.map((r) => new Date(r.locked_until as Date).getTime()));
  return until === 0 ? 0 : Math.ceil((until - Date.now()) / 1000);
}

/** Counts one failure against `key` (one statement: concurrent failures all count); returns the count. */
export async function recordFailure(db: Db, kind: ThrottleKind, key: string): Promise<number> {
  const rule = THROTTLE_RULES[kind];
  const now = new Date();
  const windowStart = new Date(now.getTime() - rule.windowSeconds * 1000);
  const lockEnd = new Date(now.getTime() + rule.lockSeconds * 1000);
  return countFailure(db, key, { now, windowStart, lockEnd, maxFailures: rule.maxFailures });
}

/** A successful sign-in clears its account's count (not the IP's: one good password must not reset a spray). */
export async function clearFailures(db: Db, key: string): Promise<void> {
  await deleteFailures(db, key);
}
