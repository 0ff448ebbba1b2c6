import type { Context, MiddlewareHandler, Next } from 'hono';
import type { AppEnv } from '../context/app-env';
import { timingSafeEqual } from '../crypto';
import { Detail, forbidden, unauthorized } from '../http/errors';
import { jsonAnswer } from '../http/response-headers';
import { andThen } from '../sync-first';
import { publicRefusal, type Surface, scopeRefusal, surfaceOf } from './access';
import { tokenSessionIsLive } from './accounts';
import type { Credential } from './credential';
import { verifyDashboardToken, verifyEndUserToken } from './jwt';
import { shouldTouch, touchLastUsed, type VerifiedKey, verifyApiKey } from './key-verify';

/** What a middleware's promise resolves to (a response, or nothing once `next()` has run). */
type Answer = Awaited<ReturnType<MiddlewareHandler<AppEnv>>>;

type Presented = { type: 'api_key'; token: string } | { type: 'bearer'; token: string; jwtShaped: boolean };

const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/** X-API-Key (preferred) or `Authorization: Bearer <token>`; `null` when neither is usable. */
export function readPresentedCredential(headers: Headers): Presented | null {
  const apiKey = headers.get('x-api-key')?.trim();
  if (apiKey) return { type: 'api_key', token: apiKey };
  const authorization = headers.get('authorization');
  const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  if (!match?.[1]) return null;
  return { type: 'bearer', token: match[1], jwtShaped: JWT_SHAPE.test(match[1]) };
}

/** A Bearer token that is not a JWT is taken as an API key (so an altered key still answers `Invalid API key`). */
const asApiKey = (p: Presented): string | null =>
  p.type === 'api_key' ? p.token : p.jwtShaped ? null : p.token;

/**
 * The presented key, verified with the request's services. A cached key is answered without a
 * promise (see verifyApiKey); await the result either way.
 */
export function authenticateKey(c: Context<AppEnv>, token: string) {
  const services = c.get('services');
  return verifyApiKey(
    { db: services.db, hashSecret: services.config.API_KEY_HASH_SECRET, cache: services.keyCache },
    token,
  );
}

/**
 * A dashboard session token, held to its session (tokenSessionIsLive): once a sign-in session ends
 * (logout, password reset, lowered role, user removed) its tokens are refused at once rather than
 * when they expire, up to 15 minutes later.
 */
async function dashboardSession(c: Context<AppEnv>, token: string): Promise<Credential> {
  const { config, db } = c.get('services');
  const session = await verifyDashboardToken(token, {
    secret: config.DASHBOARD_JWT_SECRET,
    jwksUrl: config.DASHBOARD_JWKS_URL,
  });
  if (!session || !(await tokenSessionIsLive(db, config, session))) throw unauthorized(Detail.invalidSession);
  return { kind: 'dashboard', ...session };
}

/**
 * The one gate every function runs before its routes: decides the surface of the path, checks
 * the credential it takes, and for API keys enforces the scope table. Refusals that need no key
 * record (missing credential, malformed or mis-checksummed key) cost no I/O; a warm key costs none
 * in the embedded runtime and one indexed query on the edge.
 *
 * Not an async function: a warm API key is decided without a promise (the hot path of every
 * integrator call); the branches that must wait (key lookups, JWTs) return theirs.
 */
function decide(c: Context<AppEnv>, next: Next): Response | Promise<Answer> {
  const surface = surfaceOf(c.req.path);
  if (surface === 'signed') {
    c.set('auth', { kind: 'anonymous' });
    return next();
  }

  const presented = readPresentedCredential(c.req.raw.headers);
  if (surface === 'public') return publicCaller(c, next, presented && asApiKey(presented));
  if (!presented) {
    if (surface === 'sign_in') return anonymous(c, next);
    throw unauthorized(Detail.missingCredentials);
  }
  const keyToken = asApiKey(presented);

  if (surface === 'internal') return internalCaller(c, next, presented, keyToken);
  if (surface === 'sign_in') return signIn(c, next, keyToken, presented.token);
  if (keyToken !== null) {
    return andThen(authenticateKey(c, keyToken), (key) => admitApiKey(c, next, surface, key));
  }
  return jwtHolder(c, next, surface, presented.token);
}

/** A sign-in path called without a credential (the usual case: login, refresh, reset). */
function anonymous(c: Context<AppEnv>, next: Next) {
  c.set('auth', { kind: 'anonymous' });
  return next();
}

// Hono awaits whatever a middleware returns (compose.ts: `await handler(...)`); its type only
// admits promises, hence the cast for a function that may answer synchronously.
export const gate = decide as unknown as MiddlewareHandler<AppEnv>;

function admitApiKey(
  c: Context<AppEnv>,
  next: Next,
  surface: Surface,
  key: VerifiedKey,
): Response | Promise<void> {
  if (surface !== 'api') throw forbidden(Detail.apiKeyNotPermitted);
  // set before the scope check, so a refusal's access-log line still names the tenant and key kind
  c.set('auth', { kind: 'api_key', tenantId: key.tenantId, keyId: key.id, scopes: key.scopes });
  // the commonest refusal answers directly: no exception to build and unwind (see the benchmark's (f))
  const refusal = scopeRefusal(c.req.method, c.req.path, key.scopes);
  if (refusal) return jsonAnswer(c, { detail: refusal }, 403);
  if (shouldTouch(key.id)) {
    const { db, defer } = c.get('services');
    defer(() => touchLastUsed(db, key.id));
  }
  return next();
}

/**
 * No credential needed; a key is verified (401 if bad, as everywhere), then refused outside the
 * paths that tolerate one (spec rule 6). Other credentials (a widget's or end user's JWT) pass.
 */
function publicCaller(c: Context<AppEnv>, next: Next, keyToken: string | null) {
  const refusal = publicRefusal(c.req.method, c.req.path, keyToken !== null);
  if (refusal && keyToken !== null) {
    return andThen(authenticateKey(c, keyToken), (): never => {
      throw refusal;
    });
  }
  if (refusal) throw refusal;
  c.set('auth', { kind: 'anonymous' });
  return next();
}

/** /api/internal: the internal token; an API key there is verified (401 if bad), then refused (403). */
async function internalCaller(c: Context<AppEnv>, next: Next, presented: Presented, keyToken: string | null) {
  const expected = c.get('services').config.INTERNAL_API_TOKEN;
  if (presented.type === 'bearer' && timingSafeEqual(presented.token, expected)) {
    c.set('auth', { kind: 'internal' });
    return next();
  }
  if (keyToken?.startsWith('itsm_sk_')) {
    await authenticateKey(c, keyToken);
    throw forbidden(Detail.apiKeyNotPermitted);
  }
  throw unauthorized(Detail.invalidInternalToken);
}

/**
 * /api/v1/auth (sign in, refresh, invites, resets): no credential needed. An API key is verified
 * (401 if bad), then refused (403: a denied prefix); a dashboard session token sent along is taken
 * when valid (logout ends its session) and ignored when not, so a stale token never blocks a sign-in.
 */
async function signIn(c: Context<AppEnv>, next: Next, keyToken: string | null, token: string) {
  if (keyToken !== null) {
    await authenticateKey(c, keyToken);
    throw forbidden(Detail.apiKeyNotPermitted);
  }
  const { config } = c.get('services');
  const session = await verifyDashboardToken(token, {
    secret: config.DASHBOARD_JWT_SECRET,
    jwksUrl: config.DASHBOARD_JWKS_URL,
  });
  c.set('auth', session ? { kind: 'dashboard', ...session } : { kind: 'anonymous' });
  return next();
}

/** A JWT-shaped bearer token: an end-user token on /api/v1/app, a dashboard session elsewhere. */
async function jwtHolder(c: Context<AppEnv>, next: Next, surface: Surface, token: string) {
  if (surface === 'end_user') {
    const session = await verifyEndUserToken(token, c.get('services').config.END_USER_JWT_SECRET);
    if (!session) throw unauthorized(Detail.invalidEndUserToken);
    c.set('auth', { kind: 'end_user', ...session });
    return next();
  }
  c.set('auth', await dashboardSession(c, token));
  return next();
}
