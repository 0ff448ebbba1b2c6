/** Segment-aware prefix test: `/api/v1/tenant` matches `/api/v1/tenant/x`, not `/api/v1/tenants`. */
export const underPrefix = (path: string, prefix: string) =>
  path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47) /* '/' */;

/** A path without its trailing slashes (`/` stays `/`). */
export function normalizePath(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') : path;
}

/**
 * Unauthenticated paths on the per-IP rate budget (shared/ratelimit/limits.ts): end-user auth, and
 * dashboard password resets (they send mail). Here, below both the limiter and the OpenAPI document
 * (which describes that budget), so each reads the one list.
 */
const AUTH_IP_PREFIXES = ['/api/v1/app/auth', '/api/v1/auth/password-reset'];
export const isAuthPath = (path: string) => AUTH_IP_PREFIXES.some((prefix) => underPrefix(path, prefix));
