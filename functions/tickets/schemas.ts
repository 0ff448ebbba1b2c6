import * as z from 'zod';
import { AttachmentIds, AttachmentRef } from '../../shared/files/schemas';
import { enumList } from '../../shared/http/enum-list';
import { isoInstant } from '../../shared/http/instants';
import { cursorPageFields, cursorPageQuery, pageQuery, TICKETS_PAGE } from '../../shared/http/pagination';
import { SlaListFilters } from '../../shared/sla/schemas';
import {
  LIMITS,
  ref,
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  TICKET_TYPES,
  Ticket,
  TicketFields,
  tag,
} from '../../shared/tickets/schemas';

// The ticket domain (value sets, transitions, limits, the create body) is shared with calls and the
// end-user API: shared/tickets/schemas.ts. Re-exported for this function's routes and tests.
export {
  CreateTicketBody,
  type CreateTicketInput,
  canTransition,
  INITIAL_STATUSES,
  LIMITS,
  RESOLVED_STATUSES,
  TICKET_PRIORITIES,
  TICKET_SOURCES,
  TICKET_STATUSES,
  TICKET_TRANSITIONS,
  TICKET_TYPES,
  Ticket,
  type TicketStatus,
} from '../../shared/tickets/schemas';

export const UpdateTicketBody = z.strictObject({
  subject: TicketFields.subject.optional(),
  description: TicketFields.description.optional(),
  status: z.enum(TICKET_STATUSES).optional(),
  priority: TicketFields.priority.optional(),
  type: TicketFields.type.optional(),
  requester_id: TicketFields.requester_id.optional(),
  requester_name: TicketFields.requester_name.optional(),
  requester_email: TicketFields.requester_email.optional(),
  assignee_id: TicketFields.assignee_id.optional(),
  tags: TicketFields.tags.optional(),
  call_id: TicketFields.call_id.optional(),
  assignee_team_id: TicketFields.assignee_team_id.optional(),
  custom_fields: TicketFields.custom_fields.optional(),
});
export type UpdateTicketInput = z.infer<typeof UpdateTicketBody>;

export const CreateReplyBody = z
  .strictObject({
    body: z.string().trim().min(1).max(LIMITS.replyBody).optional(),
    saved_reply_id: ref
      .optional()
      .describe(
        'A saved reply (GET /api/v2/saved-replies) to send in place of `body`, its placeholders rendered',
      ),
    is_public: z.boolean().optional(),
    attachment_ids: AttachmentIds,
  })
  // `body` stays required as before unless a saved reply stands in for it
  .superRefine((b, ctx) => {
    if (b.body === undefined && b.saved_reply_id === undefined)
      ctx.addIssue({
        code: 'invalid_type',
        expected: 'string',
        input: undefined,
        path: ['body'],
        message: 'Field required',
      });
    if (b.body !== undefined && b.saved_reply_id !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['saved_reply_id'],
        message: 'Send body or saved_reply_id, not both',
      });
  })
  .meta({ anyOf: [{ required: ['body'] }, { required: ['saved_reply_id'] }] });

export const TICKET_SORTS = ['-created_at', 'updated_at', 'sla_due_at'] as const;

export const ListTicketsQuery = cursorPageQuery({ ...TICKETS_PAGE, items: 'tickets' }).extend({
  status: enumList(TICKET_STATUSES)
    .optional()
    .describe('Only tickets in this status (one value or a comma-separated list)'),
  priority: enumList(TICKET_PRIORITIES)
    .optional()
    .describe('Only tickets with this priority (one value or a comma-separated list)'),
  type: enumList(TICKET_TYPES)
    .optional()
    .describe('Only tickets of this type (one value or a comma-separated list)'),
  requester_id: ref.optional().describe('Only tickets of this requester (`req_…`)'),
  assignee_id: ref.optional().describe('Only tickets assigned to this agent (a tenant user id, `tus_…`)'),
  assignee_team_id: ref.optional().describe('Only tickets assigned to this team'),
  tag: tag.optional().describe('Only tickets carrying this tag'),
  call_id: ref.optional().describe('Only tickets linked to this call (`call_…`)'),
  created_after: isoInstant
    .optional()
    .describe('Only tickets created at or after this ISO 8601 time (inclusive)'),
  created_before: isoInstant
    .optional()
    .describe('Only tickets created before this ISO 8601 time (exclusive)'),
  updated_since: isoInstant
    .optional()
    .describe(
      'Only tickets with `updated_at` at or after this ISO 8601 time (inclusive); pair with `sort=updated_at` to mirror',
    ),
  ...SlaListFilters,
  sort: z
    .enum(TICKET_SORTS)
    .default('-created_at')
    .describe(
      'Order: `-created_at` (default) newest first; `updated_at` oldest change first, then id (for incremental mirroring); `sla_due_at` the earliest SLA due time not yet met, soonest first (only tickets that have one)',
    ),
});
export type ListTicketsFilters = z.output<typeof ListTicketsQuery>;

export const TicketIdParam = z.object({
  ticket_id: z.string().min(1).max(LIMITS.id).describe('The ticket id (`tkt_…`)'),
});
export const ListRepliesQuery = pageQuery(TICKETS_PAGE);

export const TicketReply = z.object({
  id: z.string(),
  ticket_id: z.string(),
  body: z.string(),
  author_type: z.enum(['agent', 'api', 'requester', 'system']),
  author_id: z.string().nullable(),
  is_public: z.boolean(),
  created_at: z.iso.datetime(),
  attachments: z.array(AttachmentRef),
});

export const TicketList = z.object({ tickets: z.array(Ticket), ...cursorPageFields });
export const ReplyList = z.object({
  replies: z.array(TicketReply),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
