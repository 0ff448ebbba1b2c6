// The dashboard session in the browser. The access token lives only in this module's memory; the
// refresh token only in an httpOnly, SameSite=Strict cookie on /api/v1/auth that the server sets
// when a sign-in asks for it (`X-Session-Cookie: 1`), so no script on the page can read it and
// every tab of the browser shares one sign-in: a new tab or a reload renews its access token from
// the cookie (POST /api/v1/auth/session). Signing out clears the cookie server-side and tells the
// other tabs (BroadcastChannel), which sign out too. The cookie is ambient authority: the server
// takes it only with that header and this origin's Origin (functions/auth/cookie.ts); every other
// call sends `Authorization: Bearer`, which a cross-site page cannot forge.

import type { components } from '../../../clients/typescript/index';
import { describeError } from './errors';

/** Where an earlier console kept the refresh token: removed on start, it is no longer used. */
const LEGACY_REFRESH_KEY = 'console.refresh_token';
const COOKIE_HEADER = { 'X-Session-Cookie': '1' };
/** Tabs tell each other of a sign-in and a sign-out. */
const CHANNEL = 'console.session';
/** refresh this long before the access token expires */
const REFRESH_MARGIN_MS = 60_000;

export interface Identity {
  userId: string;
  tenantId: string;
  role: string;
}

export type TokenPair = components['schemas']['TokenPair'];
type AccessToken = components['schemas']['SessionToken'];

let accessToken: string | null = null;
let identity: Identity | null = null;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let refreshing: Promise<boolean> | null = null;
const listeners = new Set<(who: Identity | null) => void>();

export const currentIdentity = () => identity;

/** Called with the identity on sign-in and with `null` when the session ends. */
export function onSessionChange(listener: (who: Identity | null) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function decodeClaims(jwt: string): Identity | null {
  try {
    const part = jwt.split('.')[1] ?? '';
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const claims = JSON.parse(json) as { sub?: string; tenant_id?: string; role?: string };
    if (!claims.sub || !claims.tenant_id || !claims.role) return null;
    return { userId: claims.sub, tenantId: claims.tenant_id, role: claims.role };
  } catch {
    return null;
  }
}

const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;
sessionStorage.removeItem(LEGACY_REFRESH_KEY);

/** An access token this tab holds (the refresh token is the cookie's). */
function hold(token: AccessToken) {
  accessToken = token.access_token;
  identity = decodeClaims(token.access_token);
  clearTimeout(refreshTimer);
  const due = Math.max(5_000, token.expires_in * 1000 - REFRESH_MARGIN_MS);
  refreshTimer = setTimeout(() => void refreshSession(), due);
  for (const l of listeners) l(identity);
}

/**
 * Starts the session a sign-in, an accepted invitation or a new password answered with (its
 * refresh token is already in the cookie; the one in the body is not kept), and tells the other
 * tabs, which pick it up from the cookie.
 */
export function adopt(pair: TokenPair) {
  hold(pair);
  channel?.postMessage('signed-in');
}

function drop() {
  accessToken = null;
  identity = null;
  clearTimeout(refreshTimer);
  for (const l of listeners) l(null);
}

/** The detail of a failed response (the body read as JSON when it is JSON). */
export async function detailOf(res: Response): Promise<string> {
  const body = await res.json().catch(() => undefined);
  return describeError(body, res.status);
}

/** A credential-free auth POST; it asks for the session cookie whenever the answer is a session. */
async function postJson(path: string, body: unknown): Promise<Response> {
  return fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...COOKIE_HEADER },
    body: JSON.stringify(body),
  });
}

export interface TenantChoice {
  id: string;
  name: string;
}

/**
 * The password is right for accounts in several tenants (the API's 409): sign in again naming one.
 * The message is the API's detail; `tenants` are the ones to choose from.
 */
export class ChooseTenant extends Error {
  constructor(
    message: string,
    readonly tenants: TenantChoice[],
  ) {
    super(message);
  }
}

/** Throws ChooseTenant for the API's 409, an Error with the API's detail on any other failure. */
export async function signIn(email: string, password: string, tenantId?: string): Promise<void> {
  const res = await postJson('/api/v1/auth/login', {
    email,
    password,
    ...(tenantId ? { tenant_id: tenantId } : {}),
  });
  if (res.status === 409) {
    const body = (await res.json().catch(() => ({}))) as { detail?: unknown; tenants?: TenantChoice[] };
    const tenants = Array.isArray(body.tenants) ? body.tenants : [];
    if (tenants.length > 0) throw new ChooseTenant(describeError(body, 409), tenants);
    throw new Error(describeError(body, 409));
  }
  if (!res.ok) throw new Error(await detailOf(res));
  adopt((await res.json()) as TokenPair);
}

/**
 * POSTs a signed-out form whose success is a session (accept an invitation, set a new password):
 * the pair, for the caller to `adopt` once it has left the page; the API's detail on failure.
 */
export async function requestSession(path: string, body: unknown): Promise<TokenPair> {
  const res = await postJson(path, body);
  if (!res.ok) throw new Error(await detailOf(res));
  return (await res.json()) as TokenPair;
}

/** POSTs a signed-out form; throws an Error with the API's detail on failure. */
export async function postSignedOut(path: string, body: unknown): Promise<void> {
  const res = await postJson(path, body);
  if (!res.ok) throw new Error(await detailOf(res));
}

/**
 * Renews the access token from the session cookie. One renewal at a time across every tab of the
 * browser (a Web Lock): the cookie's token is single-use, and two tabs spending it at once would
 * be a reuse, which ends the session; the second tab waits and sends the successor.
 */
export function refreshSession(): Promise<boolean> {
  const renew = async () => {
    try {
      const res = await postJson('/api/v1/auth/session', {});
      if (!res.ok) {
        drop();
        return false;
      }
      hold((await res.json()) as AccessToken);
      return true;
    } catch {
      // network error: the cookie is kept for the next try, but the call failed
      return false;
    }
  };
  refreshing ??= (async () =>
    navigator.locks ? await navigator.locks.request(CHANNEL, renew) : renew())().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

let leaving = false;
/** true while the user signs out on purpose (not a session that ended on its own) */
export const signingOut = () => leaving;

/** Ends the session (the server clears the cookie) and signs out every other tab too. */
export async function signOut(): Promise<void> {
  const token = accessToken;
  leaveQuietly();
  channel?.postMessage('signed-out');
  await fetch('/api/v1/auth/logout', {
    method: 'POST',
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      'Content-Type': 'application/json',
      ...COOKIE_HEADER,
    },
    body: '{}',
  }).catch(() => undefined);
}

/** Signed out on purpose, here or in another tab: the sign-in page, not "your session ended". */
function leaveQuietly() {
  leaving = true;
  drop();
  leaving = false;
}

channel?.addEventListener('message', (e: MessageEvent) => {
  if (e.data === 'signed-out' && identity) leaveQuietly();
  // another tab signed in: this one joins the session through the cookie
  if (e.data === 'signed-in' && !accessToken) void refreshSession();
});

/**
 * fetch with the session: the bearer header, and on a 401 one refresh and one retry, so a page
 * whose access token expired (a laptop asleep past the refresh timer) keeps its unsaved input.
 */
export async function sessionFetch(request: Request): Promise<Response> {
  if (!accessToken) await refreshSession();
  const retry = request.clone();
  const send = (req: Request) => {
    if (accessToken) req.headers.set('Authorization', `Bearer ${accessToken}`);
    return fetch(req);
  };
  const res = await send(request);
  if (res.status !== 401) return res;
  if (!(await refreshSession())) return res;
  return send(retry);
}
