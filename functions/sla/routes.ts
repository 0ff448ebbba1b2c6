import * as z from 'zod';
import { ErrorBody, errorResponse, unknownIdResponse } from '../../shared/http/error-body';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import {
  BusinessHours,
  CreateBusinessHoursBody,
  CreateSlaPolicyBody,
  HoursIdParam,
  PolicyIdParam,
  SlaPolicy,
  UpdateBusinessHoursBody,
  UpdateSlaPolicyBody,
} from './schemas';

const adminWrites = 'Dashboard session with tenant_admin or higher; audited.';
const anyReads = 'Any dashboard session.';
const hoursNotFound = unknownIdResponse('Business hours');
const policyNotFound = unknownIdResponse('SLA policy');

export const HOURS_EXAMPLE = {
  id: 'bhr_0mha4j8s2Xv5CnT7wRq1Dk',
  name: 'Berlin office',
  timezone: 'Europe/Berlin',
  intervals: [1, 2, 3, 4, 5].map((day) => ({ day, start: '09:00', end: '17:00' })),
  holidays: [{ date: '2026-12-25', name: 'Christmas Day' }],
  created_at: '2026-11-02T09:00:00.000Z',
  updated_at: '2026-11-02T09:00:00.000Z',
};
export const POLICY_EXAMPLE = {
  id: 'sla_0mha4j8s2Xv5CnT7wRq1Dk',
  name: 'Urgent',
  position: 0,
  business_hours_id: 'bhr_0mha4j8s2Xv5CnT7wRq1Dk',
  conditions: { priorities: ['urgent'] },
  first_response_minutes: 60,
  resolution_minutes: 480,
  created_at: '2026-11-02T09:00:00.000Z',
  updated_at: '2026-11-02T09:00:00.000Z',
};
const { id: _h, created_at: _hc, updated_at: _hu, ...hoursBody } = HOURS_EXAMPLE;
const { id: _p, created_at: _pc, updated_at: _pu, ...policyBody } = POLICY_EXAMPLE;

export const LIMIT_EXCEEDED = (what: string, max: number) => `A tenant has at most ${max} ${what}`;
export const HOURS_IN_USE = 'Business hours are used by an SLA policy';
export const MAX_HOURS = 50;
export const MAX_POLICIES = 100;

// ---- business hours ----

export const listBusinessHours = defineRoute({
  operationId: 'listBusinessHours',
  method: 'get',
  path: '/api/v2/business-hours',
  summary: 'List business hours',
  description: `Every set of business hours of the tenant, oldest first (at most ${MAX_HOURS}, so no paging). ${anyReads}`,
  tags: ['SLA'],
  responses: {
    200: {
      description: 'The business hours',
      schema: z.object({ business_hours: z.array(BusinessHours).describe('Oldest first') }),
      example: { business_hours: [HOURS_EXAMPLE] },
    },
  },
});

export const createBusinessHours = defineRoute({
  operationId: 'createBusinessHours',
  method: 'post',
  path: '/api/v2/business-hours',
  access: { role: 'tenant_admin' },
  summary: 'Create business hours',
  description: `An IANA time zone, weekly intervals (ISO weekday, wall-clock "HH:MM" start and end; an end at or before the start runs past midnight) and holidays (whole calendar days). SLA policies count their minutes in them. ${adminWrites}`,
  tags: ['SLA'],
  body: CreateBusinessHoursBody,
  bodyExample: hoursBody,
  responses: {
    201: { description: 'The business hours', schema: BusinessHours, example: HOURS_EXAMPLE },
    409: errorResponse(
      'The tenant has the most business hours it may',
      LIMIT_EXCEEDED('business hours', MAX_HOURS),
    ),
  },
});

export const getBusinessHours = defineRoute({
  operationId: 'getBusinessHours',
  method: 'get',
  path: '/api/v2/business-hours/{id}',
  summary: 'Get business hours',
  description: `One set of business hours of the tenant. ${anyReads}`,
  tags: ['SLA'],
  params: HoursIdParam,
  responses: {
    200: { description: 'The business hours', schema: BusinessHours, example: HOURS_EXAMPLE },
    404: hoursNotFound,
  },
});

export const updateBusinessHours = defineRoute({
  operationId: 'updateBusinessHours',
  method: 'patch',
  path: '/api/v2/business-hours/{id}',
  access: { role: 'tenant_admin' },
  summary: 'Update business hours',
  description: `Changes the fields given (a list given replaces the list). Due times already set stay as they are; the next re-choice or reopening counts in the new hours. ${adminWrites}`,
  tags: ['SLA'],
  params: HoursIdParam,
  body: UpdateBusinessHoursBody,
  bodyExample: {
    holidays: [
      { date: '2026-12-25', name: 'Christmas Day' },
      { date: '2026-12-26', name: 'Boxing Day' },
    ],
  },
  responses: {
    200: { description: 'The business hours', schema: BusinessHours, example: HOURS_EXAMPLE },
    404: hoursNotFound,
  },
});

export const deleteBusinessHours = defineRoute({
  operationId: 'deleteBusinessHours',
  method: 'delete',
  path: '/api/v2/business-hours/{id}',
  access: { role: 'tenant_admin' },
  summary: 'Delete business hours',
  description: `Refused (409) while an SLA policy counts in them. ${adminWrites}`,
  tags: ['SLA'],
  params: HoursIdParam,
  responses: {
    204: { description: 'Deleted' },
    404: hoursNotFound,
    409: errorResponse('An SLA policy uses them', HOURS_IN_USE),
  },
});

// ---- SLA policies ----

export const listSlaPolicies = defineRoute({
  operationId: 'listSlaPolicies',
  method: 'get',
  path: '/api/v2/sla-policies',
  summary: 'List SLA policies',
  description: `Every SLA policy of the tenant in the order they are tried: by position, then oldest first (at most ${MAX_POLICIES}, so no paging). ${anyReads}`,
  tags: ['SLA'],
  responses: {
    200: {
      description: 'The policies, in the order they are tried',
      schema: z.object({ sla_policies: z.array(SlaPolicy).describe('By position, then oldest first') }),
      example: { sla_policies: [POLICY_EXAMPLE] },
    },
  },
});

export const createSlaPolicy = defineRoute({
  operationId: 'createSlaPolicy',
  method: 'post',
  path: '/api/v2/sla-policies',
  access: { role: 'tenant_admin' },
  summary: 'Create an SLA policy',
  description: `Conditions (priorities, channels, tags: each optional, all given must match) and first-response and resolution targets in business minutes of its business hours (null hours: around the clock). The first policy by position whose conditions match a ticket or conversation applies to it, chosen when it is created and again when its priority, channel or tags change. \`business_hours_id\` must be hours of the tenant (422). ${adminWrites}`,
  tags: ['SLA'],
  body: CreateSlaPolicyBody,
  bodyExample: { ...policyBody, business_hours_id: null },
  responses: {
    201: { description: 'The policy', schema: SlaPolicy, example: POLICY_EXAMPLE },
    409: errorResponse(
      'The tenant has the most SLA policies it may',
      LIMIT_EXCEEDED('SLA policies', MAX_POLICIES),
    ),
  },
});

export const getSlaPolicy = defineRoute({
  operationId: 'getSlaPolicy',
  method: 'get',
  path: '/api/v2/sla-policies/{id}',
  summary: 'Get an SLA policy',
  description: `One SLA policy of the tenant. ${anyReads}`,
  tags: ['SLA'],
  params: PolicyIdParam,
  responses: {
    200: { description: 'The policy', schema: SlaPolicy, example: POLICY_EXAMPLE },
    404: policyNotFound,
  },
});

export const updateSlaPolicy = defineRoute({
  operationId: 'updateSlaPolicy',
  method: 'patch',
  path: '/api/v2/sla-policies/{id}',
  access: { role: 'tenant_admin' },
  summary: 'Update an SLA policy',
  description: `Changes the fields given. Due times already set stay as they are until the record's policy is chosen again (a change of priority, channel or tags) or it reopens. ${adminWrites}`,
  tags: ['SLA'],
  params: PolicyIdParam,
  body: UpdateSlaPolicyBody,
  bodyExample: { first_response_minutes: 30, position: 1 },
  responses: {
    200: { description: 'The policy', schema: SlaPolicy, example: POLICY_EXAMPLE },
    404: policyNotFound,
  },
});

export const deleteSlaPolicy = defineRoute({
  operationId: 'deleteSlaPolicy',
  method: 'delete',
  path: '/api/v2/sla-policies/{id}',
  access: { role: 'tenant_admin' },
  summary: 'Delete an SLA policy',
  description: `Records under it keep their due times until their policy is chosen again. ${adminWrites}`,
  tags: ['SLA'],
  params: PolicyIdParam,
  responses: { 204: { description: 'Deleted' }, 404: policyNotFound },
});

// ---- the breach check on Workers ----

/** What shared/sla/edge-check.ts publishes: the due time the callback is for. */
export const BreachCheckBody = z.object({
  check_at: z.iso
    .datetime()
    .describe('The earliest SLA due time when the check was scheduled (ISO 8601 UTC)'),
});
const BreachCheckResult = z.object({
  recorded: z
    .number()
    .int()
    .describe('Breaches recorded by this check (0: another process recorded them first)'),
  next_check_at: z
    .string()
    .nullable()
    .describe('The next due time put on the schedule; null when no clock runs'),
});

export const components = defineComponents({
  output: { BusinessHours, SlaPolicy, SlaBreachCheckResult: BreachCheckResult },
  input: {
    SlaBreachCheck: BreachCheckBody,
    BusinessHoursCreate: CreateBusinessHoursBody,
    BusinessHoursUpdate: UpdateBusinessHoursBody,
    SlaPolicyCreate: CreateSlaPolicyBody,
    SlaPolicyUpdate: UpdateSlaPolicyBody,
  },
});

export const slaQStashCallback = defineRoute({
  operationId: 'receiveSlaBreachCheck',
  method: 'post',
  path: '/api/internal/sla/qstash',
  summary: 'QStash SLA breach check (internal)',
  description:
    'Called by QStash when the earliest SLA due time of any ticket or conversation has come (on Workers; the Node server checks in its own loop); verified with the `Upstash-Signature` header like the webhook callbacks. Records every breach due by then, once across processes, emits `ticket.updated` for each ticket breached, and schedules the next due time.',
  tags: ['Internal'],
  body: BreachCheckBody,
  responses: {
    200: {
      description: 'Checked',
      schema: BreachCheckResult,
      example: { recorded: 1, next_check_at: '2026-11-02T13:00:00.000Z' },
    },
    401: { description: '`Invalid QStash signature`', schema: ErrorBody },
    503: { description: 'The due time has not come yet; QStash retries', schema: ErrorBody },
  },
});
