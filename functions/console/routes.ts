import * as z from 'zod';
import { defineRoute } from '../../shared/http/route';
import { CONSOLE_FILE_TYPES } from './files';

export const getConsolePage = defineRoute({
  operationId: 'getConsolePage',
  undocumented: 'an HTML page for a browser, not an operation an API client calls',
  method: 'get',
  path: '/console',
  summary: 'The tenant console (browser app)',
  description:
    'No credential. The HTML page of the console; it signs in through /api/v1/auth and calls the public endpoints with the dashboard session. Every /console/* path answers with the same page (client-side routes).',
  tags: ['Console'],
  responses: { 200: { description: 'HTML page', mediaTypes: ['text/html'] } },
});

export const getConsoleAsset = defineRoute({
  operationId: 'getConsoleAsset',
  undocumented: 'a static file of a browser page, not an operation an API client calls',
  method: 'get',
  path: '/console/assets/{file}',
  summary: 'Static files of the console',
  description: `No credential. One of: ${Object.keys(CONSOLE_FILE_TYPES).join(', ')}.`,
  tags: ['Console'],
  params: z.object({ file: z.enum(Object.keys(CONSOLE_FILE_TYPES) as [string, ...string[]]) }),
  responses: {
    200: { description: 'The file', mediaTypes: ['text/javascript', 'text/css'] },
    404: { description: 'No such file' },
  },
});
