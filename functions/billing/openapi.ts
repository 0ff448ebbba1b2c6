import { z } from 'zod';
import { defineComponents, defineRoutes } from '../../shared/http/openapi';
import {
  ChangePlanBody,
  Invoice,
  InvoiceParam,
  InvoicesQuery,
  PaymentSettingsBody,
  PaymentSettingsResponse,
  PlanResponse,
} from './schemas';

const tags = ['Billing'];
const planChange = (method: 'put' | 'patch') => ({
  method,
  path: '/api/v1/billing/plan',
  summary: 'Change the plan',
  description:
    'Switches the tenant to another plan: quotas and rate limits change with it (on the next request). Emits config.updated (section billing.plan) when the plan actually changes.',
  tags,
  body: ChangePlanBody,
  responses: { 200: { description: 'The new plan', schema: PlanResponse } },
});
const paymentWrite = (method: 'put' | 'patch') => ({
  method,
  path: '/api/v1/billing/payment-settings',
  summary: method === 'put' ? 'Replace payment settings' : 'Update payment settings',
  description:
    'The card number is checked (Luhn, not expired) and only its brand and last 4 digits are kept; the CVC is never stored. PUT replaces every field, PATCH changes only the fields given (null clears one).',
  tags,
  body: PaymentSettingsBody,
  responses: { 200: { description: 'Payment settings (masked)', schema: PaymentSettingsResponse } },
});

export const routes = defineRoutes([
  {
    method: 'get',
    path: '/api/v1/billing/plan',
    summary: 'Current plan',
    description: 'Plan, price, quotas, overage prices, rate limits and the current billing period.',
    tags,
    responses: { 200: { description: 'The plan', schema: PlanResponse } },
  },
  {
    method: 'get',
    path: '/api/v1/billing/plans',
    summary: 'Plan catalog',
    tags,
    responses: { 200: { description: 'Every plan', schema: z.object({ plans: z.array(PlanResponse) }) } },
  },
  planChange('put'),
  planChange('patch'),
  {
    method: 'get',
    path: '/api/v1/billing/invoices',
    summary: 'List invoices',
    description:
      'One invoice per calendar month since the tenant was created, newest first; the current month is `upcoming`. Amounts come from metered usage: plan price plus usage above the quota.',
    tags,
    query: InvoicesQuery,
    responses: {
      200: {
        description: 'A page of invoices',
        schema: z.object({
          invoices: z.array(Invoice),
          total: z.number(),
          limit: z.number(),
          offset: z.number(),
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/billing/invoices/{invoice_id}',
    summary: 'One invoice',
    tags,
    params: InvoiceParam,
    responses: {
      200: { description: 'The invoice', schema: Invoice },
      404: { description: 'Invoice not found' },
    },
  },
  {
    method: 'get',
    path: '/api/v1/billing/payment-settings',
    summary: 'Payment settings',
    description: 'Needs billing:write as well as billing:read. The card is shown as brand and last 4 digits.',
    tags,
    responses: { 200: { description: 'Payment settings (masked)', schema: PaymentSettingsResponse } },
  },
  paymentWrite('put'),
  paymentWrite('patch'),
]);

export const components = defineComponents({
  output: { Plan: PlanResponse, Invoice, PaymentSettings: PaymentSettingsResponse },
  input: { PlanChange: ChangePlanBody, PaymentSettingsUpdate: PaymentSettingsBody },
});
