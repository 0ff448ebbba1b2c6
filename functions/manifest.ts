import type { AccessRule } from '../shared/auth/access';
import type { HttpMethod, Scope } from '../shared/context/scopes';

/**
 * The functions manifest: each route group, deployed as its own Worker, the path prefixes it owns,
 * and who may call the paths under each (its access rules, written here once: the gate compiles
 * them, the OpenAPI document and the scope tests read them). The embedded server mounts every
 * function's `app.ts` in this order, the deploy script runs one `wrangler deploy` per entry, and
 * the Workers routes are generated from `prefixes`. More specific prefixes come first; `fallback`
 * owns every unrouted `/api/*` path. A new route under a listed prefix changes nothing here.
 */
export interface FunctionSpec {
  name: string;
  /** the prefixes routed to this function: its rules' prefixes, but those under another of them */
  prefixes: readonly string[];
  access: readonly AccessRule[];
}

// The rules' forms, so each line below reads as the spec's tables do.
const api = (prefix: string, read: Scope, write: Scope, extra?: ScopeExtra[]): AccessRule =>
  extra ? { prefix, surface: 'api', read, write, extra } : { prefix, surface: 'api', read, write };
type ScopeExtra = { methods: HttpMethod[]; path?: string; scopes: Scope[] };
const dashboard = (prefix: string): AccessRule => ({ prefix, surface: 'dashboard' });
const internal = (prefix: string): AccessRule => ({ prefix, surface: 'internal' });
const open = (prefix: string, keyMethods?: HttpMethod[]): AccessRule =>
  keyMethods ? { prefix, surface: 'public', keyMethods } : { prefix, surface: 'public' };
// Reads that expose secrets or tenant-wide settings need the matching :write scope too (spec
// rule 2: "many config and billing reads also need the matching :write scope").
const READS: HttpMethod[] = ['GET', 'HEAD'];
const config = (prefix: string, writeToRead = false) =>
  api(
    prefix,
    'config:read',
    'config:write',
    writeToRead ? [{ methods: READS, scopes: ['config:write'] }] : undefined,
  );

const MANIFEST: readonly { name: string; access: readonly AccessRule[] }[] = [
  { name: 'health', access: [open('/api/v2/health', READS)] },
  { name: 'tenants', access: [dashboard('/api/v1/tenants')] },
  // no credential needed; API keys get 403, a session token sent is read
  { name: 'auth', access: [{ prefix: '/api/v1/auth', surface: 'sign_in' }] },
  { name: 'api-keys', access: [dashboard('/api/v1/api-keys')] },
  // search reads tickets (a key's tickets:read) and, on the dashboard, every searchable type
  {
    name: 'search',
    access: [api('/api/v1/tickets/search', 'tickets:read', 'tickets:write'), dashboard('/api/v2/search')],
  },
  { name: 'tickets', access: [api('/api/v1/tickets', 'tickets:read', 'tickets:write')] },
  {
    name: 'calls',
    access: [
      api('/api/v1/calls', 'calls:read', 'calls:write'),
      internal('/api/internal/calls'),
      api('/api/v1/voice-widget', 'config:read', 'config:write', [
        { methods: ['POST'], path: '/api/v1/voice-widget/token', scopes: ['calls:write'] },
      ]),
    ],
  },
  {
    name: 'webhooks',
    access: [
      api('/api/v1/webhooks', 'webhooks:read', 'webhooks:write', [
        { methods: ['DELETE'], path: '/api/v1/webhooks/:id', scopes: ['webhooks:delete'] },
      ]),
      dashboard('/api/v2/webhooks'),
      internal('/api/internal/webhooks'),
      // QStash's signed callbacks: verified by the handler itself
      { prefix: '/api/internal/webhooks/qstash', surface: 'signed' },
    ],
  },
  {
    name: 'conversations',
    access: [
      api('/api/v1/conversations', 'conversations:read', 'conversations:write', [
        {
          methods: ['POST'],
          path: '/api/v1/conversations/:id/export',
          scopes: ['conversations:export', 'conversations:read'],
        },
      ]),
      dashboard('/api/v2/conversations'),
      open('/api/v1/widget'),
      internal('/api/internal/channels'),
    ],
  },
  {
    name: 'contacts',
    access: [dashboard('/api/v2/contacts'), dashboard('/api/v2/companies'), dashboard('/api/sync')],
  },
  { name: 'kb', access: [dashboard('/api/kb'), dashboard('/api/v2/kb'), open('/api/v1/help-center')] },
  {
    name: 'usage',
    access: [api('/api/v1/usage', 'usage:read', 'usage:write'), internal('/api/internal/usage')],
  },
  {
    name: 'billing',
    access: [
      api('/api/v1/billing', 'billing:read', 'billing:write', [
        { methods: READS, path: '/api/v1/billing/payment-settings*', scopes: ['billing:write'] },
      ]),
    ],
  },
  {
    name: 'directory',
    access: [
      api('/api/v1/requesters', 'users:read', 'users:write'),
      // reading the team or changing anyone's role (creating, editing, removing a user) needs roles:write
      api('/api/v1/tenant/users', 'users:read', 'users:write', [
        { methods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'], scopes: ['roles:write'] },
      ]),
      // pending invitations: the same scopes as the users they become
      api('/api/v1/tenant/invitations', 'users:read', 'users:write', [
        { methods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'], scopes: ['roles:write'] },
      ]),
    ],
  },
  {
    name: 'exports',
    access: [
      api('/api/v1/tenant/exports', 'exports:read', 'exports:write', [
        { methods: ['GET', 'HEAD', 'POST'], scopes: ['config:write'] },
      ]),
    ],
  },
  {
    name: 'config',
    access: [
      config('/api/v1/config'),
      config('/api/v1/configuration'),
      config('/api/v1/integrations', true),
      config('/api/v1/telephony', true),
      config('/api/v1/onboarding'),
      config('/api/v1/tenant'),
    ],
  },
  // end-user sign-in needs no credential; the rest of the end-user API takes the end user's JWT
  { name: 'end-user', access: [{ prefix: '/api/v1/app', surface: 'end_user' }, open('/api/v1/app/auth')] },
  { name: 'audit', access: [dashboard('/api/v2/audit-log')] },
  // signed download links (docs/files.md): no credential, the link's signature is one
  { name: 'files', access: [open('/api/v1/files')] },
  {
    name: 'sla',
    access: [
      dashboard('/api/v2/business-hours'),
      dashboard('/api/v2/sla-policies'),
      // the breach check's QStash callbacks (Workers): verified by the handler itself
      { prefix: '/api/internal/sla/qstash', surface: 'signed' },
    ],
  },
  {
    name: 'helpdesk',
    access: [
      dashboard('/api/v2/teams'),
      dashboard('/api/v2/saved-replies'),
      dashboard('/api/v2/ticket-fields'),
    ],
  },
  // `/` is the exact root path (scripts/edge/config.ts), not a catch-all
  {
    name: 'docs',
    access: [
      open('/api/v1/openapi.json', READS),
      internal('/api/internal/openapi.json'),
      open('/docs'),
      open('/openapi.json'),
      open('/'),
    ],
  },
  // the console's page and files (its data comes from the API with the dashboard session)
  { name: 'console', access: [open('/console')] },
  // every /api path no function owns is dashboard-session only, which is how every /api/v2 path
  // refuses API keys (spec rule 6); /api/internal takes the internal token
  { name: 'fallback', access: [dashboard('/api'), internal('/api/internal')] },
];

const under = (path: string, prefix: string) => path.startsWith(`${prefix}/`);

export const FUNCTIONS: readonly FunctionSpec[] = MANIFEST.map(({ name, access }) => ({
  name,
  prefixes: access.map((r) => r.prefix).filter((p, _, all) => !all.some((q) => q !== '/' && under(p, q))),
  access,
}));

/** Every function's access rules: what the gate of the embedded server (and of each Worker) reads. */
export const ACCESS_RULES: readonly AccessRule[] = FUNCTIONS.flatMap((f) => f.access);
