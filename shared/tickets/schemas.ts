import * as z from 'zod';
import {
  CustomFieldValue,
  TICKET_PRIORITIES,
  TICKET_SOURCES,
  TICKET_TYPES,
  type TicketStatus,
} from '../events/views';
import { smtpLimits } from '../http/email';

// The ticket's value sets and its view (the `Ticket` schema) are in shared/events/views.ts: the
// events carry the ticket as the API serves it, and the event layer sits below this one.
export {
  CustomFieldValue,
  TICKET_PRIORITIES,
  TICKET_SOURCES,
  TICKET_STATUSES,
  TICKET_TYPES,
  Ticket,
  type TicketStatus,
  type TicketView,
} from '../events/views';

/** Statuses a ticket may be created in. */
export const INITIAL_STATUSES = ['new', 'open', 'pending', 'on_hold'] as const;

/**
 * The allowed status transitions: data, read by one function (`canTransition`), documented in
 * docs/tickets.md and iterated by the tests. from -> the statuses it may move to; `new` is only
 * ever an initial state, `closed` is final.
 */
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
