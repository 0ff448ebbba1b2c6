import * as z from 'zod';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import { CreateExportBody, ExportIdParam, ExportJob, ListExportsQuery } from './schemas';

const tags = ['Exports'];

export const createExport = defineRoute({
  operationId: 'createTenantExport',
  method: 'post',
  path: '/api/v1/tenant/exports',
  access: { role: 'tenant_admin' },
  summary: 'Create an export',
  description:
    'Exports tickets, calls, contacts, conversations or usage as CSV or JSON, optionally for a created_at range. Runs synchronously (at most 10 000 rows; more fails the job with a reason): the response is the finished job with its download_url. Needs exports:write and config:write.',
  tags,
  body: CreateExportBody,
  responses: { 201: { description: 'The finished (completed or failed) job', schema: ExportJob } },
});

export const listExports = defineRoute({
  operationId: 'listTenantExports',
  method: 'get',
  path: '/api/v1/tenant/exports',
  access: { role: 'tenant_admin' },
  summary: 'List exports',
  description: 'Newest first. Needs exports:read and config:write.',
  tags,
  query: ListExportsQuery,
  responses: {
    200: {
      description: 'A page of export jobs',
      schema: z.object({
        exports: z.array(ExportJob),
        total: z.number(),
        limit: z.number(),
        offset: z.number(),
      }),
    },
  },
});

export const getExport = defineRoute({
  operationId: 'getTenantExport',
  description:
    'The state of a tenant data export: `pending`, `completed` (with its download address) or `failed`.',
  method: 'get',
  path: '/api/v1/tenant/exports/{id}',
  access: { role: 'tenant_admin' },
  summary: 'One export',
  tags,
  params: ExportIdParam,
  responses: {
    200: { description: 'The job', schema: ExportJob },
    404: { description: 'Export not found' },
  },
});

export const downloadExport = defineRoute({
  operationId: 'downloadTenantExport',
  method: 'get',
  path: '/api/v1/tenant/exports/{id}/download',
  access: { role: 'tenant_admin' },
  summary: 'Download an export file',
  description: 'text/csv or application/json, as an attachment. 404 while the job is not completed.',
  tags,
  params: ExportIdParam,
  responses: {
    200: { description: 'The file', mediaTypes: ['text/csv', 'application/json'] },
    404: { description: 'Export or file not found' },
  },
});

export const components = defineComponents({
  output: { Export: ExportJob },
  input: { ExportCreate: CreateExportBody },
});
