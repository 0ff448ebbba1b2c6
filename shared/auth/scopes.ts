/**
 * The API-key scope catalog and the path-prefix rules that enforce it (spec: "Scope catalog",
 * "Enforcement rules", section B). This file is data; shared/auth/access.ts is the one reader
 * (`scopeRefusal`, applied by the gate), and the table-driven tests iterate over it.
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

/** The config function's prefixes (functions/manifest.ts reads this list: written once, here). */
export const CONFIG_PREFIXES = [
  '/api/v1/config',
  '/api/v1/configuration',
  '/api/v1/integrations',
  '/api/v1/telephony',
  '/api/v1/onboarding',
  '/api/v1/tenant',
] as const;

/**
 * Reads that expose secrets or tenant-wide settings need the matching :write scope too
 * ("many config and billing reads also need the matching :write scope"). Listed here, nowhere else.
 */
export const SCOPE_RULES: readonly ScopeRule[] = [
  { prefix: '/api/v1/tickets', read: 'tickets:read', write: 'tickets:write' },
  { prefix: '/api/v1/calls', read: 'calls:read', write: 'calls:write' },
  {
    prefix: '/api/v1/voice-widget',
    read: 'config:read',
    write: 'config:write',
    extra: [{ methods: ['POST'], path: '/api/v1/voice-widget/token', scopes: ['calls:write'] }],
  },
  { prefix: '/api/v1/usage', read: 'usage:read', write: 'usage:write' },
  {
    prefix: '/api/v1/billing',
    read: 'billing:read',
    write: 'billing:write',
    extra: [
      { methods: ['GET', 'HEAD'], path: '/api/v1/billing/payment-settings*', scopes: ['billing:write'] },
    ],
  },
  { prefix: '/api/v1/requesters', read: 'users:read', write: 'users:write' },
  {
    prefix: '/api/v1/tenant/users',
    read: 'users:read',
    write: 'users:write',
    // reading the team or changing anyone's role (creating, editing, removing a user) needs roles:write
    extra: [{ methods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'], scopes: ['roles:write'] }],
  },
  {
    prefix: '/api/v1/conversations',
    read: 'conversations:read',
    write: 'conversations:write',
    extra: [
      {
        methods: ['POST'],
        path: '/api/v1/conversations/:id/export',
        scopes: ['conversations:export', 'conversations:read'],
      },
    ],
  },
  {
    prefix: '/api/v1/tenant/exports',
    read: 'exports:read',
    write: 'exports:write',
    extra: [{ methods: ['GET', 'HEAD', 'POST'], scopes: ['config:write'] }],
  },
  ...CONFIG_PREFIXES.map(
    (prefix): ScopeRule => ({
      prefix,
      read: 'config:read',
      write: 'config:write',
      extra:
        prefix === '/api/v1/integrations' || prefix === '/api/v1/telephony'
          ? [{ methods: ['GET', 'HEAD'], scopes: ['config:write'] }]
          : undefined,
    }),
  ),
  {
    prefix: '/api/v1/webhooks',
    read: 'webhooks:read',
    write: 'webhooks:write',
    extra: [{ methods: ['DELETE'], path: '/api/v1/webhooks/:id', scopes: ['webhooks:delete'] }],
  },
];

/** Prefixes an API key can never reach, whatever its scopes (spec rule 5). */
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
