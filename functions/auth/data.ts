import { sql } from 'kysely';
import type { Db } from '../../shared/db/schema';
import type { TenantUserTokenPurpose } from '../../shared/db/tables/auth';
import { newId } from '../../shared/ids';

/**
 * Every query of the sign-in function: accounts and their one-time tokens (app.ts), sessions and
 * refresh tokens (sessions.ts), failed-sign-in counts (throttle.ts). Tokens arrive here hashed.
 */

// --- accounts

/**
 * The active accounts with this address (in one tenant when named), at most 20, by tenant, with
 * their tenant's name (a sign-in that matches several offers the choice). Only those that signed
 * up and are not disabled: a pending invitation is no membership yet, and a disabled account
 * must not make another tenant's sign-in ambiguous.
 */
export function accountsByEmail(db: Db, email: string, tenantId: string | undefined) {
  let q = db
    .selectFrom('tenant_users as u')
    .innerJoin('tenants as t', 't.id', 'u.tenant_id')
    .select([
      'u.id',
      'u.tenant_id',
      't.name as tenant_name',
      'u.email',
      'u.role',
      'u.password_hash',
      'u.disabled_at',
    ])
    .where(sql`lower(u.email)`, '=', email)
    .where('u.password_hash', 'is not', null)
    .where('u.disabled_at', 'is', null);
  if (tenantId !== undefined) q = q.where('u.tenant_id', '=', tenantId);
  return q.orderBy('u.tenant_id').limit(20).execute();
}

/** The session's user (absent for a token minted without an account) and tenant, for GET /me. */
export async function whoIs(db: Db, userId: string, tenantId: string) {
  const [user, tenant] = await Promise.all([
    db
      .selectFrom('tenant_users')
      .select(['email', 'name'])
      .where('id', '=', userId)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst(),
    db
      .selectFrom('tenants')
      .select(['id', 'name', 'plan', 'environment', 'created_at'])
      .where('id', '=', tenantId)
      .executeTakeFirst(),
  ]);
  return { user, tenant };
}

/** What a live, unspent invite offers (read without spending it), for the console's accept page. */
export function invitePreview(db: Db, tokenHash: string) {
  return db
    .selectFrom('tenant_user_tokens as t')
    .innerJoin('tenant_users as u', 'u.id', 't.user_id')
    .innerJoin('tenants as n', 'n.id', 't.tenant_id')
    .select(['n.id as tenant_id', 'n.name as tenant_name', 'u.email', 'u.name', 'u.role', 't.expires_at'])
    .where('t.token_hash', '=', tokenHash)
    .where('t.purpose', '=', 'invite')
    .where('t.used_at', 'is', null)
    .where('t.expires_at', '>', new Date())
    .where('u.password_hash', 'is', null)
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
}

/** The user a live, unspent token of `purpose` is for (without spending it): whose password is being set. */
export function liveTokenUser(db: Db, tokenHash: string, purpose: TenantUserTokenPurpose) {
  return db
    .selectFrom('tenant_user_tokens as t')
    .innerJoin('tenant_users as u', 'u.id', 't.user_id')
    .select(['u.id', 'u.email', 'u.name'])
    .where('t.token_hash', '=', tokenHash)
    .where('t.purpose', '=', purpose)
    .where('t.used_at', 'is', null)
    .where('t.expires_at', '>', new Date())
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
}

/** Spends a live one-time token (one conditional update: of two concurrent uses, one wins). */
export function spendUserToken(db: Db, tokenHash: string, purpose: TenantUserTokenPurpose) {
  return db
    .updateTable('tenant_user_tokens')
    .set({ used_at: new Date() })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', new Date())
    .returning(['user_id', 'tenant_id'])
    .executeTakeFirst();
}

/** Sets an enabled user's password (and name, when given); undefined when the user is disabled or gone. */
export function setPassword(db: Db, userId: string, passwordHash: string, name?: string) {
  return db
    .updateTable('tenant_users')
    .set({
      password_hash: passwordHash,
      ...(name !== undefined ? { name } : {}),
      updated_at: new Date(),
    })
    .where('id', '=', userId)
    .where('disabled_at', 'is', null)
    .returning(['id', 'tenant_id', 'role', 'email'])
    .executeTakeFirst();
}

// --- sessions and refresh tokens

export async function insertSession(
  db: Db,
  session: { id: string; tenant_id: string; user_id: string; expires_at: Date },
) {
  await db.insertInto('dashboard_sessions').values(session).execute();
}

export async function revokeSession(db: Db, sessionId: string, reason: string) {
  await db
    .updateTable('dashboard_sessions')
    .set({ revoked_at: new Date(), revoked_reason: reason })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** The live session's user (enabled), with the session's end; undefined when revoked or expired. */
export function liveSessionUser(db: Db, sessionId: string, now: Date) {
  return db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('tenant_users as u', 'u.id', 's.user_id')
    .select(['u.id', 'u.tenant_id', 'u.role', 's.expires_at'])
    .where('s.id', '=', sessionId)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
}

export async function insertRefreshToken(
  db: Db,
  token: { token_hash: string; session_id: string; expires_at: Date },
) {
  await db.insertInto('dashboard_refresh_tokens').values(token).execute();
}

/** A refresh token, spent or not. */
export function findRefreshToken(db: Db, tokenHash: string) {
  return db
    .selectFrom('dashboard_refresh_tokens')
    .select(['session_id', 'used_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Spends a live refresh token (one conditional update: of two concurrent exchanges, one wins). */
export function spendRefreshToken(db: Db, tokenHash: string, now: Date) {
  return db
    .updateTable('dashboard_refresh_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('session_id')
    .executeTakeFirst();
}

// --- failed sign-ins (the rules: throttle.ts)

/** The locks among `keys` that have not ended. */
export function liveLocks(db: Db, keys: string[]) {
  return db
    .selectFrom('auth_throttle')
    .select('locked_until')
    .where('key', 'in', keys)
    .where('locked_until', '>', new Date())
    .execute();
}

/**
 * Reserves one attempt against `key` before its password is checked, in one statement (of any
 * number of concurrent attempts each gets its own count): a new window when the last began before
 * `windowStart`. Returns the count with this attempt, the key's lock and its window's start.
 */
export async function reserveAttempt(db: Db, key: string, rule: { now: Date; windowStart: Date }) {
  const { now, windowStart } = rule;
  const fresh = sql<boolean>`auth_throttle.window_started_at < ${windowStart}`;
  const row = await db
    .insertInto('auth_throttle')
    .values({ key, failures: 1, window_started_at: now, locked_until: null })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        failures: sql`CASE WHEN ${fresh} THEN 1 ELSE auth_throttle.failures + 1 END`,
        window_started_at: sql`CASE WHEN ${fresh} THEN ${now} ELSE auth_throttle.window_started_at END`,
      }),
    )
    .returning(['failures', 'locked_until', 'window_started_at'])
    .executeTakeFirstOrThrow();
  return {
    count: Number(row.failures),
    lockedUntil: row.locked_until === null ? null : new Date(row.locked_until as Date),
    windowStartedAt: new Date(row.window_started_at as Date),
  };
}

/** Gives back one reserved attempt (a refused or successful one: it is no failure). */
export async function releaseAttempt(db: Db, key: string) {
  await db
    .updateTable('auth_throttle')
    .set({ failures: sql`greatest(auth_throttle.failures - 1, 0)` })
    .where('key', '=', key)
    .execute();
}

/** Locks `key` until `lockEnd` once its count has reached `maxFailures`. */
export async function lockWhenSpent(db: Db, key: string, rule: { lockEnd: Date; maxFailures: number }) {
  await db
    .updateTable('auth_throttle')
    .set({ locked_until: rule.lockEnd })
    .where('key', '=', key)
    .where('failures', '>=', rule.maxFailures)
    .execute();
}

export async function deleteFailures(db: Db, key: string) {
  await db.deleteFrom('auth_throttle').where('key', '=', key).execute();
}

/** Deletes every count whose key starts with `prefix` (LIKE with the prefix's own wildcards escaped). */
export async function deleteFailuresByPrefix(db: Db, prefix: string) {
  const pattern = `${prefix.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  await db.deleteFrom('auth_throttle').where('key', 'like', pattern).execute();
}

/**
 * Audit rows of sign-ins, one per account the attempt was for: who (the user on success,
 * `anonymous` on a failure, whose caller proved nothing), from where, and the address tried.
 * Never the password.
 */
export async function recordSignIns(
  db: Db,
  accounts: { id: string; tenant_id: string; email: string }[],
  outcome: 'user.signed_in' | 'user.sign_in_failed',
  sourceIp: string | null,
): Promise<void> {
  if (accounts.length === 0) return;
  await db
    .insertInto('audit_log')
    .values(
      accounts.map((a) => ({
        id: newId('audit'),
        tenant_id: a.tenant_id,
        actor: outcome === 'user.signed_in' ? `user:${a.id}` : 'anonymous',
        action: outcome,
        target_type: 'user',
        target_id: a.id,
        source_ip: sourceIp,
        metadata: JSON.stringify({ email: a.email }),
      })),
    )
    .execute();
}
