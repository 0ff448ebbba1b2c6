/**
 * Sign-in sessions: a row per sign-in, a short-lived dashboard JWT (the `sid` claim names the
 * session) and a single-use refresh token that rotates inside the session. Presenting a spent
 * refresh token again revokes the whole session (OAuth 2.0 Security BCP, refresh token rotation
 * with reuse detection): whoever holds the copy, attacker or user, must sign in again.
 */
import type { Context } from 'hono';
import { hashToken, newToken } from '../../shared/auth/accounts';
import { signDashboardToken } from '../../shared/auth/jwt';
import type { AppEnv } from '../../shared/context/app-env';
import { Detail, unauthorized } from '../../shared/http/errors';
import { newId } from '../../shared/ids';
import {
  findRefreshToken,
  insertRefreshToken,
  insertSession,
  liveSessionUser,
  revokeSession,
  spendRefreshToken,
} from './data';

/** Access tokens are short (the spec allows up to 3600 s): a revoked session lapses within this. */
export const ACCESS_TOKEN_SECONDS = 900;
/** A refresh token unused this long expires (sign in again after two weeks away). */
export const REFRESH_TOKEN_SECONDS = 14 * 24 * 3600;
/** No session outlives this, however often it is refreshed. */
export const SESSION_MAX_SECONDS = 30 * 24 * 3600;

export interface SessionUser {
  id: string;
  tenant_id: string;
  role: 'agent' | 'tenant_admin';
}

/** A new access token and refresh token for a live session. */
async function issuePair(c: Context<AppEnv>, sessionId: string, user: SessionUser, sessionEnds: Date) {
  const { db, config } = c.get('services');
  const refresh_token = newToken('refresh');
  const refreshEnds = Math.min(Date.now() + REFRESH_TOKEN_SECONDS * 1000, sessionEnds.getTime());
  await insertRefreshToken(db, {
    token_hash: await hashToken(config, refresh_token),
    session_id: sessionId,
    expires_at: new Date(refreshEnds),
  });
  const access_token = await signDashboardToken(
    config.DASHBOARD_JWT_SECRET,
    { sub: user.id, tenant_id: user.tenant_id, role: user.role, sid: sessionId },
    ACCESS_TOKEN_SECONDS,
  );
  return { access_token, token_type: 'Bearer' as const, expires_in: ACCESS_TOKEN_SECONDS, refresh_token };
}

export async function startSession(c: Context<AppEnv>, user: SessionUser) {
  const id = newId('session');
  const expires = new Date(Date.now() + SESSION_MAX_SECONDS * 1000);
  await insertSession(c.get('services').db, {
    id,
    tenant_id: user.tenant_id,
    user_id: user.id,
    expires_at: expires,
  });
  return issuePair(c, id, user, expires);
}

export async function endSession(c: Context<AppEnv>, sessionId: string, reason: string): Promise<void> {
  await revokeSession(c.get('services').db, sessionId, reason);
}

/** The session a refresh token (spent or not) belongs to, for logout. */
export async function sessionOfRefreshToken(c: Context<AppEnv>, token: string): Promise<string | null> {
  const { db, config } = c.get('services');
  const row = await findRefreshToken(db, await hashToken(config, token));
  return row?.session_id ?? null;
}

/**
 * Exchanges a refresh token for a new pair. The token is spent by one conditional update, so of
 * two concurrent exchanges exactly one wins; the loser is a reuse and ends the session. The role
 * in the new access token is the user's current one.
 */
export async function refreshSession(c: Context<AppEnv>, token: string) {
  const { db, config } = c.get('services');
  const hash = await hashToken(config, token);
  const now = new Date();
  const spent = await spendRefreshToken(db, hash, now);
  if (!spent) {
    const known = await findRefreshToken(db, hash);
    if (known?.used_at) await endSession(c, known.session_id, 'refresh_token_reuse');
    throw unauthorized(Detail.invalidRefreshToken);
  }
  const live = await liveSessionUser(db, spent.session_id, now);
  if (!live) throw unauthorized(Detail.invalidRefreshToken);
  return issuePair(c, spent.session_id, live, new Date(live.expires_at));
}
