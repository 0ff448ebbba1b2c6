// The dashboard session in the browser. The access token lives only in this module's memory; the
// refresh token in sessionStorage, so a reload keeps the session in this tab while another tab (or
// a closed and reopened one) signs in again. sessionStorage is readable by script running on the
// page: the console's Content-Security-Policy (no inline or foreign script, functions/console/app.ts)
// is what keeps injected script out, and refresh tokens are single-use with reuse detection on the
// server, so a stolen spent token ends the whole session. No cookie carries authority: every call
// sends `Authorization: Bearer`, which a cross-site page cannot forge (CSRF-safe by construction).

import type { components } from '../../../clients/typescript/index';
import { describeError } from './errors';

const REFRESH_KEY = 'console.refresh_token';
/** refresh this long before the access token expires */
const REFRESH_MARGIN_MS = 60_000;

export interface Identity {
  userId: string;
  tenantId: string;
  role: string;
}

export type TokenPair = components['schemas']['TokenPair'];

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

/** Starts the session a sign-in, an accepted invitation or a new password answered with. */
export function adopt(pair: TokenPair) {
  accessToken = pair.access_token;
  identity = decodeClaims(pair.access_token);
  sessionStorage.setItem(REFRESH_KEY, pair.refresh_token);
  clearTimeout(refreshTimer);
  const due = Math.max(5_000, pair.expires_in * 1000 - REFRESH_MARGIN_MS);
  refreshTimer = setTimeout(() => void refreshSession(), due);
  for (const l of listeners) l(identity);
}

function drop() {
  accessToken = null;
  identity = null;
  clearTimeout(refreshTimer);
  sessionStorage.removeItem(REFRESH_KEY);
  for (const l of listeners) l(null);
}

/** The detail of a failed response (the body read as JSON when it is JSON). */
export async function detailOf(res: Response): Promise<string> {
  const body = await res.json().catch(() => undefined);
  return describeError(body, res.status);
}

async function postJson(path: string, body: unknown): Promise<Response> {
  return fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
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
 * Exchanges the refresh token for a new pair; one exchange at a time (a second caller awaits the
 * first: the token is single-use, and spending it twice would end the session).
 */
export function refreshSession(): Promise<boolean> {
  refreshing ??= (async () => {
    const token = sessionStorage.getItem(REFRESH_KEY);
    if (!token) return false;
    try {
      const res = await postJson('/api/v1/auth/refresh', { refresh_token: token });
      if (!res.ok) {
        drop();
        return false;
      }
      adopt((await res.json()) as TokenPair);
      return true;
    } catch {
      // network error: keep the refresh token for the next try, but say the call failed
      return false;
    }
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

let leaving = false;
/** true while the user signs out on purpose (not a session that ended on its own) */
export const signingOut = () => leaving;

export async function signOut(): Promise<void> {
  const token = accessToken;
  const refreshToken = sessionStorage.getItem(REFRESH_KEY);
  leaving = true;
  drop();
  leaving = false;
  if (token)
    await fetch('/api/v1/auth/logout', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(refreshToken ? { refresh_token: refreshToken } : {}),
    }).catch(() => undefined);
}

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
