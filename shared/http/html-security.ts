/**
 * The headers of the HTML surfaces (/console, /docs): a Content-Security-Policy that runs no inline
 * or foreign script and forbids framing, no MIME sniffing, no Referer. The API's origin serves both
 * pages beside the JSON API, so an injected script there, or a page framing them (clickjacking),
 * would act with whatever the page holds; and the console's invite and reset links carry a token in
 * the address, which no Referer may carry onwards.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context/app-env';
import { NOSNIFF } from './response-headers';

/** What every HTML surface's policy has, whatever else it allows. */
const BASE_POLICY = {
  'default-src': "'none'",
  'script-src': "'self'",
  'base-uri': "'none'",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
} as const;

/**
 * The policy string: the base, then `extra` directives (style-src, img-src, connect-src…). The
 * base's own directives win: no page may widen script-src or frame-ancestors.
 */
export function contentSecurityPolicy(extra: Record<string, string>): string {
  const directives: Record<string, string> = { ...BASE_POLICY };
  for (const [name, value] of Object.entries(extra)) if (!(name in BASE_POLICY)) directives[name] = value;
  return Object.entries(directives)
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');
}

export function htmlSecurityHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    // for browsers older than frame-ancestors
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': NOSNIFF,
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}

/** Middleware setting those headers on every answer under it, refusals included. */
export function htmlSecurity(csp: string): MiddlewareHandler<AppEnv> {
  const headers = Object.entries(htmlSecurityHeaders(csp));
  return async function htmlSecurity(c, next) {
    await next();
    for (const [name, value] of headers) c.header(name, value);
  };
}
