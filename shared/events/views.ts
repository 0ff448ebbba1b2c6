import * as z from 'zod';

/**
 * The records as the API serves them and as events carry them (`data.ticket` of every ticket event
 * is a ticket read): one schema for the response and the event, so the reference's two sections
 * cannot drift. Below shared/tickets and shared/sla in the layer order, because the event payloads
 * (shared/events/payloads.ts) are made of them.
 */

export const TICKET_STATUSES = ['new', 'open', 'pending', 'on_hold', 'resolved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const TICKET_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export const TICKET_TYPES = ['question', 'incident', 'problem', 'service_request', 'change'] as const;
export const TICKET_SOURCES = ['api', 'dashboard', 'email', 'phone', 'web', 'chat', 'end_user'] as const;

/** `sla` on a ticket or conversation read (and on ticket events): null when no policy applies. */
export const SlaSchema = z
  .object({
    policy_id: z
      .string()
      .describe('The SLA policy that applies (the first by position whose conditions match)'),
    first_response_due_at: z.iso
      .datetime()
      .nullable()
      .describe('When the first public agent reply is due (null: the policy sets no first-response target)'),
    first_response_at: z.iso.datetime().nullable().describe('When the first public agent reply was sent'),
    first_response_breached: z
      .boolean()
      .describe('The first response was not sent by its due time (recorded once, never cleared)'),
    resolution_due_at: z.iso
      .datetime()
      .nullable()
      .describe(
        'When resolution is due, counted from creation or from the latest reopening (null: no resolution target)',
      ),
    resolution_breached: z
      .boolean()
      .describe('It was not resolved or closed by a resolution due time (recorded once, never cleared)'),
  })
  .nullable()
  .describe('The SLA due times and breaches; null when no SLA policy applies')
  .meta({
    example: {
      policy_id: 'sla_0mha4j8s2Xv5CnT7wRq1Dk',
      first_response_due_at: '2026-03-30T08:00:00.000Z',
      first_response_at: null,
      first_response_breached: false,
      resolution_due_at: '2026-03-31T14:00:00.000Z',
      resolution_breached: false,
    },
  });

/** A custom field's value: text, number, date (text), checkbox, dropdown (text) or multiselect (list); null clears it on a PATCH. */
export const CustomFieldValue = z
  .union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.null()])
  .describe(
    'text, date (YYYY-MM-DD) and dropdown: a string; number: a number; checkbox: a boolean; multiselect: a list of its options',
  );

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

/**
 * A ticket as served. The database's CHECK constraints hold status, priority, type and source to
 * the value sets above, so a row's text is one of them.
 */
export type TicketView = z.infer<typeof Ticket>;
