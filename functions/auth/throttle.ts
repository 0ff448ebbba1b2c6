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
 *
 * Exact under bursts: an attempt is counted (reserved) before its password is checked, in one
 * statement per key, and checked only if the count with it stays within the budget; a success or
 * a refusal gives its reservation back. Counting after the check let 30 wrong passwords sent at
 * once all be checked, since none had been counted when the others looked. The counts live in the
 * database, which a sign-in needs anyway: no Redis outage can open them (docs/rate-limits.md).
 */
import type { Db } from '../../shared/db/schema';
import {
  deleteFailures,
  deleteFailuresByPrefix,
  liveLocks,
  lockWhenSpent,
  releaseAttempt,
  reserveAttempt,
} from './data';

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
/** The order an attempt reserves its keys in: the account's budget is the narrower. */
const RESERVATION_ORDER: readonly ThrottleKind[] = ['account_ip', 'ip'];

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

/** The attempts one sign-in holds: the keys it reserved, and the highest count among them. */
export interface Reservation {
  keys: Record<ThrottleKind, string>;
  /** the most attempts any of its keys has in its window, this one included */
  count: number;
}

/**
 * Reserves this attempt on every key, or refuses it: seconds to wait (429 Retry-After) when a key
 * is locked or its window's budget is spent by earlier or concurrent attempts. A refused attempt
 * gives its reservations back (a refusal is no failure).
 */
export async function reserveSignIn(
  db: Db,
  keys: Record<ThrottleKind, string>,
): Promise<{ reservation: Reservation } | { retryAfter: number }> {
  const now = new Date();
  // one key after the other, narrowest first: an attempt refused on its account's budget never
  // counts against the address's, so a burst at one account cannot spend the address's budget with
  // attempts that will be given back, and refuse the few that account is allowed
  const reserved: ThrottleKind[] = [];
  let count = 0;
  let waitMs = 0;
  for (const kind of RESERVATION_ORDER) {
    const rule = THROTTLE_RULES[kind];
    const h = await reserveAttempt(db, keys[kind], {
      now,
      windowStart: new Date(now.getTime() - rule.windowSeconds * 1000),
    });
    reserved.push(kind);
    count = Math.max(count, h.count);
    if (h.lockedUntil && h.lockedUntil > now) waitMs = h.lockedUntil.getTime() - now.getTime();
    // over budget but not locked yet: the attempts ahead of it are still being checked
    else if (h.count > rule.maxFailures)
      waitMs = h.windowStartedAt.getTime() + rule.windowSeconds * 1000 - now.getTime();
    if (waitMs > 0) break;
  }
  if (waitMs > 0) {
    await Promise.all(reserved.map((kind) => releaseAttempt(db, keys[kind])));
    return { retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) };
  }
  return { reservation: { keys, count } };
}

/** The reserved attempt failed: it stays counted, and a key whose budget it spent is locked. */
export async function settleFailure(db: Db, reservation: Reservation): Promise<void> {
  const now = Date.now();
  const kinds = Object.keys(reservation.keys) as ThrottleKind[];
  await Promise.all(
    kinds.map((kind) =>
      lockWhenSpent(db, reservation.keys[kind], {
        lockEnd: new Date(now + THROTTLE_RULES[kind].lockSeconds * 1000),
        maxFailures: THROTTLE_RULES[kind].maxFailures,
      }),
    ),
  );
}

/**
 * The reserved attempt signed in: its (account, address) count is cleared, and its reservation on
 * the address given back (not the address's failures: one good password must not reset a spray).
 */
export async function settleSuccess(db: Db, reservation: Reservation): Promise<void> {
  await Promise.all([
    deleteFailures(db, reservation.keys.account_ip),
    releaseAttempt(db, reservation.keys.ip),
  ]);
}

/** A password reset clears the account's counts at every address: the owner proved the mailbox. */
export async function clearAccountFailures(db: Db, email: string): Promise<void> {
  await deleteFailuresByPrefix(db, accountPrefix(email));
}
