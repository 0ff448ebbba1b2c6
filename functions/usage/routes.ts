import { errorResponse } from '../../shared/http/error-body';
import { Detail } from '../../shared/http/errors';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import {
  DetailsQuery,
  DetailsResponse,
  ReportBody,
  ReportResponse,
  SummaryQuery,
  SummaryResponse,
} from './schemas';

export const getUsageSummary = defineRoute({
  operationId: 'getUsageSummary',
  method: 'get',
  path: '/api/v1/usage/summary',
  summary: 'Usage of a period against the plan quota',
  description:
    'Totals of the billing period (calendar month, UTC; default the current one) for api_requests, call_minutes, conversations and webhook_deliveries, with the plan quotas, what remains and the percentage used.',
  tags: ['Usage'],
  query: SummaryQuery,
  responses: { 200: { description: 'Usage summary', schema: SummaryResponse } },
});

export const getUsageDetails = defineRoute({
  operationId: 'getUsageDetails',
  method: 'get',
  path: '/api/v1/usage/details',
  summary: 'Usage events, or usage grouped',
  description:
    'Without group_by: the individual usage events (newest first) under `events`. With group_by (day, endpoint, api_key, kind, status): `groups` of {key, kind, count, quantity}. Range: period (YYYY-MM) or from/to; kind filters one metric. limit default 50, max 200.',
  tags: ['Usage'],
  query: DetailsQuery,
  responses: {
    200: { description: 'A page of usage events or groups', schema: DetailsResponse },
    400: errorResponse('`from` is not earlier than `to`', Detail.usageRangeBackwards),
  },
});

export const reportUsage = defineRoute({
  operationId: 'reportUsage',
  emits: ['usage.reported'],
  method: 'post',
  path: '/api/internal/usage/report',
  summary: 'Emit usage.reported for a period (internal)',
  description:
    'Internal token. Emits exactly one usage.reported per tenant for the period (default the previous month); a second run for the same period emits nothing. A period that has not ended is 400.',
  tags: ['Usage'],
  // the body may be left out altogether (the scheduler sends none): the previous month
  body: ReportBody.optional(),
  responses: {
    200: { description: 'Tenants reported', schema: ReportResponse },
    400: {
      description: 'The period has not ended yet',
      example: { detail: 'Period 2026-11 has not ended yet' },
    },
  },
});

export const components = defineComponents({
  docs: {
    UsageSummary: {
      description: "The tenant's consumption this period against its plan's quotas.",
      fields: {
        tenant_id: 'The tenant',
        plan: 'Plan in force (`free`, `starter`, `pro`, `enterprise`)',
        period: 'Billing period `YYYY-MM`',
        period_start: 'Start of the period (inclusive, ISO 8601 UTC)',
        period_end: 'End of the period (exclusive)',
        totals: 'Consumed so far, by metric',
        quotas: "The plan's allowance, by metric",
        remaining: 'Allowance left (never below 0)',
        percent_used: 'totals / quotas × 100, two decimals',
      },
      example: {
        tenant_id: 'ten_demo',
        plan: 'pro',
        period: '2026-03',
        period_start: '2026-03-01T00:00:00.000Z',
        period_end: '2026-04-01T00:00:00.000Z',
        totals: { api_requests: 18342, call_minutes: 412, conversations: 312, webhook_deliveries: 2210 },
        quotas: {
          api_requests: 1000000,
          call_minutes: 10000,
          conversations: 50000,
          webhook_deliveries: 1000000,
        },
        remaining: {
          api_requests: 981658,
          call_minutes: 9588,
          conversations: 49688,
          webhook_deliveries: 997790,
        },
        percent_used: {
          api_requests: 1.83,
          call_minutes: 4.12,
          conversations: 0.62,
          webhook_deliveries: 0.22,
        },
      },
    },
  },
  output: { UsageSummary: SummaryResponse, UsageDetails: DetailsResponse, UsageReport: ReportResponse },
  input: { UsageReportRequest: ReportBody },
});
