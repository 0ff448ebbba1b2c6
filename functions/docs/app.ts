import { Hono } from 'hono';
import type { AppEnv } from '../../shared/context/app-env';
import { Detail } from '../../shared/http/errors';
import { contentSecurityPolicy, htmlSecurity } from '../../shared/http/html-security';
import { register } from '../../shared/http/route';
import { DOCS_ASSETS, readNodeAsset } from './assets';
import { openApiDocument, servedDocument } from './document';
import { DOCS_INIT_SCRIPT, DOCS_PAGE } from './page';
import * as routes from './routes';

export { openApiDocument };

interface AssetsBinding {
  fetch(request: Request): Promise<Response>;
}

export const app = new Hono<AppEnv>();

/**
 * Swagger UI runs from same-origin files only; it styles its own elements inline (style-src
 * 'unsafe-inline': style, not script) and draws its icons from data: URIs.
 */
export const DOCS_CSP = contentSecurityPolicy({
  'style-src': "'self' 'unsafe-inline'",
  'img-src': "'self' data:",
  'font-src': "'self' data:",
  'connect-src': "'self'",
});
const docsSecurityHeaders = htmlSecurity(DOCS_CSP);
app.use('/docs', docsSecurityHeaders);
app.use('/docs/*', docsSecurityHeaders);

/** Where a newcomer lands first (`/`): what to read, as a small JSON pointer (curl-friendly). */
export const ROOT_POINTER = {
  name: 'Support Platform API',
  docs: '/docs',
  openapi: '/api/v1/openapi.json',
  health: '/api/v2/health',
} as const;

register(app, routes.getRoot, (c) => c.json(ROOT_POINTER));

/** The usual guess for a service's document: permanently at /api/v1/openapi.json (308 keeps the method). */
register(app, routes.redirectToOpenApi, (c) => c.redirect(ROOT_POINTER.openapi, 308));

/** GET /api/v1/openapi.json: public (shared/auth/access.ts). */
register(app, routes.getOpenApi, (c) => {
  c.header('Cache-Control', 'public, max-age=300');
  c.header('Access-Control-Allow-Origin', '*');
  return c.json(servedDocument('public', c.req.url));
});

/** GET /api/internal/openapi.json: the internal routes, to the internal token only (the gate). */
register(app, routes.getInternalOpenApi, (c) => {
  c.header('Cache-Control', 'private, max-age=300');
  return c.json(servedDocument('internal', c.req.url));
});

/** GET /docs: the API reference page. */
register(app, routes.getDocsPage, (c) => {
  c.header('Cache-Control', 'public, max-age=300');
  return c.html(DOCS_PAGE);
});

register(app, routes.redirectDocsSlash, (c) => c.redirect('/docs', 308));

/**
 * GET /docs/assets/{file} (routes.getDocsAsset): Workers static assets (ASSETS binding) on the edge,
 * node_modules locally. Served without `register`: its declared `file` enum would answer an unknown
 * name 422, where this route answers 404 like any missing file.
 */
app.get('/docs/assets/:file', async (c) => {
  const file = c.req.param('file');
  if (file === 'docs-init.js')
    return c.body(DOCS_INIT_SCRIPT, 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=300',
    });
  // own keys only: `toString` or `__proto__` would find Object.prototype's and read a missing file (500)
  const type = Object.hasOwn(DOCS_ASSETS, file) ? DOCS_ASSETS[file] : undefined;
  if (!type) return c.json({ detail: Detail.notFound }, 404);
  const assets = (c.env as { ASSETS?: AssetsBinding } | undefined)?.ASSETS;
  if (assets && typeof assets.fetch === 'function') return assets.fetch(c.req.raw);
  const bytes = readNodeAsset(file);
  if (!bytes) return c.json({ detail: Detail.notFound }, 404);
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
    'Content-Type': type,
    'Cache-Control': 'public, max-age=86400',
  });
});
