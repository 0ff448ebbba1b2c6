import * as z from 'zod';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';

const Health = z.object({
  status: z.enum(['ok', 'degraded']),
  runtime: z.enum(['node', 'edge']).describe('where the answering function runs'),
  database: z.object({
    status: z.enum(['ok', 'unavailable']),
    latency_ms: z.number().optional(),
    error: z.string().optional(),
  }),
  time: z.string(),
});

export const getHealth = defineRoute({
  operationId: 'getHealth',
  method: 'get',
  path: '/api/v2/health',
  summary: 'Health of the API and its database',
  description: 'No credential. 503 with status `degraded` when the database is unreachable.',
  tags: ['Health'],
  responses: {
    200: {
      description: 'The API and its database answer',
      schema: Health,
      example: {
        status: 'ok',
        runtime: 'edge',
        database: { status: 'ok', latency_ms: 3.2 },
        time: '2026-03-14T09:26:53.412Z',
      },
    },
    503: {
      description: 'The database is unreachable',
      schema: Health,
      example: {
        status: 'degraded',
        runtime: 'edge',
        database: { status: 'unavailable', error: 'connection refused' },
        time: '2026-03-14T09:26:53.412Z',
      },
    },
  },
});

export const components = defineComponents({
  output: { Health },
});
