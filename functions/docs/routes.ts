import * as z from 'zod';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import { DOCS_ASSETS } from './assets';

/** The document's outline (loose: it has more, e.g. info.description); the full schema is OpenAPI 3.1's own. */
const OpenApiDocument = z
  .object({ openapi: z.string(), info: z.object({ title: z.string(), version: z.string() }).loose() })
  .loose();

/** `GET /`: where to start. */
const RootLinks = z.object({ name: z.string(), docs: z.string(), openapi: z.string(), health: z.string() });

export const getRoot = defineRoute({
  operationId: 'getRoot',
  method: 'get',
  path: '/',
  summary: 'Where to start',
  description: 'No credential. Points to the reference page, this document and the health check.',
  tags: ['Documentation'],
  responses: {
    200: {
      description: 'Links',
      schema: RootLinks,
    },
  },
});

export const redirectToOpenApi = defineRoute({
  operationId: 'redirectToOpenApi',
  method: 'get',
  path: '/openapi.json',
  summary: 'Redirect to /api/v1/openapi.json',
  undocumented: 'a 308 for tools that guess the root address; the document is at /api/v1/openapi.json',
  description: 'No credential. 308 to the document, for tools that look for it at the root.',
  tags: ['Documentation'],
  responses: { 308: { description: 'Location: /api/v1/openapi.json' } },
});

export const getOpenApi = defineRoute({
  operationId: 'getOpenApiDocument',
  method: 'get',
  path: '/api/v1/openapi.json',
  summary: 'This OpenAPI 3.1 document',
  description: 'No credential. Generated from the same zod schemas that validate the requests.',
  tags: ['Documentation'],
  responses: {
    200: {
      description: 'The OpenAPI document',
      schema: OpenApiDocument,
    },
  },
});

export const getInternalOpenApi = defineRoute({
  operationId: 'getInternalOpenApiDocument',
  method: 'get',
  path: '/api/internal/openapi.json',
  summary: 'The internal OpenAPI 3.1 document',
  description:
    'The routes of the platform’s own services (internal token) and the QStash callback, which the public document leaves out.',
  tags: ['Documentation'],
  responses: {
    200: {
      description: 'The internal OpenAPI document',
      schema: OpenApiDocument,
    },
  },
});

export const getDocsPage = defineRoute({
  operationId: 'getDocsPage',
  undocumented: 'an HTML page for a browser, not an operation an API client calls',
  method: 'get',
  path: '/docs',
  summary: 'API reference page',
  description:
    'No credential. This document rendered as one HTML page (its stylesheet and script are served from /docs/assets/*); /docs/try is Swagger UI, for sending requests from the browser.',
  tags: ['Documentation'],
  responses: { 200: { description: 'HTML page', mediaTypes: ['text/html'] } },
});

export const getDocsTryPage = defineRoute({
  operationId: 'getDocsTryPage',
  method: 'get',
  path: '/docs/try',
  summary: 'Swagger UI over this document',
  undocumented: 'an HTML page for people, linked from /docs; not an operation for a client',
  description: 'No credential. Swagger UI rendering /api/v1/openapi.json, to send requests from the browser.',
  tags: ['Documentation'],
  responses: { 200: { description: 'HTML page', mediaTypes: ['text/html'] } },
});

export const redirectDocsSlash = defineRoute({
  operationId: 'redirectDocsSlash',
  method: 'get',
  path: '/docs/',
  summary: 'Redirect to /docs',
  undocumented: 'a 308 for the address typed with a trailing slash; the page is /docs',
  description: 'No credential. 308 to the reference page, for the address typed with a trailing slash.',
  tags: ['Documentation'],
  responses: { 308: { description: 'Location: /docs' } },
});

export const getDocsAsset = defineRoute({
  operationId: 'getDocsAsset',
  undocumented: 'a static file of a browser page, not an operation an API client calls',
  method: 'get',
  path: '/docs/assets/{file}',
  summary: 'Static files of the reference page',
  description: `No credential. One of: ${Object.keys(DOCS_ASSETS).join(', ')}.`,
  tags: ['Documentation'],
  params: z.object({ file: z.enum(Object.keys(DOCS_ASSETS) as [string, ...string[]]) }),
  responses: {
    200: { description: 'The file', mediaTypes: ['text/javascript', 'text/css', 'image/png'] },
    404: { description: 'No such file' },
  },
});

export const components = defineComponents({ output: { OpenApiDocument, RootLinks } });
