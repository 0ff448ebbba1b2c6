/**
 * The API-key scope catalog and the shape of the rules that enforce it (spec: "Scope catalog",
 * "Enforcement rules"). The rules themselves are written beside the functions that own their
 * prefixes (functions/manifest.ts); shared/auth/access.ts compiles them for the gate, and the
 * table-driven tests iterate over them.
 */
export const SCOPE_CATALOG = [
  'tickets:read',
  'tickets:write',
  'calls:read',
  'calls:write',
  'usage:read',
  'usage:write',
  'billing:read',
  'billing:write',
  'webhooks:read',
  'webhooks:write',
  'webhooks:delete',
  'kb:read',
  'kb:write',
  'kb:media',
  'users:read',
  'users:write',
  'roles:write',
  'conversations:read',
  'conversations:write',
  'conversations:export',
  'config:read',
  'config:write',
  'exports:read',
  'exports:write',
  'contacts:read',
  'contacts:write',
] as const;

export type Scope = (typeof SCOPE_CATALOG)[number];
const CATALOG_SET: ReadonlySet<string> = new Set(SCOPE_CATALOG);
export const isScope = (value: string): value is Scope => CATALOG_SET.has(value);

export type HttpMethod = 'GET' | 'HEAD' | 'OPTIONS' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A second scope some endpoints need on top of the prefix scope (spec rule 2). */
export interface ExtraScopeRule {
  methods: readonly HttpMethod[];
  /** Path pattern with `:param` segments and an optional trailing `*`; omitted = the whole prefix. */
  path?: string;
  scopes: readonly Scope[];
}

export interface ScopeRule {
  prefix: string;
  read: Scope;
  write: Scope;
  extra?: readonly ExtraScopeRule[];
}

/**
 * Prefixes an API key can never reach, whatever its scopes (spec rule 5): the spec's list, which
 * test/unit/access.test.ts holds the rules to (none of them is on the `api` surface).
 */
export const KEY_DENIED_PREFIXES = [
  '/api/v1/api-keys',
  '/api/v1/auth',
  '/api/v1/users',
  '/api/v1/tenants',
  '/api/v1/super-admin',
  '/api/internal',
] as const;

/**
 * The scope groups the dashboard's key-creation dialog offers (spec: "offers only Conversations,
 * Tickets, Calls, Usage (read only), Webhooks and Knowledge Base scopes"); every other scope is
 * obtainable only through POST /api/v1/api-keys. The console renders this table.
 */
export const KEY_DIALOG_SCOPE_GROUPS: readonly { label: string; scopes: readonly Scope[] }[] = [
  { label: 'Conversations', scopes: ['conversations:read', 'conversations:write', 'conversations:export'] },
  { label: 'Tickets', scopes: ['tickets:read', 'tickets:write'] },
  { label: 'Calls', scopes: ['calls:read', 'calls:write'] },
  { label: 'Usage (read only)', scopes: ['usage:read'] },
  { label: 'Webhooks', scopes: ['webhooks:read', 'webhooks:write', 'webhooks:delete'] },
  { label: 'Knowledge Base', scopes: ['kb:read', 'kb:write', 'kb:media'] },
];
