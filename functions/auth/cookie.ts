/**
 * The console's session cookie: the refresh token in an httpOnly cookie, so script on the page
 * never holds it and every tab of the browser shares one sign-in. Only a caller that asks for it
 * (`X-Session-Cookie: 1` on sign-in, accepting an invitation or a new password) gets one; API
 * clients keep the token pair in the body as before.
 *
 * A cookie is ambient authority, so the one route that spends it (`POST /api/v1/auth/session`) and
 * the logout that ends it take it only from a request a foreign page cannot make: the custom header
 * (no CORS answers on /api/v1/auth, so another origin cannot add it without a preflight that
 * fails), an `Origin` that is this server's own, and `Sec-Fetch-Site: same-origin` when the browser
 * sends it. SameSite=Strict keeps the cookie off cross-site requests in the first place, and its
 * path keeps it off every request but the sign-in ones.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { publicBase } from '../../shared/auth/accounts';
import type { AppEnv } from '../../shared/context/app-env';
import { forbidden } from '../../shared/http/errors';

export const SESSION_COOKIE = 'itsm_refresh';
export const COOKIE_PATH = '/api/v1/auth';
/** The header a caller sends to use the cookie (set it, spend it, clear it). */
export const COOKIE_HEADER = 'X-Session-Cookie';
export const CROSS_SITE_REFUSED =
  'The session cookie is taken only from a same-origin request with the X-Session-Cookie: 1 header';

const options = { path: COOKIE_PATH, httpOnly: true, secure: true, sameSite: 'Strict' } as const;

/** Whether the request asks for the cookie (header only; `cookieRequest` checks where it came from). */
export const wantsCookie = (c: Context<AppEnv>) => c.req.header(COOKIE_HEADER) === '1';

/** This server's own origins: the one the request reached, and the public one links start with. */
function ownOrigins(c: Context<AppEnv>): string[] {
  const origins = [new URL(c.req.url).origin];
  try {
    origins.push(new URL(publicBase(c.get('services').config)).origin);
  } catch {
    // an unparsable PUBLIC_BASE_URL is refused at start; nothing to add here
  }
  return origins;
}

/**
 * 403 unless the request is one the console itself sent (see above). Every request that asks for
 * the cookie meets it, a sign-in too: a foreign page must not plant its own session either.
 */
export function assertSameOrigin(c: Context<AppEnv>): void {
  const origin = c.req.header('origin');
  const site = c.req.header('sec-fetch-site');
  const fromHere = origin !== undefined && ownOrigins(c).includes(origin);
  if (!wantsCookie(c) || !fromHere || (site !== undefined && site !== 'same-origin'))
    throw forbidden(CROSS_SITE_REFUSED);
}

/** A session cookie (no Max-Age): shared by the browser's tabs, gone when the browser closes. */
export function setSessionCookie(c: Context<AppEnv>, refreshToken: string): void {
  setCookie(c, SESSION_COOKIE, refreshToken, options);
}

export const sessionCookie = (c: Context<AppEnv>): string | undefined => getCookie(c, SESSION_COOKIE);

export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, options);
}

/**
 * A new session's answer, unchanged (the body keeps its token pair), with the refresh token also
 * set in the cookie when the caller asked for it.
 */
export function withCookie<T extends { refresh_token: string }>(c: Context<AppEnv>, pair: T): T {
  if (wantsCookie(c)) setSessionCookie(c, pair.refresh_token);
  return pair;
}
