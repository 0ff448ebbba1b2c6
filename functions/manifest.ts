import { CONFIG_PREFIXES } from '../shared/auth/scopes';

/**
 * The functions manifest: each route group, deployed as its own Worker, and the path prefixes it
 * owns. The embedded server mounts every function's `app.ts` in this order, the deploy script runs
 * one `wrangler deploy` per entry, and the Workers routes are generated from `prefixes`.
 * More specific prefixes come first; `fallback` owns every unrouted `/api/*` path.
 */
export interface FunctionSpec {
  name: string;
  prefixes: readonly string[];
}

export const FUNCTIONS: readonly FunctionSpec[] = [
  { name: 'health', prefixes: ['/api/v2/health'] },
  { name: 'tenants', prefixes: ['/api/v1/tenants'] },
  { name: 'auth', prefixes: ['/api/v1/auth'] },
  { name: 'api-keys', prefixes: ['/api/v1/api-keys'] },
  { name: 'tickets', prefixes: ['/api/v1/tickets'] },
  { name: 'calls', prefixes: ['/api/v1/calls', '/api/internal/calls', '/api/v1/voice-widget'] },
  { name: 'webhooks', prefixes: ['/api/v1/webhooks', '/api/v2/webhooks', '/api/internal/webhooks'] },
  {
    name: 'conversations',
    prefixes: ['/api/v1/conversations', '/api/v2/conversations', '/api/v1/widget', '/api/internal/channels'],
  },
  { name: 'contacts', prefixes: ['/api/v2/contacts', '/api/v2/companies', '/api/sync'] },
  { name: 'kb', prefixes: ['/api/kb', '/api/v2/kb', '/api/v1/help-center'] },
  { name: 'usage', prefixes: ['/api/v1/usage', '/api/internal/usage'] },
  { name: 'billing', prefixes: ['/api/v1/billing'] },
  { name: 'directory', prefixes: ['/api/v1/requesters', '/api/v1/tenant/users'] },
  { name: 'exports', prefixes: ['/api/v1/tenant/exports'] },
  { name: 'config', prefixes: CONFIG_PREFIXES },
  { name: 'end-user', prefixes: ['/api/v1/app'] },
  { name: 'audit', prefixes: ['/api/v2/audit-log'] },
  // `/` is the exact root path (scripts/edge/config.ts), not a catch-all
  {
    name: 'docs',
    prefixes: ['/api/v1/openapi.json', '/api/internal/openapi.json', '/docs', '/openapi.json', '/'],
  },
  { name: 'console', prefixes: ['/console'] },
  { name: 'fallback', prefixes: ['/api'] },
];
