import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import {
  CompanyHit,
  ContactHit,
  ConversationHit,
  Highlight,
  SearchQuery,
  SearchResult,
  TicketHit,
  TicketSearchQuery,
  TicketSearchResult,
} from './schemas';

const TICKET_HIT_EXAMPLE = {
  type: 'ticket',
  record: {
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
    sla: null,
  },
  highlights: [
    { field: 'subject', fragment: 'Printer on fire', matches: [[0, 7]] },
    {
      field: 'description',
      fragment: 'The printer on floor 3 smells of smoke and shows error E-451.',
      matches: [[4, 11]],
    },
  ],
};

export const searchTickets = defineRoute({
  operationId: 'searchTickets',
  method: 'get',
  path: '/api/v1/tickets/search',
  summary: 'Search tickets',
  description:
    'Full-text search over each ticket\'s subject, description and replies, with the list\'s filters as `field:value` (status, priority, type, tag, assignee, requester, created, updated): `printer "on fire" status:open,pending -tag:spam created>30d`. Best match first, then newest (`sort=created_at` or `updated_at` for recency alone). Each hit carries the ticket and plain-text highlights with match offsets. Pages by `cursor`; no `total`. The grammar: docs/search.md.',
  tags: ['Tickets'],
  query: TicketSearchQuery,
  responses: {
    200: {
      description: 'A page of hits',
      schema: TicketSearchResult,
      example: { hits: [TICKET_HIT_EXAMPLE], next_cursor: null },
    },
  },
});

export const search = defineRoute({
  operationId: 'searchRecords',
  method: 'get',
  path: '/api/v2/search',
  summary: 'Search tickets, conversations, contacts and companies',
  description:
    'One query over several record types (`types`, default all four): words and phrases match tickets (subject, description, replies), conversations (subject, messages), contacts (name, e-mail, phone) and companies (name, domain); filters apply to the types that have them (`channel:` leaves out tickets, contacts and companies), and `assignee:me` is the signed-in user. Best match first, then newest, across the types. Dashboard session.',
  tags: ['Search'],
  query: SearchQuery,
  responses: {
    200: {
      description: 'A page of hits of every type asked for',
      schema: SearchResult,
      example: { hits: [TICKET_HIT_EXAMPLE], next_cursor: null },
    },
  },
});

export const components = defineComponents({
  output: {
    SearchHighlight: Highlight,
    TicketSearchHit: TicketHit,
    ConversationSearchHit: ConversationHit,
    ContactSearchHit: ContactHit,
    CompanySearchHit: CompanyHit,
    TicketSearchResult,
    SearchResult,
  },
  docs: {
    SearchHighlight: {
      description: 'Where a hit matched: a plain-text fragment of one field and the matches in it.',
      fields: {
        field: 'The field the fragment comes from',
        fragment: 'Plain text around the first match (the whole field when short)',
        matches: '[start, end) of each match in `fragment`, UTF-16 code units',
      },
      example: TICKET_HIT_EXAMPLE.highlights[0],
    },
    TicketSearchHit: {
      description: 'A ticket that matched, with where it matched.',
      fields: {
        type: 'Always `ticket`',
        record: 'The ticket, as GET /api/v1/tickets/{ticket_id} returns it',
        highlights: 'One entry per matched field',
      },
    },
    ConversationSearchHit: {
      description: 'A conversation that matched, with where it matched.',
      fields: {
        type: 'Always `conversation`',
        record: 'The conversation, as its read returns it',
        highlights: 'One entry per matched field',
      },
    },
    ContactSearchHit: {
      description: 'A contact that matched, with where it matched.',
      fields: {
        type: 'Always `contact`',
        record: 'The contact, as its read returns it',
        highlights: 'One entry per matched field',
      },
    },
    CompanySearchHit: {
      description: 'A company that matched, with where it matched.',
      fields: {
        type: 'Always `company`',
        record: 'The company, as its read returns it',
        highlights: 'One entry per matched field',
      },
    },
    TicketSearchResult: {
      description: 'A page of ticket hits.',
      fields: { hits: 'The hits, best first', next_cursor: 'The next page, or null' },
      example: { hits: [TICKET_HIT_EXAMPLE], next_cursor: null },
    },
    SearchResult: {
      description: 'A page of hits of every type searched.',
      fields: { hits: 'The hits, best first across the types', next_cursor: 'The next page, or null' },
      example: { hits: [TICKET_HIT_EXAMPLE], next_cursor: null },
    },
  },
});
