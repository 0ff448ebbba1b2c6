import { defineRoutes } from '../../shared/http/openapi';
import {
  DetailsQuery,
  DetailsResponse,
  ReportBody,
  ReportResponse,
  SummaryQuery,
  SummaryResponse,
} from './schemas';

export const routes = defineRoutes([
  {
    method: 'get',
    path: '/api/v1/usage/summary',
    summary: 'Usage of a period against the plan quota',
    description:
      'Totals of the billing period (calendar month, UTC; default the current one) for api_requests, call_minutes, conversations and webhook_deliveries, with the plan quotas, what remains and the percentage used.',
    tags: ['Usage'],
    query: SummaryQuery,
    responses: { 200: { description: 'Usage summary', schema: SummaryResponse } },
  },
  {
    method: 'get',
    path: '/api/v1/usage/details',
    summary: 'Usage events, or usage grouped',
    description:
      'Without group_by: the individual usage events (newest first) under `events`. With group_by (day, endpoint, api_key, kind, status): `groups` of {key, kind, count, quantity}. Range: period (YYYY-MM) or from/to; kind filters one metric. limit default 50, max 200.',
    tags: ['Usage'],
    query: DetailsQuery,
    responses: { 200: { description: 'A page of usage events or groups', schema: DetailsResponse } },
  },
  {
    method: 'post',
    path: '/api/internal/usage/report',
    summary: 'Emit usage.reported for a period (internal)',
    description:
      'Internal token. Emits exactly one usage.reported per tenant for the period (default the previous month); a second run for the same period emits nothing. A period that has not ended is 400.',
    tags: ['Usage'],
    body: ReportBody,
    responses: {
      200: { description: 'Tenants reported', schema: ReportResponse },
      400: {
        description: 'The period has not ended yet',
        example: { detail: 'Period 2026-11 has not ended yet' },
      },
    },
  },
]);
