/**
 * Dashboard accounts, shared by the functions that touch them: auth (sign-in, invites, resets),
 * tenants (the first admin's invite) and directory (inviting colleagues; removing a user or
 * lowering a role ends their sessions). Every token here is random, handed out once, and stored
 * only as a keyed hash (HMAC-SHA256 with API_KEY_HASH_SECRET, like API keys).
 */
import type { Context } from 'hono';
import type { AppEnv } from '../context/app-env';
import { hmacSha256Hex, randomBase62 } from '../crypto';
import type { Db, Executor } from '../db/schema';
import type { TenantUserTokenPurpose } from '../db/tables/auth';
import type { AppConfig } from '../env';

/** Distinct prefixes, so a token is recognisable in a leak report and never taken for another kind. */
const TOKEN_PREFIX: Record<TenantUserTokenPurpose | 'refresh', string> = {
  refresh: 'itsm_rt_',
  invite: 'itsm_inv_',
  password_reset: 'itsm_pwr_',
};
export const TOKEN_TTL_SECONDS: Record<TenantUserTokenPurpose, number> = {
  invite: 7 * 24 * 3600,
  password_reset: 3600,
};
/** Where the console (functions/console) takes each token: `<base>/console/<page>?token=…` */
const CONSOLE_PAGE: Record<TenantUserTokenPurpose, string> = {
  invite: 'accept-invite',
  password_reset: 'reset-password',
};

export const newToken = (kind: TenantUserTokenPurpose | 'refresh') =>
  `${TOKEN_PREFIX[kind]}${randomBase62(43)}`;

/** The stored form of a refresh, invite or reset token (the domain tag keeps it apart from API-key hashes). */
export const hashToken = (config: AppConfig, token: string) =>
  hmacSha256Hex(config.API_KEY_HASH_SECRET, `dashboard-token:${token}`);

/** Ends every live session of a user: their refresh tokens stop working at once. */
export async function revokeUserSessions(db: Executor, userId: string, reason: string): Promise<void> {
  await db
    .updateTable('dashboard_sessions')
    .set({ revoked_at: new Date(), revoked_reason: reason })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * Whether a signed-in access token's session is still live: not ended (logout, a password reset,
 * a lowered role, the user removed), not past its absolute end, its user not disabled. Checked on every request that
 * presents such a token (shared/auth/gate.ts), so ending a session ends its access tokens at once
 * too, not when they expire.
 */
export async function sessionIsLive(
  db: Db,
  s: { sessionId: string; userId: string; tenantId: string },
): Promise<boolean> {
  const row = await db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('tenant_users as u', 'u.id', 's.user_id')
    .select('s.id')
    .where('s.id', '=', s.sessionId)
    .where('s.user_id', '=', s.userId)
    .where('s.tenant_id', '=', s.tenantId)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', new Date())
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The rule for a verified dashboard token: one this platform issued at sign-in (`sid`) must still
 * have its live session; one without `sid` (`npm run token`) or from an external identity provider
 * (DASHBOARD_JWKS_URL, whose `sid` names its own sessions) stands on its signature and expiry.
 */
export async function tokenSessionIsLive(
  db: Db,
  config: Pick<AppConfig, 'DASHBOARD_JWKS_URL'>,
  session: { sessionId?: string; userId: string; tenantId: string },
): Promise<boolean> {
  const { sessionId } = session;
  if (sessionId === undefined || config.DASHBOARD_JWKS_URL) return true;
  return sessionIsLive(db, { ...session, sessionId });
}

export interface IssuedUserToken {
  token: string;
  url: string;
  expires_at: string;
}

/** Where `npm start` listens by default: the base of links when PUBLIC_BASE_URL is unset outside production. */
export const DEFAULT_PUBLIC_BASE = 'http://127.0.0.1:8787';

/**
 * The base of every link mailed or returned (invite, password reset, magic link): configuration
 * only. A request's Host or X-Forwarded-Host is the caller's to choose, so a link built from it
 * would carry a victim's token to the caller's host. Production refuses to start without
 * PUBLIC_BASE_URL (scripts/startup-checks.ts); `npm start` sets it to its listening address.
 */
export function publicBase(config: Pick<AppConfig, 'PUBLIC_BASE_URL'>): string {
  return (config.PUBLIC_BASE_URL || DEFAULT_PUBLIC_BASE).replace(/\/+$/, '');
}

/**
 * A one-time invite or reset token for a user, stored hashed; earlier unused ones of that purpose
 * lapse. On `db`, so a keyed route can issue it in the transaction that commits its answer.
 */
export async function issueUserToken(
  db: Executor,
  config: AppConfig,
  user: { id: string; tenant_id: string },
  purpose: TenantUserTokenPurpose,
): Promise<IssuedUserToken> {
  const token = newToken(purpose);
  const expires = new Date(Date.now() + TOKEN_TTL_SECONDS[purpose] * 1000);
  await db
    .updateTable('tenant_user_tokens')
    .set({ used_at: new Date() })
    .where('user_id', '=', user.id)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
  await db
    .insertInto('tenant_user_tokens')
    .values({
      token_hash: await hashToken(config, token),
      purpose,
      tenant_id: user.tenant_id,
      user_id: user.id,
      expires_at: expires,
    })
    .execute();
  const url = `${publicBase(config)}/console/${CONSOLE_PAGE[purpose]}?token=${encodeURIComponent(token)}`;
  return { token, url, expires_at: expires.toISOString() };
}

/**
 * A tenant's name as mail shows it: in quotes, on one line, at most 80 characters. Names refuse line
 * breaks and control characters at the API (shared/http/names.ts); this also holds for a name
 * stored before that rule, so a name can never pass for a line of the platform's own text.
 */
const quoted = (name: string) => {
  const line = name.replace(/[\p{Cc}\p{Zl}\p{Zp}\u202a-\u202e\u2066-\u2069]+/gu, ' ').trim();
  return `"${line.length > 80 ? `${line.slice(0, 79)}…` : line}"`;
};

/** Fixed templates: the only free text in them is the quoted tenant name. */
const MAIL_TEXT: Record<
  TenantUserTokenPurpose,
  (tenantName: string, url: string, expires: string) => string
> = {
  invite: (tenant, url, expires) =>
    `You have been invited to the tenant ${quoted(tenant)} on the Support Platform.\n\nSet your password: ${url}\n\nThe link works once and expires ${expires}.`,
  password_reset: (tenant, url, expires) =>
    `A password reset was requested for your account in the tenant ${quoted(tenant)}.\n\nChoose a new password: ${url}\n\nThe link works once and expires ${expires}. If you did not ask for it, ignore this mail.`,
};
const MAIL_SUBJECT: Record<TenantUserTokenPurpose, (tenantName: string) => string> = {
  invite: (tenant) => `Your invitation to ${quoted(tenant)}`,
  password_reset: (tenant) => `Reset your password for ${quoted(tenant)}`,
};

/** Issues the token and mails its link after the response (the answer never waits on the mail API). */
export async function mailUserToken(
  c: Context<AppEnv>,
  user: { id: string; tenant_id: string; email: string },
  purpose: TenantUserTokenPurpose,
): Promise<IssuedUserToken> {
  const { db, config } = c.get('services');
  const issued = await issueUserToken(db, config, user, purpose);
  mailIssuedToken(c, user, purpose, issued);
  return issued;
}

/**
 * Mails the link of a token already issued, after the response: called once the token's
 * transaction has committed, so no mail carries a link that was rolled back.
 */
export function mailIssuedToken(
  c: Context<AppEnv>,
  user: { tenant_id: string; email: string },
  purpose: TenantUserTokenPurpose,
  issued: IssuedUserToken,
): void {
  const { db, mailer, defer } = c.get('services');
  defer(async () => {
    const tenant = await db
      .selectFrom('tenants')
      .select('name')
      .where('id', '=', user.tenant_id)
      .executeTakeFirst();
    const name = tenant?.name ?? user.tenant_id;
    await mailer.send({
      to: user.email,
      subject: MAIL_SUBJECT[purpose](name),
      text: MAIL_TEXT[purpose](name, issued.url, issued.expires_at),
      link: issued.url,
    });
  });
}

/**
 * Whether a response may carry a one-time token or a link holding one: in development only, for
 * local use. Elsewhere the mail is the only carrier, so the mailbox stays the proof: a token in a
 * response would be an account for whoever holds the response (an API key, a log, a proxy).
 */
export const tokensInResponses = (config: Pick<AppConfig, 'APP_ENV'>) => config.APP_ENV === 'development';

/** How the OpenAPI document describes such a field. */
export const DEVELOPMENT_ONLY =
  'Only with APP_ENV=development, for local use; elsewhere absent: the link is mailed to the invitee and never returned.';

/** The invite as API responses show it: its expiry; the token and its link in development only. */
export const inviteView = (config: Pick<AppConfig, 'APP_ENV'>, issued: IssuedUserToken) => ({
  ...(tokensInResponses(config) ? { token: issued.token, accept_url: issued.url } : {}),
  expires_at: issued.expires_at,
});
