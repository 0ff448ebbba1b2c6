import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { timingSafeEqual } from '../crypto';
import { Detail, forbidden, unauthorized } from '../http/errors';
import type { AppEnv } from '../runtime/app-env';
import { scopeRefusal, surfaceOf } from './access';
import type { Credential } from './credential';
import { verifyDashboardToken, verifyEndUserToken } from './jwt';
import { shouldTouch, touchLastUsed, verifyApiKey } from './key-verify';

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

/** A cached key is answered without a promise (see verifyApiKey); await the result either way. */
function authenticateKey(c: Context<AppEnv>, token: string) {
  const services = c.get('services');
  return verifyApiKey(
    { db: services.db, hashSecret: services.config.API_KEY_HASH_SECRET, cache: services.keyCache },
    token,
  );
}

async function dashboardSession(c: Context<AppEnv>, token: string): Promise<Credential> {
  const { config } = c.get('services');
  const session = await verifyDashboardToken(token, {
    secret: config.DASHBOARD_JWT_SECRET,
    jwksUrl: config.DASHBOARD_JWKS_URL,
  });
  if (!session) throw unauthorized(Detail.invalidSession);
  return { kind: 'dashboard', ...session };
}

/**
 * The one gate every function runs before its routes: decides the surface of the path, checks
 * the credential it takes, and for API keys enforces the scope table. Refusals that need no key
 * record (missing credential, malformed or mis-checksummed key) cost no I/O; a warm key costs none
 * in the embedded runtime and one indexed query on the edge.
 */
export const gate = createMiddleware<AppEnv>(async function gate(c, next) {
  const surface = surfaceOf(c.req.path);
  if (surface === 'public' || surface === 'signed') {
    c.set('auth', { kind: 'anonymous' });
    return next();
  }

  const presented = readPresentedCredential(c.req.raw.headers);
  if (!presented) throw unauthorized(Detail.missingCredentials);
  const keyToken = asApiKey(presented);

  if (surface === 'internal') {
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

  if (keyToken !== null) {
    const verified = authenticateKey(c, keyToken);
    const key = verified instanceof Promise ? await verified : verified;
    if (surface !== 'api') throw forbidden(Detail.apiKeyNotPermitted);
    // the commonest refusal answers directly: no exception to build and unwind (see the benchmark's (f))
    const refusal = scopeRefusal(c.req.method, c.req.path, key.scopes);
    if (refusal) return c.json({ detail: refusal }, 403);
    c.set('auth', { kind: 'api_key', tenantId: key.tenantId, keyId: key.id, scopes: key.scopes });
    if (shouldTouch(key.id)) {
      const { db } = c.get('services');
      c.get('services').defer(() => touchLastUsed(db, key.id));
    }
    return next();
  }

  // a JWT-shaped bearer token
  if (surface === 'end_user') {
    const session = await verifyEndUserToken(presented.token, c.get('services').config.END_USER_JWT_SECRET);
    if (!session) throw unauthorized(Detail.invalidEndUserToken);
    c.set('auth', { kind: 'end_user', ...session });
    return next();
  }
  c.set('auth', await dashboardSession(c, presented.token));
  return next();
});
