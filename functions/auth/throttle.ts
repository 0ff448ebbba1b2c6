/**
 * Failed sign-ins, counted per account (the lower-cased email, whatever the tenant and whether or
 * not it exists: a lock tells nothing about existence) and per client IP, in the database so every
 * Worker and process sees the same counts. Failures are slowed down before the answer, then the
 * key is locked: a locked caller gets 429 with Retry-After, even with the right password.
 */
import { sql } from 'kysely';
import type { Db } from '../../shared/db/schema';

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
  const rows = await db
    .selectFrom('auth_throttle')
    .select('locked_until')
    .where('key', 'in', keys)
    .where('locked_until', '>', new Date())
    .execute();
  const until = Math.max(0, ...rows.map((r) => new Date(r.locked_until as Date).getTime()));
  return until === 0 ? 0 : Math.ceil((until - Date.now()) / 1000);
}

/** Counts one failure against `key` (one statement: concurrent failures all count); returns the count. */
export async function recordFailure(db: Db, kind: ThrottleKind, key: string): Promise<number> {
  const rule = THROTTLE_RULES[kind];
  const now = new Date();
  const windowStart = new Date(now.getTime() - rule.windowSeconds * 1000);
  const lockEnd = new Date(now.getTime() + rule.lockSeconds * 1000);
  const fresh = sql<boolean>`auth_throttle.window_started_at < ${windowStart}`;
  const counted = sql<number>`CASE WHEN ${fresh} THEN 1 ELSE auth_throttle.failures + 1 END`;
  const row = await db
    .insertInto('auth_throttle')
    .values({
      key,
      failures: 1,
      window_started_at: now,
      locked_until: rule.maxFailures <= 1 ? lockEnd : null,
    })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        failures: counted,
        window_started_at: sql`CASE WHEN ${fresh} THEN ${now} ELSE auth_throttle.window_started_at END`,
        locked_until: sql`CASE WHEN ${counted} >= ${rule.maxFailures} THEN ${lockEnd} ELSE auth_throttle.locked_until END`,
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  return Number(row.failures);
}

/** A successful sign-in clears its account's count (not the IP's: one good password must not reset a spray). */
export async function clearFailures(db: Db, key: string): Promise<void> {
  await db.deleteFrom('auth_throttle').where('key', '=', key).execute();
}
