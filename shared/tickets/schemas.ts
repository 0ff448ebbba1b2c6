import * as z from 'zod';
import { smtpLimits } from '../http/email';
import { SlaSchema } from '../sla/schemas';

/**
 * Ticket value sets and the allowed status transitions: data, read by one function
 * (`canTransition`), documented in docs/tickets.md and iterated by the tests.
 */
export const TICKET_STATUSES = ['new', 'open', 'pending', 'on_hold', 'resolved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const TICKET_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export const TICKET_TYPES = ['question', 'incident', 'problem', 'service_request', 'change'] as const;
export const TICKET_SOURCES = ['api', 'dashboard', 'email', 'phone', 'web', 'chat', 'end_user'] as const;
/** Statuses a ticket may be created in. */
export const INITIAL_STATUSES = ['new', 'open', 'pending', 'on_hold'] as const;

/** from -> the statuses it may move to. `new` is only ever an initial state; `closed` is final. */
export const TICKET_TRANSITIONS: Readonly<Record<TicketStatus, readonly TicketStatus[]>> = {
  new: ['open', 'pending', 'on_hold', 'resolved', 'closed'],
  open: ['pending', 'on_hold', 'resolved', 'closed'],
  pending: ['open', 'on_hold', 'resolved', 'closed'],
  on_hold: ['open', 'pending', 'resolved', 'closed'],
  resolved: ['open', 'closed'],
  closed: [],
};
/** Terminal side of the boundary: entering it from the other side emits `ticket.resolved`. */
export const RESOLVED_STATUSES: ReadonlySet<string> = new Set(['resolved', 'closed']);

export const canTransition = (from: string, to: string) =>
  from === to || (TICKET_TRANSITIONS[from as TicketStatus]?.includes(to as TicketStatus) ?? false);

export const LIMITS = {
  subject: 255,
  description: 20_000,
  replyBody: 20_000,
  id: 128,
  name: 200,
  email: 254,
  tag: 50,
  tags: 20,
} as const;

const text = (max: number) => z.string().trim().max(max);
export const tag = z.string().trim().min(1).max(LIMITS.tag);
export const ref = z.string().trim().min(1).max(LIMITS.id);

/** A custom field's value: text, number, date (text), checkbox, dropdown (text) or multiselect (list); null clears it on a PATCH. */
export const CustomFieldValue = z
  .union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.null()])
  .describe(
    'text, date (YYYY-MM-DD) and dropdown: a string; number: a number; checkbox: a boolean; multiselect: a list of its options',
  );

export const TicketFields = {
  subject: z.string().trim().min(1).max(LIMITS.subject),
  description: z.string().max(LIMITS.description),
  priority: z.enum(TICKET_PRIORITIES),
  type: z.enum(TICKET_TYPES),
  requester_id: ref.nullable(),
  requester_name: text(LIMITS.name).nullable(),
  requester_email: z
    .email()
    .max(LIMITS.email)
    .refine(...smtpLimits)
    .nullable(),
  assignee_id: ref.nullable(),
  tags: z.array(tag).max(LIMITS.tags),
  call_id: ref.nullable(),
  assignee_team_id: ref
    .nullable()
    .describe('The team it is assigned to (a team whose routing is not manual picks `assignee_id`)'),
  custom_fields: z
    .record(z.string().max(64), CustomFieldValue)
    .describe(
      "Values of the tenant's ticket fields, keyed by field key (GET /api/v2/ticket-fields); checked against each field's type, options and `required`",
    )
    .meta({ example: { order_number: 'A-1042', plan: 'pro', refund: true } }),
};

export const CreateTicketBody = z.strictObject({
  subject: TicketFields.subject,
  description: TicketFields.description.optional(),
  status: z.enum(INITIAL_STATUSES).optional(),
  priority: TicketFields.priority.optional(),
  type: TicketFields.type.optional(),
  source: z.enum(TICKET_SOURCES).optional(),
  requester_id: TicketFields.requester_id.optional(),
  requester_name: TicketFields.requester_name.optional(),
  requester_email: TicketFields.requester_email.optional(),
  assignee_id: TicketFields.assignee_id.optional(),
  tags: TicketFields.tags.optional(),
  call_id: TicketFields.call_id.optional(),
  assignee_team_id: TicketFields.assignee_team_id.optional(),
  custom_fields: TicketFields.custom_fields.optional(),
});
export type CreateTicketInput = z.infer<typeof CreateTicketBody>;

/** The ticket as every read, write, event and search hit returns it. */
export const Ticket = z.object({
  id: z.string(),
  subject: z.string(),
  description: z.string(),
  status: z.enum(TICKET_STATUSES),
  priority: z.enum(TICKET_PRIORITIES),
  type: z.enum(TICKET_TYPES),
  source: z.enum(TICKET_SOURCES),
  requester_id: z.string().nullable(),
  requester_name: z.string().nullable(),
  requester_email: z.string().nullable(),
  assignee_id: z.string().nullable(),
  assignee_team_id: z.string().nullable().describe('The team it is assigned to'),
  tags: z.array(z.string()),
  call_id: z.string().nullable(),
  reply_count: z.number().int(),
  custom_fields: z
    .record(z.string(), CustomFieldValue)
    .describe(
      "The values of the tenant's ticket fields, keyed by field key (a deleted field's values are gone)",
    ),
  created_by: z.string(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  resolved_at: z.iso.datetime().nullable(),
  closed_at: z.iso.datetime().nullable(),
  sla: SlaSchema,
});
