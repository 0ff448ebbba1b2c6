import { Hono } from 'hono';
import type { AppEnv } from '../../shared/context/app-env';
import { Detail } from '../../shared/http/errors';
import { contentSecurityPolicy, htmlSecurity } from '../../shared/http/html-security';
import type { Audience, OpenApiDocument } from '../../shared/http/openapi-doc';
import { type Representation, representation, sendRepresentation } from '../../shared/http/representation';
import { register } from '../../shared/http/route';
import { DOCS_ASSETS, readNodeAsset } from './assets';
import { DOCS_INIT_SCRIPT, DOCS_PAGE, REFERENCE_CSS, REFERENCE_SCRIPT } from './page';
import { type ReferencePageParts, referenceLayout } from './reference-layout';
import * as routes from './routes';

/**
 * Where the site's two documents come from: built from the route registry on first use
 * (./document.ts, the embedded server), or built ahead by the Worker's build and embedded
 * (./worker.ts): evaluating every function's schemas was most of the docs Worker's startup.
 */
export type Documents = (audience: Audience) => OpenApiDocument;

/**
 * The document as served: its server is the absolute origin it was fetched from (what Swagger UI's
 * "Try it out" and generated clients call), not a relative `/` the linters rightly flag.
 */
const served = (documents: Documents, audience: Audience, url: string): OpenApiDocument => ({
  ...documents(audience),
  servers: [
    { url: new URL(url).origin, description: 'This deployment (where the document was served from)' },
  ],
});

interface AssetsBinding {
  fetch(request: Request): Promise<Response>;
}

/** /docs is plain HTML with one stylesheet, one script and an icon of its own: nothing inline at all. */
export const REFERENCE_CSP = contentSecurityPolicy({
  'style-src': "'self'",
  'img-src': "'self'",
  'connect-src': "'self'",
});
/**
 * Swagger UI (/docs/try) runs from same-origin files only; it styles its own elements inline
 * (style-src 'unsafe-inline': style, not script) and draws its icons from data: URIs.
 */
export const DOCS_CSP = contentSecurityPolicy({
  'style-src': "'self' 'unsafe-inline'",
  'img-src': "'self' data:",
  'font-src': "'self' data:",
  'connect-src': "'self'",
});
/** Where a newcomer lands first (`/`): what to read, as a small JSON pointer (curl-friendly). */
export const ROOT_POINTER = {
  name: 'Support Platform API',
  docs: '/docs',
  openapi: '/api/v1/openapi.json',
  health: '/api/v2/health',
} as const;

const JS = 'text/javascript; charset=utf-8';
/** Cache-Control of a file whose address carries its content hash (`?v=`): a year, never revalidated. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Cache-Control of the pages and the document: five minutes, then revalidated by ETag (a 304). */
const REVALIDATED = 'public, max-age=300';

/**
 * The fixed bodies of this function, built on first use per isolate/process: the reference page's
 * files, and the page and the document per address they show (the document names the origin it was
 * served from; the page PUBLIC_BASE_URL when set), one set per app. Few origins reach one deployment; the map is
 * cleared should a flood of Host headers grow it.
 */
function bodies() {
  const built = new Map<string, Promise<Representation>>();
  function once(key: string, make: () => Promise<Representation>): Promise<Representation> {
    let rep = built.get(key);
    if (!rep) {
      if (built.size > 32) built.clear();
      rep = make();
      built.set(key, rep);
    }
    return rep;
  }
  const files = {
    'docs.css': () => once('docs.css', () => representation(REFERENCE_CSS, 'text/css; charset=utf-8')),
    'docs.js': () => once('docs.js', () => representation(REFERENCE_SCRIPT, JS)),
    'docs-init.js': () => once('docs-init.js', () => representation(DOCS_INIT_SCRIPT, JS)),
  } as const;
  return { once, files };
}

/** The reference page's content rendered from the public document (./reference-page.ts). */
export type ReferenceParts = () => ReferencePageParts;

/** The docs function's routes over its documents and page (./app.ts and ./worker.ts say where from). */
export function createDocsApp(documents: Documents, referenceParts: ReferenceParts): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('/docs', htmlSecurity(REFERENCE_CSP));
  app.use('/docs/*', htmlSecurity(DOCS_CSP));

  register(app, routes.getRoot, (c) => c.json(ROOT_POINTER));

  /** The usual guess for a service's document: permanently at /api/v1/openapi.json (308 keeps the method). */
  register(app, routes.redirectToOpenApi, (c) => c.redirect(ROOT_POINTER.openapi, 308));

  const { once, files } = bodies();

  /** GET /api/v1/openapi.json: public (shared/auth/access.ts). */
  register(app, routes.getOpenApi, async (c) => {
    const origin = new URL(c.req.url).origin;
    const rep = await once(`public ${origin}`, () =>
      representation(JSON.stringify(served(documents, 'public', c.req.url)), 'application/json'),
    );
    return sendRepresentation(c.req.raw, rep, REVALIDATED, { 'Access-Control-Allow-Origin': '*' });
  });

  /** GET /api/internal/openapi.json: the internal routes, to the internal token only (the gate). */
  register(app, routes.getInternalOpenApi, async (c) => {
    const origin = new URL(c.req.url).origin;
    const rep = await once(`internal ${origin}`, () =>
      representation(JSON.stringify(served(documents, 'internal', c.req.url)), 'application/json'),
    );
    return sendRepresentation(c.req.raw, rep, 'private, max-age=300');
  });

  /** GET /docs: the API reference page (functions/docs/reference-page.ts). */
  register(app, routes.getDocsPage, async (c) => {
    const baseUrl = c.get('services')?.config.PUBLIC_BASE_URL || undefined;
    const rep = await once(`page ${baseUrl ?? ''}`, async () => {
      const [css, script] = await Promise.all([files['docs.css'](), files['docs.js']()]);
      const html = referenceLayout(referenceParts(), {
        baseUrl,
        css: `/docs/assets/docs.css?v=${css.hash}`,
        script: `/docs/assets/docs.js?v=${script.hash}`,
      });
      return representation(html, 'text/html; charset=utf-8');
    });
    return sendRepresentation(c.req.raw, rep, REVALIDATED);
  });

  /** GET /docs/try: Swagger UI over the same document, for sending requests from the browser. */
  register(app, routes.getDocsTryPage, async (c) => {
    const rep = await once('try', () => representation(DOCS_PAGE, 'text/html; charset=utf-8'));
    return sendRepresentation(c.req.raw, rep, REVALIDATED);
  });

  register(app, routes.redirectDocsSlash, (c) => c.redirect('/docs', 308));

  /**
   * GET /docs/assets/{file} (routes.getDocsAsset): the reference page's own files from this code;
   * Swagger UI's from Workers static assets (ASSETS binding, which sends them compressed, with ETags)
   * on the edge, from node_modules locally. Served without `register`: its declared `file` enum
   * would answer an unknown name 422, where this route answers 404 like any missing file.
   */
  app.get('/docs/assets/:file', async (c) => {
    const file = c.req.param('file');
    // own keys only: `toString` or `__proto__` would find Object.prototype's and read a missing file (500)
    if (Object.hasOwn(files, file)) {
      const rep = await files[file as keyof typeof files]();
      // an address with the current hash is cached for good; any other gets the current file, briefly
      const current = c.req.query('v') === rep.hash;
      return sendRepresentation(c.req.raw, rep, current ? IMMUTABLE : REVALIDATED);
    }
    const type = Object.hasOwn(DOCS_ASSETS, file) ? DOCS_ASSETS[file] : undefined;
    if (!type) return c.json({ detail: Detail.notFound }, 404);
    const assets = (c.env as { ASSETS?: AssetsBinding } | undefined)?.ASSETS;
    if (assets && typeof assets.fetch === 'function') return assets.fetch(c.req.raw);
    const bytes = readNodeAsset(file);
    if (!bytes) return c.json({ detail: Detail.notFound }, 404);
    const rep = await once(`asset ${file}`, async () => representation(bytes, type));
    return sendRepresentation(c.req.raw, rep, 'public, max-age=86400');
  });
  return app;
}
