import { ApiError, Detail, forbidden } from '../http/errors';
import {
  KEY_DENIED_PREFIXES,
  READ_METHODS,
  SCOPE_CATALOG,
  SCOPE_RULES,
  type Scope,
  type ScopeRule,
} from './scopes';

/**
 * Which credential a path takes, decided before any handler runs (spec: "Access surfaces",
 * "Reachability summary"). Longest matching prefix wins; anything else under /api is
 * dashboard-session only, which is how every /api/v2 path refuses API keys.
 */
export type Surface =
  /** no credential (health, help-center reads, docs, widget chat, end-user login) */
  | 'public'
  /** verified by the handler itself (QStash-signed callbacks) */
  | 'signed'
  /** INTERNAL_API_TOKEN (voice agent, jobs) */
  | 'internal'
  /** end-user JWT */
  | 'end_user'
  /** API key (scope-checked) or dashboard session */
  | 'api'
  /** dashboard session only; API keys get 403 */
  | 'dashboard'
  /** dashboard sign-in (/api/v1/auth): no credential needed, API keys get 403, a session token sent is read */
  | 'sign_in';

export interface SurfaceRule {
  prefix: string;
  surface: Surface;
}

export const SURFACE_RULES: readonly SurfaceRule[] = [
  { prefix: '/api/v2/health', surface: 'public' },
  { prefix: '/api/v1/help-center', surface: 'public' },
  { prefix: '/api/v1/openapi.json', surface: 'public' },
  // the console's page and files (its data comes from the API with the dashboard session)
  { prefix: '/console', surface: 'public' },
  { prefix: '/api/v1/widget', surface: 'public' },
  { prefix: '/api/v1/app/auth', surface: 'public' },
  { prefix: '/api/v1/app', surface: 'end_user' },
  { prefix: '/api/internal/webhooks/qstash', surface: 'signed' },
  { prefix: '/api/internal', surface: 'internal' },
  { prefix: '/api/v1/auth', surface: 'sign_in' },
  ...KEY_DENIED_PREFIXES.filter((p) => p !== '/api/internal').map((prefix) => ({
    prefix,
    surface: 'dashboard' as const,
  })),
  ...SCOPE_RULES.map((r) => ({ prefix: r.prefix, surface: 'api' as const })),
];

/**
 * The public paths an API key may call too, with the methods they serve (spec: "every request with
 * an API key returns 403 except GET /api/v2/health"; the API document is served to anyone). Every
 * other public path is outside the key allowlist (rule 6): a key there is 403.
 */
const KEY_TOLERANT_PUBLIC: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['/api/v2/health', new Set(['GET', 'HEAD'])],
  ['/api/v1/openapi.json', new Set(['GET', 'HEAD'])],
]);

/**
 * A public path's refusal of (method, key present), or null to let it through: 405 for a method the
 * path does not serve (the router alone would say 404), 403 for an API key outside the allowlist.
 */
export function publicRefusal(method: string, path: string, withKey: boolean): ApiError | null {
  const methods = KEY_TOLERANT_PUBLIC.get(normalizePath(path));
  if (withKey && !methods?.has(method)) return forbidden(Detail.apiKeyNotPermitted);
  if (methods && !methods.has(method))
    return new ApiError(405, Detail.methodNotAllowed, { Allow: [...methods].join(', ') });
  return null;
}

/** Segment-aware prefix test: `/api/v1/tenant` matches `/api/v1/tenant/x`, not `/api/v1/tenants`. */
export const underPrefix = (path: string, prefix: string) =>
  path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47) /* '/' */;

/**
 * Longest segment-aware prefix in a table keyed by prefix: the path itself, then each parent
 * (`/a/b/c`, `/a/b`, `/a`): a handful of Map lookups instead of a scan of every rule.
 */
function longestPrefix<T>(table: ReadonlyMap<string, T>, path: string): T | undefined {
  let p = path;
  for (;;) {
    const hit = table.get(p);
    if (hit !== undefined) return hit;
    const cut = p.lastIndexOf('/');
    if (cut <= 0) return undefined;
    p = p.slice(0, cut);
  }
}

/** prefix -> value; the first rule listed for a prefix wins */
function prefixTable<R extends { prefix: string }, T>(
  rules: readonly R[],
  value: (r: R) => T,
): Map<string, T> {
  const table = new Map<string, T>();
  for (const r of rules) if (!table.has(r.prefix)) table.set(r.prefix, value(r));
  return table;
}

const SURFACE_BY_PREFIX = prefixTable(SURFACE_RULES, (r) => r.surface);

export function normalizePath(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') : path;
}

export function surfaceOf(path: string): Surface {
  const p = normalizePath(path);
  return longestPrefix(SURFACE_BY_PREFIX, p) ?? (underPrefix(p, '/api') ? 'dashboard' : 'public');
}

/** `/api/v1/conversations/:id/export` or `/api/v1/billing/payment-settings*` as a RegExp. */
export function compilePathPattern(pattern: string): RegExp {
  const wildcard = pattern.endsWith('*');
  const body = (wildcard ? pattern.slice(0, -1) : pattern)
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}${wildcard ? '.*' : ''}$`);
}

interface CompiledRule extends ScopeRule {
  extras: { methods: ReadonlySet<string>; path: RegExp | null; scopes: readonly Scope[] }[];
}

const COMPILED_RULES = prefixTable(
  SCOPE_RULES,
  (rule): CompiledRule => ({
    ...rule,
    extras: (rule.extra ?? []).map((e) => ({
      methods: new Set(e.methods),
      path: e.path ? compilePathPattern(e.path) : null,
      scopes: e.scopes,
    })),
  }),
);

export interface ScopeRequirement {
  /** the prefix scope: missing it is `API key missing required scope: <scope>` */
  pathScope: Scope;
  /** further scopes: missing one is `Insufficient permissions: requires <scope>` */
  extraScopes: Scope[];
}

/**
 * The gate's whole decision for (method, path) in one value: the surface, and on the `api` surface
 * the scopes a key needs (prefix scope first). Every route declares the same (`access` in
 * functions/<name>/routes.ts); test/unit/route-access.test.ts holds the two together.
 */
export function accessOf(method: string, path: string): { surface: Surface; scopes?: Scope[] } {
  const surface = surfaceOf(path);
  const need = surface === 'api' ? scopeRequirement(method, path) : null;
  return need ? { surface, scopes: [need.pathScope, ...need.extraScopes] } : { surface };
}

/** What an API key needs for (method, path); `null` when the path is not on the key allowlist. */
export function scopeRequirement(method: string, path: string): ScopeRequirement | null {
  const p = normalizePath(path);
  const rule = longestPrefix(COMPILED_RULES, p);
  if (!rule) return null;
  const m = method.toUpperCase();
  const pathScope = READ_METHODS.has(m) ? rule.read : rule.write;
  const extraScopes: Scope[] = [];
  for (const extra of rule.extras) {
    if (!extra.methods.has(m) || (extra.path && !extra.path.test(p))) continue;
    for (const s of extra.scopes) if (s !== pathScope && !extraScopes.includes(s)) extraScopes.push(s);
  }
  return { pathScope, extraScopes };
}

// The refusals' details, built once per scope: the refusal of an under-scoped key is the hot path
// of a misconfigured integration (and of the benchmark's (f)), and it answers with a string that
// already exists rather than one made per request.
const MISSING_SCOPE = new Map(SCOPE_CATALOG.map((s) => [s, Detail.missingScope(s)]));
const INSUFFICIENT = new Map(SCOPE_CATALOG.map((s) => [s, Detail.insufficientPermissions(s)]));

/** The spec's 403 detail when a key with `scopes` may not call (method, path); null when it may. No I/O. */
export function scopeRefusal(method: string, path: string, scopes: ReadonlySet<string>): string | null {
  const need = scopeRequirement(method, path);
  if (!need) return Detail.apiKeyNotPermitted;
  if (!scopes.has(need.pathScope))
    return MISSING_SCOPE.get(need.pathScope) ?? Detail.missingScope(need.pathScope);
  for (const s of need.extraScopes)
    if (!scopes.has(s)) return INSUFFICIENT.get(s) ?? Detail.insufficientPermissions(s);
  return null;
}

/** Throws the spec's 403 unless a key with `scopes` may call (method, path). No I/O. */
export function authorizeApiKey(method: string, path: string, scopes: ReadonlySet<string>): void {
  const refusal = scopeRefusal(method, path, scopes);
  if (refusal) throw forbidden(refusal);
}
