import * as z from 'zod';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
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
// every billing call needs the tenant_admin role (API keys answer to their billing scopes)
const planChange = <M extends 'put' | 'patch'>(method: M) =>
  defineRoute({
    operationId: method === 'put' ? 'replacePlan' : 'changePlan',
    emits: ['config.updated'],
    method,
    path: '/api/v1/billing/plan',
    access: { role: 'tenant_admin' },
    summary: 'Change the plan',
    description:
      'Switches the tenant to another plan: quotas and rate limits change with it (on the next request). Emits config.updated (section billing.plan) when the plan actually changes.',
    tags,
    body: ChangePlanBody,
    responses: { 200: { description: 'The new plan', schema: PlanResponse } },
  });
const paymentWrite = <M extends 'put' | 'patch'>(method: M) =>
  defineRoute({
    operationId: method === 'put' ? 'replacePaymentSettings' : 'updatePaymentSettings',
    method,
    path: '/api/v1/billing/payment-settings',
    access: { role: 'tenant_admin' },
    summary: method === 'put' ? 'Replace payment settings' : 'Update payment settings',
    description:
      'The card number is checked (Luhn, not expired) and only its brand and last 4 digits are kept; the CVC is never stored. PUT replaces every field, PATCH changes only the fields given (null clears one).',
    tags,
    body: PaymentSettingsBody,
    responses: { 200: { description: 'Payment settings (masked)', schema: PaymentSettingsResponse } },
  });

export const getPlan = defineRoute({
  operationId: 'getPlan',
  method: 'get',
  path: '/api/v1/billing/plan',
  access: { role: 'tenant_admin' },
  summary: 'Current plan',
  description: 'Plan, price, quotas, overage prices, rate limits and the current billing period.',
  tags,
  responses: { 200: { description: 'The plan', schema: PlanResponse } },
});

export const listPlans = defineRoute({
  operationId: 'listPlans',
  description: 'Every plan: price, quotas, overage prices and rate limits. Same for every tenant.',
  method: 'get',
  path: '/api/v1/billing/plans',
  access: { role: 'tenant_admin' },
  summary: 'Plan catalog',
  tags,
  responses: { 200: { description: 'Every plan', schema: z.object({ plans: z.array(PlanResponse) }) } },
});

export const replacePlan = planChange('put');

export const updatePlan = planChange('patch');

export const listInvoices = defineRoute({
  operationId: 'listInvoices',
  method: 'get',
  path: '/api/v1/billing/invoices',
  access: { role: 'tenant_admin' },
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
});

export const getInvoice = defineRoute({
  operationId: 'getInvoice',
  description: 'One invoice with its line items. 404 for an unknown invoice or another tenant’s.',
  method: 'get',
  path: '/api/v1/billing/invoices/{invoice_id}',
  access: { role: 'tenant_admin' },
  summary: 'One invoice',
  tags,
  params: InvoiceParam,
  responses: {
    200: { description: 'The invoice', schema: Invoice },
    404: { description: 'Invoice not found' },
  },
});

export const getPaymentSettings = defineRoute({
  operationId: 'getPaymentSettings',
  method: 'get',
  path: '/api/v1/billing/payment-settings',
  access: { role: 'tenant_admin' },
  summary: 'Payment settings',
  description: 'Needs billing:write as well as billing:read. The card is shown as brand and last 4 digits.',
  tags,
  responses: { 200: { description: 'Payment settings (masked)', schema: PaymentSettingsResponse } },
});

export const replacePaymentSettings = paymentWrite('put');

export const updatePaymentSettings = paymentWrite('patch');

export const components = defineComponents({
  output: { Plan: PlanResponse, Invoice, PaymentSettings: PaymentSettingsResponse },
  input: { PlanChange: ChangePlanBody, PaymentSettingsUpdate: PaymentSettingsBody },
});
