import { type Context, Hono } from 'hono';
import type { AppEnv } from '../../shared/context/app-env';
import { Detail } from '../../shared/http/errors';
import { contentSecurityPolicy, htmlSecurity } from '../../shared/http/html-security';
import { register } from '../../shared/http/route';
import { CONSOLE_CSS, CONSOLE_JS, CONSOLE_VERSION } from './assets.gen';
import { CONSOLE_FILE_TYPES, type ConsoleFile } from './files';
import { CONSOLE_PAGE } from './page';
import * as routes from './routes';

/**
 * The console: static files only. Every piece of data comes from the public endpoints, called by
 * the browser with the dashboard session (functions/console/ui/session.ts); nothing here reads the
 * database or a credential.
 */
export const app = new Hono<AppEnv>();

/**
 * Same-origin script, style and fetch only; no inline code, no framing, no plugins. Injected markup
 * can neither run script nor send data elsewhere, which is what keeps the session's tokens (memory
 * and sessionStorage) out of reach.
 */
export const CONSOLE_CSP = contentSecurityPolicy({
  'style-src': "'self'",
  'img-src': "'self' data:",
  'connect-src': "'self'",
});

const BODIES: Record<ConsoleFile, string> = { 'console.js': CONSOLE_JS, 'console.css': CONSOLE_CSS };

// invitation and reset links carry a token in the address: no Referer carries it onwards
const consoleSecurityHeaders = htmlSecurity(CONSOLE_CSP);
app.use('/console', consoleSecurityHeaders);
app.use('/console/*', consoleSecurityHeaders);

/**
 * The files (routes.getConsoleAsset), long-cached when the request names the current version (the
 * page always does). Served without `register`: its declared `file` enum would answer an unknown
 * name 422, where this route answers 404 like any missing file.
 */
app.get('/console/assets/:file', (c) => {
  const file = c.req.param('file');
  if (!Object.hasOwn(BODIES, file)) return c.json({ detail: Detail.notFound }, 404);
  const immutable = c.req.query('v') === CONSOLE_VERSION;
  return c.body(BODIES[file as ConsoleFile], 200, {
    'Content-Type': CONSOLE_FILE_TYPES[file as ConsoleFile],
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
});

/** The page, for /console and every client-side route under it (/console/keys, /console/webhooks/…). */
const page = async (c: Context<AppEnv>) => {
  c.header('Cache-Control', 'no-cache');
  return c.html(CONSOLE_PAGE);
};
register(app, routes.getConsolePage, page);
// the client-side routes: a wildcard, which no OpenAPI path (nor so `register`) expresses
app.get('/console/*', page);
