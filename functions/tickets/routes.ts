import { ATTACHMENT_EXAMPLE, attachmentRoutes } from '../../shared/files/schemas';
import { ErrorBody, unknownIdResponse } from '../../shared/http/error-body';
import { Detail } from '../../shared/http/errors';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import {
  CreateReplyBody,
  CreateTicketBody,
  ListRepliesQuery,
  ListTicketsQuery,
  ReplyList,
  Ticket,
  TicketIdParam,
  TicketList,
  TicketReply,
  UpdateTicketBody,
} from './schemas';

const ticketNotFound = unknownIdResponse('Ticket', 'Unknown ticket, or a ticket of another tenant');

export const listTickets = defineRoute({
  operationId: 'listTickets',
  method: 'get',
  path: '/api/v1/tickets',
  summary: 'List tickets',
  description:
    'Newest first (created_at, then id) unless sort=updated_at (oldest change first, then id: for incremental mirroring with updated_since, which is inclusive) or sort=sla_due_at (the earliest SLA due time not yet met, soonest first; only tickets that have one). status, priority and type take one value or a comma list. created_after is inclusive, created_before exclusive. sla_breached=true|false: any SLA breach or none; sla_due_before: that due time is before the instant (exclusive).',
  tags: ['Tickets'],
  query: ListTicketsQuery,
  responses: { 200: { description: 'A page of tickets', schema: TicketList } },
});

export const createTicket = defineRoute({
  operationId: 'createTicket',
  emits: ['ticket.created'],
  method: 'post',
  path: '/api/v1/tickets',
  summary: 'Create a ticket',
  description:
    'Emits ticket.created. Initial status `open` unless `status` says `new`, `pending` or `on_hold`; priority defaults to `medium`, type to `question`, source to `api` (an API key) or `dashboard` (a session). `call_id` must be a call of your tenant.',
  bodyExample: {
    subject: 'Printer on fire',
    description: 'The printer on floor 3 smells of smoke and shows error E-451.',
    priority: 'urgent',
    type: 'incident',
    requester_name: 'Ana Silva',
    requester_email: 'ana@example.com',
    tags: ['hardware', 'floor-3'],
  },
  tags: ['Tickets'],
  body: CreateTicketBody,
  responses: { 201: { description: 'The created ticket', schema: Ticket } },
});

export const getTicket = defineRoute({
  operationId: 'getTicket',
  description:
    'One ticket of your tenant, with its requester, assignee, tags and `sla` (the SLA policy that applies, its first-response and resolution due times, the first response, and whether either target was breached; null when no policy applies: docs/sla.md). An id of another tenant is 404 `Ticket not found`, like an unknown one.',
  method: 'get',
  path: '/api/v1/tickets/{ticket_id}',
  summary: 'Get a ticket',
  tags: ['Tickets'],
  params: TicketIdParam,
  responses: { 200: { description: 'The ticket', schema: Ticket }, 404: ticketNotFound },
});

export const updateTicket = defineRoute({
  operationId: 'updateTicket',
  emits: ['ticket.updated', 'ticket.resolved'],
  method: 'patch',
  path: '/api/v1/tickets/{ticket_id}',
  summary: 'Update a ticket',
  description:
    'Emits ticket.updated with {field: {from, to}} changes, plus ticket.resolved when the status crosses into resolved/closed. A PATCH that changes nothing emits nothing. Status moves follow the transition table (409 otherwise).',
  tags: ['Tickets'],
  params: TicketIdParam,
  body: UpdateTicketBody,
  bodyExample: { status: 'pending', priority: 'high', tags: ['hardware', 'floor-3', 'vendor'] },
  responses: {
    200: { description: 'The updated ticket', schema: Ticket },
    404: ticketNotFound,
    409: {
      description: 'Status transition not allowed',
      schema: ErrorBody,
      example: { detail: Detail.invalidTransition('closed', 'open') },
    },
  },
});

export const createReply = defineRoute({
  operationId: 'createTicketReply',
  emits: ['ticket.replied'],
  method: 'post',
  path: '/api/v1/tickets/{ticket_id}/replies',
  summary: 'Reply to a ticket',
  description:
    "Emits ticket.replied. Closed tickets take no replies (409). `saved_reply_id` in place of `body` posts that saved reply with its placeholders rendered for this ticket (422 at the field when it is unknown or someone else's personal one).",
  tags: ['Tickets'],
  params: TicketIdParam,
  body: CreateReplyBody,
  bodyExample: {
    body: 'A technician is on the way; please keep the printer switched off until then.',
    is_public: true,
  },
  responses: {
    201: { description: 'The reply', schema: TicketReply },
    404: ticketNotFound,
    409: { description: 'The ticket is closed', schema: ErrorBody, example: { detail: Detail.ticketClosed } },
  },
});

export const listReplies = defineRoute({
  operationId: 'listTicketReplies',
  method: 'get',
  path: '/api/v1/tickets/{ticket_id}/replies',
  summary: "List a ticket's replies",
  description:
    'The replies posted to a ticket (with POST /api/v1/tickets/{ticket_id}/replies), oldest first, a page at a time (`limit`, `offset`; `total` counts them all). 404 when the ticket is not in this tenant.',
  tags: ['Tickets'],
  params: TicketIdParam,
  query: ListRepliesQuery,
  responses: { 200: { description: 'A page of replies', schema: ReplyList }, 404: ticketNotFound },
});

/** A ticket's files (docs/files.md): upload as the raw body, list, read with a fresh link, delete. */
export const attachments = attachmentRoutes({
  base: '/api/v1/tickets/{ticket_id}',
  params: TicketIdParam,
  noun: 'Ticket',
  tag: 'Tickets',
});

const TICKET_EXAMPLE = {
  id: 'tkt_0mhbq3k8zHkR2d9TQx7pLw',
  subject: 'Printer on fire',
  description: 'The printer on floor 3 smells of smoke and shows error E-451.',
  status: 'open',
  priority: 'urgent',
  type: 'incident',
  source: 'api',
  requester_id: null,
  requester_name: 'Ana Silva',
  requester_email: 'ana@example.com',
  assignee_id: null,
  assignee_team_id: null,
  tags: ['floor-3', 'hardware'],
  call_id: null,
  reply_count: 0,
  custom_fields: {},
  created_by: 'api_key:key_0mha4j8s2Xv5CnT7wRq1Dk',
  created_at: '2026-03-14T09:26:53.412Z',
  updated_at: '2026-03-14T09:26:53.412Z',
  resolved_at: null,
  closed_at: null,
  sla: {
    policy_id: 'sla_0mha4j8s2Xv5CnT7wRq1Dk',
    first_response_due_at: '2026-03-14T10:26:53.412Z',
    first_response_at: null,
    first_response_breached: false,
    resolution_due_at: '2026-03-14T17:26:53.412Z',
    resolution_breached: false,
  },
};
const REPLY_EXAMPLE = {
  id: 'trp_0mhbq5n2cJd81sXaLq4WmZ',
  ticket_id: TICKET_EXAMPLE.id,
  body: 'A technician is on the way; please keep the printer switched off until then.',
  author_type: 'api',
  author_id: 'api_key:key_0mha4j8s2Xv5CnT7wRq1Dk',
  is_public: true,
  created_at: '2026-03-14T09:41:07.038Z',
  attachments: [ATTACHMENT_EXAMPLE],
};

export const components = defineComponents({
  output: { Ticket, TicketList, TicketReply, TicketReplyList: ReplyList },
  input: {
    TicketCreate: CreateTicketBody,
    TicketUpdate: UpdateTicketBody,
    TicketReplyCreate: CreateReplyBody,
  },
  docs: {
    Ticket: {
      description: 'A support request: what is wrong, who asked, who works on it, and where it stands.',
      fields: {
        id: 'Ticket id (`tkt_…`)',
        subject: 'One-line summary',
        description: 'Full text of the request (may be empty)',
        status:
          '`new` → `open` → `pending`/`on_hold` → `resolved` → `closed` (final); moves follow the transition table',
        priority: '`low`, `medium` (default), `high` or `urgent`',
        type: 'Kind of request; default `question`',
        source: 'Where the ticket came from: `api` (API key), `dashboard`, `phone` (a call), `end_user`, …',
        requester_id: 'Id of the requester (end user) who raised it, if known',
        requester_name: 'Name of the person who raised it',
        requester_email: 'Email of the person who raised it',
        assignee_id: 'Agent working on it',
        assignee_team_id: 'Team it is assigned to (a routing team picks `assignee_id`)',
        tags: 'Lower-cased, de-duplicated labels',
        call_id: 'The call this ticket came from (`call_…`), if any',
        reply_count: 'Number of replies',
        custom_fields: "Values of the tenant's ticket fields, keyed by field key",
        created_by:
          'Who created it, as served: `api_key:key_…` (an API key), `user:tus_…` (a dashboard user) or `end_user:req_…` (an end user) or `internal:voice_agent` (a call)',
        created_at: 'When it was created (ISO 8601 UTC)',
        updated_at: 'Last change (ISO 8601 UTC); replies count as changes',
        resolved_at: 'When it last entered `resolved` or `closed`',
        closed_at: 'When it was closed',
      },
      example: TICKET_EXAMPLE,
    },
    TicketReply: {
      description: 'A reply on a ticket: public (the requester sees it) or an internal note.',
      fields: {
        id: 'Reply id (`trp_…`)',
        ticket_id: 'The ticket replied to',
        body: 'Text of the reply',
        author_type: 'Who wrote it: `agent` (session), `api` (API key), `requester` or `system`',
        author_id: 'The author, as served: `api_key:key_…` or `user:tus_…`',
        is_public: '`false` for an internal note',
        created_at: 'When it was written (ISO 8601 UTC)',
        attachments: 'The files sent with it (`attachment_ids`), without links',
      },
      example: REPLY_EXAMPLE,
    },
    TicketList: {
      description: 'A page of tickets, with the total matching the filters.',
      fields: {
        tickets: 'This page',
        total: 'Tickets matching the filters, all pages; null on a page read by `cursor`',
        limit: 'Page size used',
        offset: 'Items skipped',
        next_cursor:
          'Pass as `cursor`, with the same filters and sort, for the next page; null on the last page',
      },
      example: { tickets: [TICKET_EXAMPLE], total: 42, limit: 20, offset: 0, next_cursor: null },
    },
    TicketReplyList: {
      description: 'A page of replies, oldest first.',
      fields: {
        replies: 'This page',
        total: 'Replies of the ticket',
        limit: 'Page size used',
        offset: 'Items skipped',
      },
      example: { replies: [REPLY_EXAMPLE], total: 1, limit: 20, offset: 0 },
    },
  },
});
