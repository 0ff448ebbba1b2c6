import { z } from 'zod';
import { defineRoutes } from '../../shared/http/openapi';
import { DOCS_ASSETS } from './assets';

export const routes = defineRoutes([
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    description: 'No credential. Generated from the same zod schemas that validate the requests.',
    tags: ['Documentation'],
    responses: {
      200: {
        description: 'The OpenAPI document',
        schema: z
          // loose: the document has more than these (info.description, paths, components...)
          .object({ openapi: z.string(), info: z.object({ title: z.string(), version: z.string() }).loose() })
          .loose(),
      },
    },
  },
  {
    method: 'get',
    path: '/docs',
    summary: 'API reference page (Swagger UI)',
    description:
      'No credential. An HTML page rendering /api/v1/openapi.json; its scripts and styles are served from /docs/assets/*.',
    tags: ['Documentation'],
    responses: { 200: { description: 'HTML page' } },
  },
  {
    method: 'get',
    path: '/docs/assets/{file}',
    summary: 'Static files of the reference page',
    description: `No credential. One of: ${Object.keys(DOCS_ASSETS).join(', ')}.`,
    tags: ['Documentation'],
    params: z.object({ file: z.enum(Object.keys(DOCS_ASSETS) as [string, ...string[]]) }),
    responses: { 200: { description: 'The file' }, 404: { description: 'No such file' } },
  },
]);
