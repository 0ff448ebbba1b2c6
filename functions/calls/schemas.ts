import * as z from 'zod';
import { CALL_OUTCOMES, ESCALATION_REASONS, ESCALATION_ROUTES } from '../../shared/events/catalog';
import { smtpLimits } from '../../shared/http/email';
import { enumList } from '../../shared/http/enum-list';
import { isoInstant } from '../../shared/http/instants';
import { cursorPageFields, cursorPageQuery, TICKETS_PAGE } from '../../shared/http/pagination';
import { TICKET_PRIORITIES, TICKET_TYPES } from '../../shared/tickets/schemas';
import { isPhoneNumber, isSipUri } from './masking';

export const CALL_CHANNELS = ['phone', 'sip', 'web', 'app'] as const;
/** Channels that ride a telephony carrier: escalation to a human can only bridge these. */
export const TELEPHONY_CHANNELS: ReadonlySet<string> = new Set(['phone', 'sip']);
export const CALL_DIRECTIONS = ['inbound', 'outbound'] as const;
export const CALL_STATUSES = ['in_progress', 'completed'] as const;
export const ESCALATION_FAILURES = ['max_retries', 'no_target', 'not_telephony', 'transfer_error'] as const;
export const CALL_SORTS = ['-started_at', 'updated_at'] as const;

const tenantId = z.string().min(1).max(128);
const externalId = z.string().trim().min(1).max(128);
const phone = z.string().trim().max(40).refine(isPhoneNumber, { message: 'Invalid phone number' });
/** BCP 47-ish locale tag: `en`, `en-US`, `pt-BR`, `zh-Hant-TW`. */
const localeTag = z
  .string()
  .max(35)
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'Invalid locale tag');

export const CreateCallBody = z.strictObject({
  tenant_id: tenantId,
  /** optional: the voice agent may name the call itself (a retry with the same id is the same call) */
  id: z
    .string()
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, 'Invalid id')
    .optional(),
  channel: z.enum(CALL_CHANNELS).default('phone'),
  direction: z.enum(CALL_DIRECTIONS).default('inbound'),
  caller_phone: phone.nullish(),
  telephony_call_sid: externalId.nullish(),
  media_room_id: externalId.nullish(),
  started_at: isoInstant.optional(),
});
export type CreateCallInput = z.output<typeof CreateCallBody>;

export const EscalationBody = z
  .strictObject({
    tenant_id: tenantId,
    /** what the transfer to a human returned */
    status: z.enum(['transferred', 'failed']),
    reason: z.enum(ESCALATION_REASONS),
    route: z.enum(ESCALATION_ROUTES).nullish(),
    /** phone number or SIP URI; stored and emitted masked only */
    destination: z
      .string()
      .trim()
      .max(256)
      .refine((v) => isSipUri(v) || isPhoneNumber(v), { message: 'Must be a phone number or a SIP URI' })
      .nullish(),
    failure: z.enum(ESCALATION_FAILURES).nullish(),
    /** optional, for retries: the same escalation_id is recorded (and emitted) once */
    escalation_id: z
      .string()
      .max(64)
      .regex(/^[A-Za-z0-9_-]+$/, 'Invalid id')
      .optional(),
    escalated_at: isoInstant.optional(),
  })
  .superRefine((v, ctx) => {
    if (v.status !== 'transferred') return;
    for (const field of ['route', 'destination'] as const)
      if (!v[field])
        ctx.addIssue({ code: 'custom', path: [field], message: 'Required when status is transferred' });
  });
export type EscalationInput = z.output<typeof EscalationBody>;

export const CompleteCallBody = z.strictObject({
  tenant_id: tenantId,
  outcome: z.enum(CALL_OUTCOMES),
  ended_at: isoInstant.optional(),
  /** default: whole seconds between started_at and ended_at */
  duration_seconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .optional(),
  recording_url: z.string().trim().min(1).max(2048).nullish(),
  detected_language: localeTag.nullish(),
  summary: z.string().max(20_000).nullish(),
  /** an existing ticket of the tenant to link (any outcome) */
  ticket_id: z.string().min(1).max(128).nullish(),
  /** outcome `ticket_created` without ticket_id: fields of the ticket created from the call */
  ticket: z
    .strictObject({
      subject: z.string().trim().min(1).max(255).optional(),
      description: z.string().max(20_000).optional(),
      priority: z.enum(TICKET_PRIORITIES).optional(),
      type: z.enum(TICKET_TYPES).optional(),
      requester_id: z.string().trim().min(1).max(128).nullish(),
      requester_name: z.string().trim().max(200).nullish(),
      requester_email: z
        .email()
        .max(254)
        .refine(...smtpLimits)
        .nullish(),
      tags: z.array(z.string().trim().min(1).max(50)).max(20).optional(),
    })
    .optional(),
});
export type CompleteCallInput = z.output<typeof CompleteCallBody>;

export const CallIdParam = z.object({
  call_id: z.string().min(1).max(128).describe('The call id (`call_…`)'),
});

export const ListCallsQuery = cursorPageQuery({ ...TICKETS_PAGE, items: 'calls' }).extend({
  outcome: enumList(CALL_OUTCOMES)
    .optional()
    .describe('Only calls with this outcome (one value or a comma-separated list)'),
  direction: z.enum(CALL_DIRECTIONS).optional().describe('Only calls of this direction'),
  channel: z.enum(CALL_CHANNELS).optional().describe('Only calls on this channel'),
  status: z.enum(CALL_STATUSES).optional().describe('Only calls in this status'),
  caller_phone: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .optional()
    .describe('Only calls from this phone number, exactly as stored (E.164, e.g. +14155550123)'),
  ticket_id: z.string().min(1).max(128).optional().describe('Only calls linked to this ticket (`tkt_…`)'),
  started_after: isoInstant
    .optional()
    .describe('Only calls started at or after this ISO 8601 time (inclusive)'),
  started_before: isoInstant.optional().describe('Only calls started before this ISO 8601 time (exclusive)'),
  updated_since: isoInstant
    .optional()
    .describe(
      'Only calls with `updated_at` at or after this ISO 8601 time (inclusive); pair with `sort=updated_at` to mirror',
    ),
  sort: z
    .enum(CALL_SORTS)
    .default('-started_at')
    .describe(
      'Order: `-started_at` (default) newest call first; `updated_at` oldest change first, then id (for incremental mirroring)',
    ),
});
export type ListCallsFilters = z.output<typeof ListCallsQuery>;

export const VoiceWidgetTokenBody = z
  .strictObject({
    /** token lifetime, default 300 s */
    ttl_seconds: z.number().int().min(30).max(900).optional(),
    /** caller locale hint for the voice agent */
    locale: localeTag.optional(),
    /** the integrator's own id of the visitor (echoed in the token as `visitor_id`) */
    visitor_id: z.string().trim().min(1).max(128).optional(),
  })
  .optional();

export const Escalation = z.object({
  id: z.string(),
  call_id: z.string(),
  result: z.enum(['transferred', 'failed']),
  reason: z.string(),
  route: z.string().nullable(),
  destination: z.string().nullable(),
  failure: z.string().nullable(),
  emitted: z.boolean(),
  escalated_at: z.iso.datetime(),
  created_at: z.iso.datetime(),
});

export const Call = z.object({
  id: z.string(),
  tenant_id: z.string(),
  status: z.enum(CALL_STATUSES),
  channel: z.string(),
  direction: z.string(),
  caller_phone: z.string().nullable(),
  telephony_call_sid: z.string().nullable(),
  media_room_id: z.string().nullable(),
  started_at: z.iso.datetime(),
  ended_at: z.iso.datetime().nullable(),
  duration_seconds: z.number().int().nullable(),
  outcome: z.enum(CALL_OUTCOMES).nullable(),
  recording_url: z.string().nullable(),
  ticket_id: z.string().nullable(),
  detected_language: z.string().nullable(),
  summary: z.string().nullable(),
  escalated_at: z.iso.datetime().nullable(),
  completed_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export const CallDetail = Call.extend({ escalations: z.array(Escalation) });
export const CallList = z.object({ calls: z.array(Call), ...cursorPageFields });
export const VoiceWidgetToken = z.object({
  token: z.string(),
  token_type: z.literal('Bearer'),
  session_id: z.string(),
  tenant_id: z.string(),
  expires_in: z.number().int(),
  expires_at: z.iso.datetime(),
});
