import { type Context, Hono } from 'hono';
import { sql } from 'kysely';
import { hashToken, mailUserToken, revokeUserSessions } from '../../shared/auth/accounts';
import { hashPassword, verifyPassword } from '../../shared/auth/password';
import type { AppEnv } from '../../shared/context/app-env';
import type { Db } from '../../shared/db/schema';
import type { TenantUserTokenPurpose } from '../../shared/db/tables/auth';
import { clientIp } from '../../shared/http/client-ip';
import { ApiError, badRequest, Detail, unauthorized } from '../../shared/http/errors';
import { validate } from '../../shared/http/validation';
import {
  AcceptInviteBody,
  LoginBody,
  LogoutBody,
  PasswordResetBody,
  PasswordResetConfirmBody,
  RefreshBody,
} from './schemas';
import { endSession, refreshSession, sessionOfRefreshToken, startSession } from './sessions';
import {
  clearFailures,
  failureDelayMs,
  lockedSeconds,
  recordFailure,
  type ThrottleKind,
  throttleKey,
} from './throttle';

/**
 * Dashboard sign-in (`/api/v1/auth`, the gate's `sign_in` surface: no credential, API keys 403).
 * Every sign-in failure is the same 401 at the same cost; invites and resets are one-time tokens
 * mailed through the services' mailer and stored hashed. docs/auth.md has the whole picture.
 */
export const app = new Hono<AppEnv>();

export const INVALID_LOGIN = 'Invalid email or password';
export const TOO_MANY_ATTEMPTS = 'Too many failed sign-in attempts; try again later';
export const RESET_REQUESTED = 'If the address belongs to an account, a password reset link has been sent';
const INVALID_TOKEN: Record<TenantUserTokenPurpose, string> = {
  invite: 'Invalid or expired invite',
  password_reset: 'Invalid or expired password reset token',
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Accounts with this address (in one tenant when named). Two or more without a tenant: ambiguous. */
const accountsByEmail = (db: Db, email: string, tenantId: string | undefined) => {
  let q = db
    .selectFrom('tenant_users')
    .select(['id', 'tenant_id', 'email', 'role', 'password_hash', 'disabled_at'])
    .where(sql`lower(email)`, '=', email);
  if (tenantId !== undefined) q = q.where('tenant_id', '=', tenantId);
  return q.orderBy('tenant_id').limit(20).execute();
};

/**
 * Unknown email, wrong password, no password yet, disabled user, wrong tenant, an address in
 * several tenants without `tenant_id`: one 401, and one PBKDF2 derivation each (the dummy hash).
 */
app.post('/api/v1/auth/login', validate('json', LoginBody), async (c) => {
  const body = c.req.valid('json');
  const { db } = c.get('services');
  const accountKey = throttleKey('account', body.email);
  const keys: [ThrottleKind, string][] = [
    ['account', accountKey],
    ['ip', throttleKey('ip', clientIp(c) ?? 'unknown')],
  ];
  const locked = await lockedSeconds(
    db,
    keys.map(([, key]) => key),
  );
  if (locked > 0) throw new ApiError(429, TOO_MANY_ATTEMPTS, { 'Retry-After': String(locked) });

  const accounts = await accountsByEmail(db, body.email, body.tenant_id);
  const user = accounts.length === 1 ? accounts[0] : undefined;
  const passwordOk = await verifyPassword(body.password, user?.password_hash ?? null);
  if (!user || !passwordOk || user.disabled_at) {
    const counts = await Promise.all(keys.map(([kind, key]) => recordFailure(db, kind, key)));
    await sleep(failureDelayMs(Math.max(...counts)));
    throw unauthorized(INVALID_LOGIN);
  }
  await clearFailures(db, accountKey);
  return c.json(await startSession(c, user));
});

app.post('/api/v1/auth/refresh', validate('json', RefreshBody), async (c) => {
  return c.json(await refreshSession(c, c.req.valid('json').refresh_token));
});

/** The session of the Authorization token (its `sid`) or of the refresh token in the body ends. */
app.post('/api/v1/auth/logout', validate('json', LogoutBody), async (c) => {
  const auth = c.get('auth');
  const refreshToken = c.req.valid('json')?.refresh_token;
  const sessionId =
    auth.kind === 'dashboard' && auth.sessionId
      ? auth.sessionId
      : refreshToken
        ? await sessionOfRefreshToken(c, refreshToken)
        : undefined;
  if (sessionId === undefined && auth.kind !== 'dashboard') throw unauthorized(Detail.missingCredentials);
  // an unknown refresh token or a minted token without a session: nothing to end, same answer
  if (sessionId) await endSession(c, sessionId, 'logout');
  return c.body(null, 204);
});

/** Spends a one-time token (one conditional update: two concurrent uses cannot both win). */
async function consumeUserToken(c: Context<AppEnv>, purpose: TenantUserTokenPurpose, token: string) {
  const { db, config } = c.get('services');
  const used = await db
    .updateTable('tenant_user_tokens')
    .set({ used_at: new Date() })
    .where('token_hash', '=', await hashToken(config, token))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', new Date())
    .returning(['user_id', 'tenant_id'])
    .executeTakeFirst();
  if (!used) throw badRequest(INVALID_TOKEN[purpose]);
  return used;
}

/** Sets the invited user's password (and name) and signs them in: the answer is a session pair. */
app.post('/api/v1/auth/accept-invite', validate('json', AcceptInviteBody), async (c) => {
  const body = c.req.valid('json');
  const used = await consumeUserToken(c, 'invite', body.token);
  const user = await c
    .get('services')
    .db.updateTable('tenant_users')
    .set({
      password_hash: await hashPassword(body.password),
      ...(body.name !== undefined ? { name: body.name } : {}),
      updated_at: new Date(),
    })
    .where('id', '=', used.user_id)
    .where('disabled_at', 'is', null)
    .returning(['id', 'tenant_id', 'role'])
    .executeTakeFirst();
  if (!user) throw badRequest(INVALID_TOKEN.invite);
  return c.json(await startSession(c, user));
});

/**
 * The same 202 whether or not an account exists; the mail goes out after the response. An
 * address in several tenants without `tenant_id` gets one mail per account.
 */
app.post('/api/v1/auth/password-reset', validate('json', PasswordResetBody), async (c) => {
  const body = c.req.valid('json');
  const accounts = await accountsByEmail(c.get('services').db, body.email, body.tenant_id);
  for (const user of accounts) if (!user.disabled_at) await mailUserToken(c, user, 'password_reset');
  return c.json({ detail: RESET_REQUESTED }, 202);
});

/** Sets the new password and ends every session of the user; the answer is a fresh session pair. */
app.post('/api/v1/auth/password-reset/confirm', validate('json', PasswordResetConfirmBody), async (c) => {
  const body = c.req.valid('json');
  const used = await consumeUserToken(c, 'password_reset', body.token);
  const { db } = c.get('services');
  const user = await db
    .updateTable('tenant_users')
    .set({ password_hash: await hashPassword(body.password), updated_at: new Date() })
    .where('id', '=', used.user_id)
    .where('disabled_at', 'is', null)
    .returning(['id', 'tenant_id', 'role', 'email'])
    .executeTakeFirst();
  if (!user) throw badRequest(INVALID_TOKEN.password_reset);
  await revokeUserSessions(db, user.id, 'password_reset');
  await clearFailures(db, throttleKey('account', user.email.toLowerCase()));
  return c.json(await startSession(c, user));
});
