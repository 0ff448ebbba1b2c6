import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { underPrefix } from './paths';

/**
 * The surfaces a browser calls from customers' sites: the chat widget, help-center reads and the
 * end-user app API. Only these answer preflights and carry CORS headers; every other route (API
 * keys, dashboard sessions, internal) is server-to-server and gets none, so a browser page on
 * another origin cannot read it.
 */
export const BROWSER_PREFIXES: readonly string[] = ['/api/v1/widget', '/api/v1/help-center', '/api/v1/app'];

export function isBrowserPath(path: string): boolean {
  for (const prefix of BROWSER_PREFIXES) if (underPrefix(path, prefix)) return true;
  return false;
}

/** What a browser may read from an answer besides the CORS-safelisted headers. */
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Location',
];

/**
 * The CORS middleware of the browser surfaces, for `CORS_ALLOWED_ORIGINS` (`*` or exact origins).
 * It answers a preflight (OPTIONS, no credential) itself with 204, so it runs before the auth gate;
 * a refused origin gets no Access-Control-Allow-Origin and the browser blocks the call. Credentials
 * travel as Authorization headers, never cookies, hence no Allow-Credentials.
 */
export function browserCors(origins: '*' | readonly string[]): MiddlewareHandler {
  return cors({
    origin: origins === '*' ? '*' : [...origins],
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}
