import { type HttpMethod, READ_METHODS, SCOPE_CATALOG, type Scope, type ScopeRule } from '../context/scopes';
import type { Surface } from '../context/surface';
import { ApiError, Detail, forbidden } from '../http/errors';
import { normalizePath, underPrefix } from '../http/paths';

export type { Surface };

/**
 * Who may call the paths under one prefix, written once, beside the function that owns the prefix
 * (functions/manifest.ts); the gate reads the rules through `compileAccess`. On the `api` surface:
 * the scopes an API key needs (spec: "Enforcement rules"). On a public path: the methods an API key
 * may call it with (spec: only GET /api/v2/health, and the API document); every other public path
 * is outside the key allowlist (rule 6).
 */
export type AccessRule =
  | (ScopeRule & { surface: 'api' })
  | { prefix: string; surface: Exclude<Surface, 'api'>; keyMethods?: readonly HttpMethod[] };

export const isScopeRule = (rule: AccessRule): rule is ScopeRule & { surface: 'api' } =>
  rule.surface === 'api';

/** `/api/v1/conversations/:id/export` or `/api/v1/billing/payment-settings*` as a RegExp. */
export function compilePathPattern(pattern: string): RegExp {
  const wildcard = pattern.endsWith('*');
  const body = (wildcard ? pattern.slice(0, -1) : pattern)
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}${wildcard ? '.*' : ''}$`);
}

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

export interface ScopeRequirement {
  /** the prefix scope: missing it is `API key missing required scope: <scope>` */
  pathScope: Scope;
  /** further scopes: missing one is `Insufficient permissions: requires <scope>` */
  extraScopes: Scope[];
}

/** A scope rule with its extra scopes' methods and paths made ready for matching. */
function compileScopeRule(rule: ScopeRule) {
  const extras = (rule.extra ?? []).map((e) => ({
    methods: new Set<string>(e.methods),
    path: e.path ? compilePathPattern(e.path) : null,
    scopes: e.scopes,
  }));
  return { read: rule.read, write: rule.write, extras };
}

/** What an API key needs for (method, path) under a compiled rule. */
function requirementOf(rule: ReturnType<typeof compileScopeRule>, method: string, path: string) {
  const m = method.toUpperCase();
  const pathScope = READ_METHODS.has(m) ? rule.read : rule.write;
  const extraScopes: Scope[] = [];
  for (const extra of rule.extras) {
    if (!extra.methods.has(m) || (extra.path && !extra.path.test(path))) continue;
    for (const s of extra.scopes) if (s !== pathScope && !extraScopes.includes(s)) extraScopes.push(s);
  }
  return { pathScope, extraScopes };
}

// The refusals' details, built once per scope: the refusal of an under-scoped key is the hot path
// of a misconfigured integration, and it answers with a string that already exists rather than one
// made per request.
const MISSING_SCOPE = new Map(SCOPE_CATALOG.map((s) => [s, Detail.missingScope(s)]));
const INSUFFICIENT = new Map(SCOPE_CATALOG.map((s) => [s, Detail.insufficientPermissions(s)]));

export type AccessTable = ReturnType<typeof compileAccess>;

/** The gate's lookups over a set of access rules. None does I/O. */
export function compileAccess(rules: readonly AccessRule[]) {
  const surfaces = prefixTable(rules, (r) => r.surface);
  const scopeRules = prefixTable(rules.filter(isScopeRule), compileScopeRule);
  const keyMethods = new Map<string, ReadonlySet<string>>();
  for (const r of rules) if (!isScopeRule(r) && r.keyMethods) keyMethods.set(r.prefix, new Set(r.keyMethods));

  const surfaceOf = (path: string): Surface => {
    const p = normalizePath(path);
    return longestPrefix(surfaces, p) ?? (underPrefix(p, '/api') ? 'dashboard' : 'public');
  };
  /** What an API key needs for (method, path); `null` when the path is not on the key allowlist. */
  const scopeRequirement = (method: string, path: string): ScopeRequirement | null => {
    const p = normalizePath(path);
    const rule = longestPrefix(scopeRules, p);
    return rule ? requirementOf(rule, method, p) : null;
  };
  return {
    surfaceOf,
    scopeRequirement,
    /** The surface, and on the `api` surface the scopes a key needs (prefix scope first). */
    accessOf(method: string, path: string): { surface: Surface; scopes?: Scope[] } {
      const surface = surfaceOf(path);
      const need = surface === 'api' ? scopeRequirement(method, path) : null;
      return need ? { surface, scopes: [need.pathScope, ...need.extraScopes] } : { surface };
    },
    /** The spec's 403 detail when a key with `scopes` may not call (method, path); null when it may. */
    scopeRefusal(method: string, path: string, scopes: ReadonlySet<string>): string | null {
      const need = scopeRequirement(method, path);
      if (!need) return Detail.apiKeyNotPermitted;
      if (!scopes.has(need.pathScope))
        return MISSING_SCOPE.get(need.pathScope) ?? Detail.missingScope(need.pathScope);
      for (const s of need.extraScopes)
        if (!scopes.has(s)) return INSUFFICIENT.get(s) ?? Detail.insufficientPermissions(s);
      return null;
    },
    /**
     * A public path's refusal of (method, key present), or null to let it through: 405 for a method
     * a key-tolerant path does not serve, 403 for an API key outside the allowlist.
     */
    publicRefusal(method: string, path: string, withKey: boolean): ApiError | null {
      const methods = keyMethods.get(normalizePath(path));
      if (withKey && !methods?.has(method)) return forbidden(Detail.apiKeyNotPermitted);
      if (methods && !methods.has(method))
        return new ApiError(405, Detail.methodNotAllowed, { Allow: [...methods].join(', ') });
      return null;
    },
  };
}
