import { Hono } from 'hono';
import { buildOpenApiDocument, type OpenApiDocument } from '../../shared/http/openapi-doc';
import type { AppEnv } from '../../shared/runtime/app-env';
import { DOCS_ASSETS, readNodeAsset } from './assets';
import { DOCS_PAGE } from './page';
import { DOC_SOURCES } from './registry';

/** Built once per isolate/process, on first request (the zod -> JSON Schema pass takes a few ms). */
let document: OpenApiDocument | null = null;
export const openApiDocument = () => {
  document ??= buildOpenApiDocument(DOC_SOURCES);
  return document;
};

interface AssetsBinding {
  fetch(request: Request): Promise<Response>;
}

export const app = new Hono<AppEnv>();

/** GET /api/v1/openapi.json: public (shared/auth/access.ts). */
app.get('/api/v1/openapi.json', (c) => {
  c.header('Cache-Control', 'public, max-age=300');
  c.header('Access-Control-Allow-Origin', '*');
  return c.json(openApiDocument());
});

/** GET /docs: the API reference page. */
app.get('/docs', (c) => {
  c.header('Cache-Control', 'public, max-age=300');
  return c.html(DOCS_PAGE);
});

/** GET /docs/assets/{file}: Workers static assets (ASSETS binding) on the edge, node_modules locally. */
app.get('/docs/assets/:file', async (c) => {
  const file = c.req.param('file');
  // own keys only: `toString` or `__proto__` would find Object.prototype's and read a missing file (500)
  const type = Object.hasOwn(DOCS_ASSETS, file) ? DOCS_ASSETS[file] : undefined;
  if (!type) return c.json({ detail: 'Not Found' }, 404);
  const assets = (c.env as { ASSETS?: AssetsBinding } | undefined)?.ASSETS;
  if (assets && typeof assets.fetch === 'function') return assets.fetch(c.req.raw);
  const bytes = readNodeAsset(file);
  if (!bytes) return c.json({ detail: 'Not Found' }, 404);
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
    'Content-Type': type,
    'Cache-Control': 'public, max-age=86400',
  });
});
