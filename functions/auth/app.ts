import { type Context, Hono } from 'hono';
import { hashToken, mailUserToken, revokeUserSessions, tokenSessionIsLive } from '../../shared/auth/accounts';
import { jsonOnly } from '../../shared/auth/json-only';
import { hashAccountPassword, isLegacyAccountHash, verifyAccountPasswords } from '../../shared/auth/password';
import { passwordWeakness } from '../../shared/auth/password-strength';
import type { AppEnv } from '../../shared/context/app-env';
import type { TenantUserTokenPurpose } from '../../shared/db/tables/auth';
import { clientIp } from '../../shared/http/client-ip';
import {
  ApiError,
  badRequest,
  Detail,
  notFound,
  unauthorized,
  validationError,
} from '../../shared/http/errors';
import { register } from '../../shared/http/route';
import {
  assertSameOrigin,
  clearSessionCookie,
  sessionCookie,
  setSessionCookie,
  wantsCookie,
  withCookie,
} from './cookie';
import {
  accountsByEmail,
  invitePreview,
  liveTokenUser,
  recordSignIns,
  setPassword,
  spendUserToken,
  whoIs,
} from './data';
import * as routes from './routes';
import { endSession, refreshSession, sessionOfRefreshToken, startSession } from './sessions';
import {
  clearAccountFailures,
  failureDelayMs,
  lockedSeconds,
  reserveSignIn,
  settleFailure,
  settleSuccess,
  throttleKeys,
} from './throttle';

/**
 * Dashboard sign-in (`/api/v1/auth`, the gate's `sign_in` surface: no credential, API keys 403).
 * Every sign-in failure is the same 401 at the same cost; invites and resets are one-time tokens
 * mailed through the services' mailer and stored hashed. docs/auth.md has the whole picture.
 */
export const app = new Hono<AppEnv>();
// credential-free POSTs: JSON only (415), so a foreign page cannot send them without a preflight
app.use('/api/v1/auth/*', jsonOnly);
// a caller that asks for the session cookie must be the console's own page (cookie.ts)
app.use('/api/v1/auth/*', async (c, next) => {
  if (wantsCookie(c)) assertSameOrigin(c);
  await next();
});

export const RESET_REQUESTED = 'If the address belongs to an account, a password reset link has been sent';
const INVALID_TOKEN: Record<TenantUserTokenPurpose, string> = {
  invite: Detail.invalidInvite,
  password_reset: Detail.invalidPasswordResetToken,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The password is checked against every active account of the address (in the named tenant, when
 * `tenant_id` is sent): one match signs in; several answer 409 with the tenants to choose from;
 * none is the one 401 (unknown email, wrong password, no password yet, disabled user, wrong
 * tenant) and the only outcome counted as a failure, so another tenant's account of the same
 * address never turns a right password into a refusal or a lock. Every address costs one PBKDF2
 * derivation whatever its number of accounts, none included (shared/auth/password.ts), so the
 * time of a failure does not tell in how many tenants an address works.
 */
register(app, routes.login, async (c) => {
  const body = c.req.valid('json');
  const { db } = c.get('services');
  const keys = throttleKeys(body.email, clientIp(c) ?? 'unknown');
  const tooMany = (seconds: number) =>
    new ApiError(429, Detail.tooManySignInAttempts, { 'Retry-After': String(seconds) });
  // a locked key is refused with one read, without writing
  const locked = await lockedSeconds(db, Object.values(keys));
  if (locked > 0) throw tooMany(locked);
  // counted before the password is checked, so a burst cannot check more than the budget
  const reserved = await reserveSignIn(db, keys);
  if ('retryAfter' in reserved) throw tooMany(reserved.retryAfter);
  const { reservation } = reserved;

  const accounts = await accountsByEmail(db, body.email, body.tenant_id);
  const matches = await matchingAccounts(body.email, body.password, accounts);
  // audited after the answer: a write per account would make the time tell how many there are
  const audit = (found: typeof accounts, outcome: Parameters<typeof recordSignIns>[2]) =>
    c.get('services').defer(() => recordSignIns(db, found, outcome, clientIp(c) ?? null));
  if (matches.length === 0) {
    audit(accounts, 'user.sign_in_failed');
    await settleFailure(db, reservation);
    await sleep(failureDelayMs(reservation.count));
    throw unauthorized(Detail.invalidLogin);
  }
  await settleSuccess(db, reservation);
  for (const m of matches)
    if (m.password_hash && isLegacyAccountHash(m.password_hash))
      await setPassword(db, m.id, await hashAccountPassword(m.email, body.password));
  const [user] = matches;
  if (matches.length > 1 || !user)
    return c.json(
      {
        detail: Detail.severalTenants,
        tenants: matches.map((m) => ({ id: m.tenant_id, name: m.tenant_name })),
      },
      409,
    );
  audit([user], 'user.signed_in');
  return c.json(withCookie(c, await startSession(c, user)));
});

/** The accounts whose password this is: one derivation for the address, however many accounts (none too). */
async function matchingAccounts<T extends { password_hash: string | null }>(
  email: string,
  password: string,
  accounts: T[],
): Promise<T[]> {
  const ok = await verifyAccountPasswords(
    email,
    password,
    accounts.map((a) => a.password_hash),
  );
  return accounts.filter((_, i) => ok[i]);
}

register(app, routes.refresh, async (c) => {
  return c.json(await refreshSession(c, c.req.valid('json').refresh_token));
});

/**
 * The console's refresh: the token comes from the session cookie (never from script) and its
 * successor goes back into it; the body carries the access token only. A missing or dead cookie
 * is cleared with the 401, so the browser stops sending it.
 */
register(app, routes.restoreSession, async (c) => {
  assertSameOrigin(c);
  const token = sessionCookie(c);
  const refused = () => {
    clearSessionCookie(c);
    return c.json({ detail: Detail.invalidRefreshToken }, 401);
  };
  if (!token) return refused();
  const pair = await refreshSession(c, token).catch((e: unknown) => {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  });
  if (!pair) return refused();
  setSessionCookie(c, pair.refresh_token);
  const { refresh_token: _inCookie, ...access } = pair;
  return c.json(access);
});

/**
 * The session of the Authorization token (its `sid`), of the refresh token in the body, or (for
 * the console, `X-Session-Cookie: 1`) of the session cookie ends; the cookie is cleared either way.
 */
register(app, routes.logout, async (c) => {
  const auth = c.get('auth');
  const cookie = wantsCookie(c) ? sessionCookie(c) : undefined;
  if (wantsCookie(c)) clearSessionCookie(c);
  const refreshToken = c.req.valid('json')?.refresh_token ?? cookie;
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

/**
 * Who the session is. On this sign-in path the gate takes a token without consulting its session
 * (so a logout of an ended one still answers 204); here it must be live, as everywhere else.
 */
register(app, routes.me, async (c) => {
  const auth = c.get('auth');
  if (auth.kind !== 'dashboard') throw unauthorized(Detail.missingCredentials);
  const { db, config } = c.get('services');
  if (!(await tokenSessionIsLive(db, config, auth))) throw unauthorized(Detail.invalidSession);
  const { user, tenant } = await whoIs(db, auth.userId, auth.tenantId);
  if (!tenant) throw notFound('Tenant');
  return c.json({
    user: { id: auth.userId, email: user?.email ?? null, name: user?.name ?? null, role: auth.role },
    tenant: { ...tenant, created_at: new Date(tenant.created_at).toISOString() },
  });
});

/**
 * Spends a one-time token for a new password and returns its user with the password's stored form
 * (one conditional update: two concurrent uses cannot both win). The password is judged first,
 * against the person's own address and name (`name`: the one the request sets, else theirs), so a
 * password refused as too easy to guess (422) leaves the token unspent for the next try.
 */
async function consumeUserToken(
  c: Context<AppEnv>,
  purpose: TenantUserTokenPurpose,
  body: { token: string; password: string; name?: string },
) {
  const { db, config } = c.get('services');
  const hash = await hashToken(config, body.token);
  const person = await liveTokenUser(db, hash, purpose);
  if (!person) throw badRequest(INVALID_TOKEN[purpose]);
  const weakness = await passwordWeakness(body.password, {
    email: person.email,
    name: body.name ?? person.name,
  });
  if (weakness) throw validationError([{ loc: ['body', 'password'], msg: weakness, type: 'value_error' }]);
  const passwordHash = await hashAccountPassword(person.email, body.password);
  const used = await spendUserToken(db, hash, purpose);
  if (!used) throw badRequest(INVALID_TOKEN[purpose]);
  return { ...used, passwordHash };
}

/** The invite a token stands for, so the accept page can say who invites whom; the token stays unspent. */
register(app, routes.invitePreview, async (c) => {
  const { db, config } = c.get('services');
  const found = await invitePreview(db, await hashToken(config, c.req.valid('json').token));
  if (!found) throw new ApiError(404, Detail.invitationNotFound);
  return c.json({
    tenant: { id: found.tenant_id, name: found.tenant_name },
    email: found.email,
    name: found.name,
    role: found.role,
    expires_at: new Date(found.expires_at).toISOString(),
  });
});

/** Sets the invited user's password (and name) and signs them in: the answer is a session pair. */
register(app, routes.acceptInvite, async (c) => {
  const body = c.req.valid('json');
  const used = await consumeUserToken(c, 'invite', body);
  const user = await setPassword(c.get('services').db, used.user_id, used.passwordHash, body.name);
  if (!user) throw badRequest(INVALID_TOKEN.invite);
  return c.json(withCookie(c, await startSession(c, user)));
});

/**
 * The same 202 whether or not an account exists; the mail goes out after the response. An
 * address in several tenants without `tenant_id` gets one mail per account.
 */
register(app, routes.requestPasswordReset, async (c) => {
  const body = c.req.valid('json');
  const { db, defer } = c.get('services');
  const accounts = await accountsByEmail(db, body.email, body.tenant_id);
  // issued after the answer: a known address must not answer later than an unknown one (its
  // token's writes would tell which addresses have accounts)
  defer(async () => {
    for (const user of accounts) await mailUserToken(c, user, 'password_reset');
  });
  return c.json({ detail: RESET_REQUESTED }, 202);
});

/** Sets the new password and ends every session of the user; the answer is a fresh session pair. */
register(app, routes.confirmPasswordReset, async (c) => {
  const body = c.req.valid('json');
  const used = await consumeUserToken(c, 'password_reset', body);
  const { db } = c.get('services');
  const user = await setPassword(db, used.user_id, used.passwordHash);
  if (!user) throw badRequest(INVALID_TOKEN.password_reset);
  await revokeUserSessions(db, user.id, 'password_reset');
  await clearAccountFailures(db, user.email);
  return c.json(withCookie(c, await startSession(c, user)));
});
