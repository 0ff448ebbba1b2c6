import type { ShareClaim } from '../context/rate-limiter';
import type { Services } from '../context/services';
import { timingSafeEqual } from '../crypto';
import { Detail, forbidden, unauthorized } from '../http/errors';
import { andThen } from '../sync-first';
import type { AccessTable, Surface } from './access';
import { tokenSessionIsLive } from './accounts';
import type { Credential } from './credential';
import { verifyDashboardToken, verifyEndUserToken } from './jwt';
import {
  isSpeculative,
  type SpeculativeKey,
  shouldTouch,
  touchLastUsed,
  type VerifiedKey,
  verifyApiKey,
} from './key-verify';

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
 * What the gate reads of a request: no Hono context, so the chain's gate middleware
 * (shared/runtime/gate.ts) and the benchmark's bypass share it.
 */
export interface GateRequest {
  method: string;
  path: string;
  headers: Headers;
  services: Services;
  /** who may call which path: the runtime's access rules (functions/manifest.ts), compiled */
  access: AccessTable;
  /** the whole URL (its query prices the request's database share) */
  url?: string;
  /** the chain's share middleware's claim, for the key's read to take in its round trip */
  claimShare?: (services: Services, method: string, url: string) => ShareClaim | undefined;
}

/**
 * The gate's verdict on a request it lets reach a decision: who is calling and, for an API key
 * whose scopes do not cover the route, the 403's detail. That refusal, the commonest, is a value
 * rather than an exception (no error to build and unwind: the benchmark's (f)), and it keeps the
 * credential, so its access line still names the tenant. Every other refusal is thrown (ApiError).
 */
export interface Admission {
  auth: Credential;
  scopeRefusal?: string;
  /**
   * Present on a speculative admission (a read with a key this isolate verified before): the
   * admission the key's own check arrives at, or its refusal. The chain's speculation lets the
   * request's reads start on the speculative one and answers from this (shared/runtime/shortcuts.ts).
   */
  check?: Promise<Admission>;
}

/**
 * The presented key, verified with the request's services. A cached key is answered without a promise.
 * With `request` (an API call), the shared key cache is read in the rate limit's round trip.
 */
export function authenticateKey(
  services: Services,
  token: string,
  request?: Pick<GateRequest, 'method' | 'path' | 'url' | 'claimShare'>,
) {
  const claim = request?.claimShare;
  const url = request?.url;
  return verifyApiKey(
    {
      db: services.db,
      hashSecret: services.config.API_KEY_HASH_SECRET,
      cache: services.keyCache,
      shared: services.rateLimiter?.keyRecords,
      request,
      claimShare: claim && url !== undefined ? () => claim(services, request.method, url) : undefined,
      defer: services.defer,
    },
    token,
  );
}

/**
 * A dashboard session token, held to its session (tokenSessionIsLive): once a sign-in session ends
 * (logout, password reset, lowered role, user removed) its tokens are refused at once rather than
 * when they expire, up to 15 minutes later.
 */
async function dashboardSession(services: Services, token: string): Promise<Credential> {
  const { config, db } = services;
  const session = await verifyDashboardToken(token, {
    secret: config.DASHBOARD_JWT_SECRET,
    jwksUrl: config.DASHBOARD_JWKS_URL,
  });
  if (!session || !(await tokenSessionIsLive(db, config, session))) throw unauthorized(Detail.invalidSession);
  return { kind: 'dashboard', ...session };
}

const anonymous = (): Admission => ({ auth: { kind: 'anonymous' } });

/**
 * The one gate every request meets before any route: decides the surface of the path, checks the
 * credential it takes, and for API keys enforces the scope table. Refusals that need no key record
 * (missing credential, malformed or mis-checksummed key) cost no I/O; a warm key costs none in the
 * embedded runtime and, on the edge, the rate limit's Redis round trip (which reads the key record).
 *
 * Not an async function: a warm API key is decided without a promise (the hot path of every
 * integrator call); the branches that must wait (key lookups, JWTs) return theirs.
 */
export function admit(req: GateRequest): Admission | Promise<Admission> {
  const surface = req.access.surfaceOf(req.path);
  if (surface === 'signed') return anonymous();

  const presented = readPresentedCredential(req.headers);
  if (surface === 'public') return publicCaller(req, presented && asApiKey(presented));
  if (!presented) {
    // a sign-in path called without a credential is the usual case: login, refresh, reset
    if (surface === 'sign_in') return anonymous();
    throw unauthorized(Detail.missingCredentials);
  }
  const keyToken = asApiKey(presented);

  if (surface === 'internal') return internalCaller(req, presented, keyToken);
  if (surface === 'sign_in') return signIn(req, keyToken, presented.token);
  if (keyToken !== null) {
    const key = authenticateKey(req.services, keyToken, surface === 'api' ? req : undefined);
    // (a warm key, the hot path, without a closure)
    return key instanceof Promise
      ? key.then((k) => admitApiKey(req, surface, k))
      : admitApiKey(req, surface, key);
  }
  return jwtHolder(req, surface, presented.token);
}

function admitApiKey(req: GateRequest, surface: Surface, key: VerifiedKey): Admission | Promise<Admission> {
  if (surface !== 'api') throw forbidden(Detail.apiKeyNotPermitted);
  if (isSpeculative(key)) return admitSpeculative(req, surface, key);
  const auth: Credential = { kind: 'api_key', tenantId: key.tenantId, keyId: key.id, scopes: key.scopes };
  // counted already, in the shared key cache's round trip: the rate limit reads it from here
  if (key.rate) auth.rate = key.rate;
  // and the tenant's database share taken there: the share middleware holds it from here
  if (key.share) auth.share = key.share;
  const refusal = req.access.scopeRefusal(req.method, req.path, key.scopes);
  if (refusal) return { auth, scopeRefusal: refusal };
  if (shouldTouch(key.id)) {
    const { db, defer } = req.services;
    defer(() => touchLastUsed(db, key.id));
  }
  return { auth };
}

/** Counted by the check: the rate limit middleware must not count the speculative run again. */
const uncounted = (): NonNullable<Extract<Credential, { kind: 'api_key' }>['rate']> => {
  const now = Date.now();
  return { allowed: true, limit: 0, remaining: 0, reset: now, retryAfter: 0, now, windows: [] };
};

/**
 * A read with a key this isolate verified before: admitted speculatively (no touch, no count),
 * with the admission its check arrives at. A speculative scope refusal is not answered early: the
 * request waits for its check, as a cold one does.
 */
function admitSpeculative(
  req: GateRequest,
  surface: Surface,
  key: SpeculativeKey,
): Admission | Promise<Admission> {
  const check = key.check.then((k) => admitApiKey(req, surface, k));
  if (req.access.scopeRefusal(req.method, req.path, key.scopes)) return check;
  const auth: Credential = {
    kind: 'api_key',
    tenantId: key.tenantId,
    keyId: key.id,
    scopes: key.scopes,
    rate: uncounted(),
  };
  // the share the check takes, if it takes one: the run's database reads wait for it, as they wait
  // for a share acquired on their own
  if (key.claimsShare)
    auth.share = key.check.then(
      (k) => k.share,
      () => undefined,
    );
  return { auth, check };
}

/**
 * No credential needed; a key is verified (401 if bad, as everywhere), then refused outside the
 * paths that tolerate one (spec rule 6). Other credentials (a widget's or end user's JWT) pass.
 */
function publicCaller(req: GateRequest, keyToken: string | null): Admission | Promise<Admission> {
  const refusal = req.access.publicRefusal(req.method, req.path, keyToken !== null);
  if (refusal && keyToken !== null) {
    return andThen(authenticateKey(req.services, keyToken), (): never => {
      throw refusal;
    });
  }
  if (refusal) throw refusal;
  return anonymous();
}

/** /api/internal: the internal token; an API key there is verified (401 if bad), then refused (403). */
async function internalCaller(
  req: GateRequest,
  presented: Presented,
  keyToken: string | null,
): Promise<Admission> {
  const expected = req.services.config.INTERNAL_API_TOKEN;
  if (presented.type === 'bearer' && timingSafeEqual(presented.token, expected))
    return { auth: { kind: 'internal' } };
  if (keyToken?.startsWith('itsm_sk_')) {
    await authenticateKey(req.services, keyToken);
    throw forbidden(Detail.apiKeyNotPermitted);
  }
  throw unauthorized(Detail.invalidInternalToken);
}

/**
 * /api/v1/auth (sign in, refresh, invites, resets): no credential needed. An API key is verified
 * (401 if bad), then refused (403: a denied prefix); a dashboard session token sent along is taken
 * when valid (logout ends its session) and ignored when not, so a stale token never blocks a sign-in.
 */
async function signIn(req: GateRequest, keyToken: string | null, token: string): Promise<Admission> {
  if (keyToken !== null) {
    await authenticateKey(req.services, keyToken);
    throw forbidden(Detail.apiKeyNotPermitted);
  }
  const { config } = req.services;
  const session = await verifyDashboardToken(token, {
    secret: config.DASHBOARD_JWT_SECRET,
    jwksUrl: config.DASHBOARD_JWKS_URL,
  });
  return session ? { auth: { kind: 'dashboard', ...session } } : anonymous();
}

/** A JWT-shaped bearer token: an end-user token on /api/v1/app, a dashboard session elsewhere. */
async function jwtHolder(req: GateRequest, surface: Surface, token: string): Promise<Admission> {
  if (surface === 'end_user') {
    const session = await verifyEndUserToken(token, req.services.config.END_USER_JWT_SECRET);
    if (!session) throw unauthorized(Detail.invalidEndUserToken);
    return { auth: { kind: 'end_user', ...session } };
  }
  return { auth: await dashboardSession(req.services, token) };
}
