/**
 * Failed sign-ins, counted per (account, client address) and per client address, in the database
 * so every Worker and process sees the same counts. Failures are slowed down before the answer
 * (a growing delay), then the key is locked: from that address, that account (or, after many
 * failures across accounts, anything) gets 429 with Retry-After, even with the right password.
 *
 * Never per account alone: that lock was a weapon, since five wrong passwords from anywhere kept the
 * owner out everywhere. Here the owner's right password from any other address still signs in; a
 * guesser is held to a few tries per account per address, and a spray across accounts from one
 * address to the per-address budget. (The account is the lower-cased email, whatever the tenant
 * and whether or not it exists: a lock tells nothing about existence.)
 */
import type { Db } from '../../shared/db/schema';
import { countFailure, deleteFailures, deleteFailuresByPrefix, liveLocks } from './data';

interface ThrottleRule {
  /** failures within `windowSeconds` that lock the key */
  maxFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

export const THROTTLE_RULES = {
  account_ip: { maxFailures: 5, windowSeconds: 900, lockSeconds: 900 },
  ip: { maxFailures: 20, windowSeconds: 900, lockSeconds: 900 },
} as const satisfies Record<string, ThrottleRule>;
export type ThrottleKind = keyof typeof THROTTLE_RULES;

/** The keys one sign-in attempt counts against. */
export function throttleKeys(email: string, ip: string): Record<ThrottleKind, string> {
  return { account_ip: `${accountPrefix(email)}${ip}`, ip: `ip:${ip}` };
}
/** Every (account, address) key of an account starts with this. */
const accountPrefix = (email: string) => `account_ip:${email.toLowerCase()}|`;

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

/** A successful sign-in clears its (account, address) count (not the address's: one good password must not reset a spray). */
export async function clearFailures(db: Db, key: string): Promise<void> {
  await deleteFailures(db, key);
}

/** A password reset clears the account's counts at every address: the owner proved the mailbox. */
export async function clearAccountFailures(db: Db, email: string): Promise<void> {
  await deleteFailuresByPrefix(db, accountPrefix(email));
}
