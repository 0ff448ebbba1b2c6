/** Segment-aware prefix test: `/api/v1/tenant` matches `/api/v1/tenant/x`, not `/api/v1/tenants`. */
export const underPrefix = (path: string, prefix: string) =>
  path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47) /* '/' */;

/** A path without its trailing slashes (`/` stays `/`). */
export function normalizePath(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') : path;
}
