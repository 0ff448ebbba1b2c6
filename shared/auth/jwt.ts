import { createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey, jwtVerify, SignJWT } from 'jose';

import { isRole, type Role } from '../context/roles';
import { hmacKey } from '../crypto';

export { ROLES, type Role, roleAtLeast } from '../context/roles';

/** Longest session the platform accepts (spec: "valid at most 60 minutes"). */
export const MAX_SESSION_SECONDS = 3600;
/** Clock skew tolerated on exp/iat. */
const CLOCK_TOLERANCE_S = 30;

export interface DashboardSession {
  userId: string;
  tenantId: string;
  role: Role;
  /** `sid` claim: the sign-in session (functions/auth) a token was issued for; absent on minted tokens */
  sessionId?: string;
}

export interface DashboardJwtConfig {
  secret?: string;
  jwksUrl?: string;
}

const encoder = new TextEncoder();
const jwksCache = new Map<string, JWTVerifyGetKey>();

function dashboardKey(config: DashboardJwtConfig): Promise<CryptoKey> | JWTVerifyGetKey {
  if (config.jwksUrl) {
    let jwks = jwksCache.get(config.jwksUrl);
    if (!jwks) {
      jwks = createRemoteJWKSet(new URL(config.jwksUrl));
      jwksCache.set(config.jwksUrl, jwks);
    }
    return jwks;
  }
  if (!config.secret) throw new Error('no dashboard JWT key configured');
  return hmacKey(config.secret);
}

const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * Verifies a dashboard session token; `null` for anything not acceptable: bad signature,
 * `alg: none` or another algorithm, expired, no exp/iat, living longer than 3600 s, missing
 * sub/tenant_id, or an unknown role.
 */
export async function verifyDashboardToken(
  token: string,
  config: DashboardJwtConfig,
): Promise<DashboardSession | null> {
  let payload: JWTPayload;
  try {
    const key = dashboardKey(config);
    const algorithms = config.jwksUrl ? ['RS256', 'ES256', 'EdDSA'] : ['HS256'];
    ({ payload } =
      typeof key === 'function'
        ? await jwtVerify(token, key, { algorithms, clockTolerance: CLOCK_TOLERANCE_S })
        : await jwtVerify(token, await key, { algorithms, clockTolerance: CLOCK_TOLERANCE_S }));
  } catch {
    return null;
  }
  const { sub, exp, iat } = payload;
  const tenantId = payload.tenant_id;
  const role = payload.role;
  if (!isNonEmptyString(sub) || !isNonEmptyString(tenantId)) return null;
  if (typeof exp !== 'number' || typeof iat !== 'number') return null;
  if (exp - iat > MAX_SESSION_SECONDS) return null;
  // an iat in the future would stretch the window; so would an exp far ahead of now
  if (iat > Date.now() / 1000 + CLOCK_TOLERANCE_S) return null;
  if (exp - Date.now() / 1000 > MAX_SESSION_SECONDS + CLOCK_TOLERANCE_S) return null;
  if (!isRole(role)) return null;
  const session: DashboardSession = { userId: sub, tenantId, role };
  if (isNonEmptyString(payload.sid)) session.sessionId = payload.sid;
  return session;
}

/** Mints a dashboard token (POST /api/v1/auth/login and refresh; scripts/token.ts and tests). */
export async function signDashboardToken(
  secret: string,
  claims: { sub: string; tenant_id: string; role: Role; sid?: string },
  ttlSeconds = MAX_SESSION_SECONDS,
): Promise<string> {
  const { sub: _sub, ...rest } = claims;
  return new SignJWT(rest)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(encoder.encode(secret));
}

/** End-user tokens (`/api/v1/app/*`): HS256 with END_USER_JWT_SECRET, audience `end_user`. */
export const END_USER_AUDIENCE = 'end_user';
export const END_USER_TOKEN_SECONDS = 3600;

export interface EndUserSession {
  endUserId: string;
  tenantId: string;
  email: string | null;
}

export async function signEndUserToken(
  secret: string,
  claims: { sub: string; tenant_id: string; email?: string | null },
  ttlSeconds = END_USER_TOKEN_SECONDS,
): Promise<string> {
  return new SignJWT({ tenant_id: claims.tenant_id, email: claims.email ?? null })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setAudience(END_USER_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(encoder.encode(secret));
}

export async function verifyEndUserToken(token: string, secret: string): Promise<EndUserSession | null> {
  try {
    const { payload } = await jwtVerify(token, await hmacKey(secret), {
      algorithms: ['HS256'],
      audience: END_USER_AUDIENCE,
      requiredClaims: ['exp', 'sub'],
      clockTolerance: CLOCK_TOLERANCE_S,
    });
    if (!isNonEmptyString(payload.sub) || !isNonEmptyString(payload.tenant_id)) return null;
    return {
      endUserId: payload.sub,
      tenantId: payload.tenant_id,
      email: typeof payload.email === 'string' ? payload.email : null,
    };
  } catch {
    return null;
  }
}
