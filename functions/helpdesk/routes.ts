import { unknownIdResponse } from '../../shared/http/error-body';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import {
  CreateSavedReplyBody,
  CreateTeamBody,
  CreateTicketFieldBody,
  ListQuery,
  SavedReply,
  SavedReplyIdParam,
  SavedReplyList,
  Team,
  TeamIdParam,
  TeamList,
  TicketField,
  TicketFieldIdParam,
  TicketFieldList,
  UpdateSavedReplyBody,
  UpdateTeamBody,
  UpdateTicketFieldBody,
} from './schemas';

const admin = { role: 'tenant_admin' } as const;
const anyone = { role: 'agent' } as const;
const teams = ['Teams'];
const replies = ['Saved replies'];
const fields = ['Ticket fields'];

const TEAM_BODY = {
  name: 'Billing',
  description: 'Invoices and refunds',
  routing: 'round_robin',
  member_ids: ['tus_0mha4j8s2Xv5CnT7wRq1Dk', 'tus_0mha4j9t3Yw6DoU8xSr2El'],
};
const REPLY_BODY = {
  title: 'Refund on its way',
  body: 'Hi {{contact.first_name}}, your refund for {{ticket.subject}} is on its way. {{agent.name}}',
  shortcut: 'refund',
  visibility: 'tenant',
};
const FIELD_BODY = {
  key: 'plan',
  label: 'Plan',
  type: 'dropdown',
  options: ['free', 'pro'],
  required: false,
};

// ---- teams ----

export const listTeams = defineRoute({
  operationId: 'listTeams',
  method: 'get',
  path: '/api/v2/teams',
  access: anyone,
  summary: 'List teams',
  description: "The tenant's teams, oldest first, a page at a time. Any session of the tenant.",
  tags: teams,
  query: ListQuery,
  responses: { 200: { description: 'A page of teams', schema: TeamList } },
});

export const createTeam = defineRoute({
  operationId: 'createTeam',
  method: 'post',
  path: '/api/v2/teams',
  access: admin,
  summary: 'Create a team',
  description:
    'tenant_admin. `member_ids` must be active users of the tenant (422 at the member otherwise), in the order the rotation reaches them. `routing` decides who an assignment to the team alone goes to: `manual` (nobody), `round_robin` (the next member after the last pick), `balanced` (the member with the fewest open tickets and conversations, ties in turn). Recorded in the audit log as `team.created`.',
  tags: teams,
  body: CreateTeamBody,
  bodyExample: TEAM_BODY,
  responses: { 201: { description: 'The team', schema: Team } },
});

export const getTeam = defineRoute({
  operationId: 'getTeam',
  method: 'get',
  path: '/api/v2/teams/{team_id}',
  access: anyone,
  summary: 'Get a team',
  description: 'One team of the tenant, with its members in rotation order. Any session of the tenant.',
  tags: teams,
  params: TeamIdParam,
  responses: { 200: { description: 'The team', schema: Team }, 404: unknownIdResponse('Team') },
});

export const updateTeam = defineRoute({
  operationId: 'updateTeam',
  method: 'patch',
  path: '/api/v2/teams/{team_id}',
  access: admin,
  summary: 'Update a team',
  description:
    'tenant_admin. Only the fields sent change; `member_ids` replaces the members (active users of the tenant, 422 otherwise). Recorded in the audit log as `team.updated` with the changes.',
  tags: teams,
  params: TeamIdParam,
  body: UpdateTeamBody,
  bodyExample: { routing: 'balanced' },
  responses: { 200: { description: 'The team', schema: Team }, 404: unknownIdResponse('Team') },
});

export const deleteTeam = defineRoute({
  operationId: 'deleteTeam',
  method: 'delete',
  path: '/api/v2/teams/{team_id}',
  access: admin,
  summary: 'Delete a team',
  description:
    'tenant_admin. Its tickets and conversations keep their assignee user and get `assignee_team_id: null`. Recorded in the audit log as `team.deleted`.',
  tags: teams,
  params: TeamIdParam,
  responses: { 204: { description: 'Deleted' }, 404: unknownIdResponse('Team') },
});

// ---- saved replies ----

export const listSavedReplies = defineRoute({
  operationId: 'listSavedReplies',
  method: 'get',
  path: '/api/v2/saved-replies',
  access: anyone,
  summary: 'List saved replies',
  description:
    "The tenant-wide saved replies and the caller's own personal ones, oldest first. Any session of the tenant.",
  tags: replies,
  query: ListQuery,
  responses: { 200: { description: 'A page of saved replies', schema: SavedReplyList } },
});

export const createSavedReply = defineRoute({
  operationId: 'createSavedReply',
  method: 'post',
  path: '/api/v2/saved-replies',
  access: admin,
  summary: 'Create a saved reply',
  description:
    'tenant_admin. `body` may hold the placeholders `{{contact.first_name}}`, `{{contact.last_name}}`, `{{contact.name}}`, `{{contact.email}}`, `{{agent.name}}`, `{{conversation.id}}`, `{{ticket.id}}` and `{{ticket.subject}}`; any other is a 422 at `body` naming it. `personal` ones are seen and used by their author only. Send one with `saved_reply_id` on POST /api/v2/conversations/{id}/messages or POST /api/v1/tickets/{ticket_id}/replies. Recorded in the audit log as `saved_reply.created`.',
  tags: replies,
  body: CreateSavedReplyBody,
  bodyExample: REPLY_BODY,
  responses: { 201: { description: 'The saved reply', schema: SavedReply } },
});

export const getSavedReply = defineRoute({
  operationId: 'getSavedReply',
  method: 'get',
  path: '/api/v2/saved-replies/{saved_reply_id}',
  access: anyone,
  summary: 'Get a saved reply',
  description:
    "One saved reply, placeholders unrendered. Someone else's personal reply is 404, like an unknown one.",
  tags: replies,
  params: SavedReplyIdParam,
  responses: {
    200: { description: 'The saved reply', schema: SavedReply },
    404: unknownIdResponse('Saved reply'),
  },
});

export const updateSavedReply = defineRoute({
  operationId: 'updateSavedReply',
  method: 'patch',
  path: '/api/v2/saved-replies/{saved_reply_id}',
  access: admin,
  summary: 'Update a saved reply',
  description:
    "tenant_admin. Only the fields sent change; a new `body` is checked for unknown placeholders as at creation. Someone else's personal reply is 404. Recorded in the audit log as `saved_reply.updated`.",
  tags: replies,
  params: SavedReplyIdParam,
  body: UpdateSavedReplyBody,
  bodyExample: { title: 'Refund sent' },
  responses: {
    200: { description: 'The saved reply', schema: SavedReply },
    404: unknownIdResponse('Saved reply'),
  },
});

export const deleteSavedReply = defineRoute({
  operationId: 'deleteSavedReply',
  method: 'delete',
  path: '/api/v2/saved-replies/{saved_reply_id}',
  access: admin,
  summary: 'Delete a saved reply',
  description:
    "tenant_admin. Messages and replies already sent with it keep their text. Someone else's personal reply is 404. Recorded in the audit log as `saved_reply.deleted`.",
  tags: replies,
  params: SavedReplyIdParam,
  responses: { 204: { description: 'Deleted' }, 404: unknownIdResponse('Saved reply') },
});

// ---- ticket fields ----

export const listTicketFields = defineRoute({
  operationId: 'listTicketFields',
  method: 'get',
  path: '/api/v2/ticket-fields',
  access: anyone,
  summary: 'List ticket fields',
  description: "The tenant's custom ticket fields, oldest first. Any session of the tenant.",
  tags: fields,
  query: ListQuery,
  responses: { 200: { description: 'A page of ticket fields', schema: TicketFieldList } },
});

export const createTicketField = defineRoute({
  operationId: 'createTicketField',
  method: 'post',
  path: '/api/v2/ticket-fields',
  access: admin,
  summary: 'Create a ticket field',
  description:
    "tenant_admin. `key` (lower-case letters, digits, `_`; unique in the tenant, 422 otherwise) is the key of its value in tickets' `custom_fields`. Types: text (a string), number, date (`YYYY-MM-DD`), checkbox (a boolean), dropdown (one of `options`), multiselect (a list of `options`). A `required` field must be given when a ticket is created (POST /api/v1/tickets). Filter tickets by it with `GET /api/v1/tickets?custom_fields.<key>=<value>`. Recorded in the audit log as `ticket_field.created`.",
  tags: fields,
  body: CreateTicketFieldBody,
  bodyExample: FIELD_BODY,
  responses: { 201: { description: 'The ticket field', schema: TicketField } },
});

export const updateTicketField = defineRoute({
  operationId: 'updateTicketField',
  method: 'patch',
  path: '/api/v2/ticket-fields/{field_id}',
  access: admin,
  summary: 'Update a ticket field',
  description:
    "tenant_admin. The label, the options (dropdown and multiselect only) and `required` change; the key and type do not. Tickets' values are checked against the new definition at their next write. Recorded in the audit log as `ticket_field.updated`.",
  tags: fields,
  params: TicketFieldIdParam,
  body: UpdateTicketFieldBody,
  bodyExample: { label: 'Subscription plan', required: true },
  responses: {
    200: { description: 'The ticket field', schema: TicketField },
    404: unknownIdResponse('Ticket field'),
  },
});

export const deleteTicketField = defineRoute({
  operationId: 'deleteTicketField',
  method: 'delete',
  path: '/api/v2/ticket-fields/{field_id}',
  access: admin,
  summary: 'Delete a ticket field',
  description:
    "tenant_admin. Its values are removed from the tenant's tickets: reads, events and exports no longer carry them. Recorded in the audit log as `ticket_field.deleted`.",
  tags: fields,
  params: TicketFieldIdParam,
  responses: { 204: { description: 'Deleted' }, 404: unknownIdResponse('Ticket field') },
});

export const components = defineComponents({
  output: { Team, SavedReply, TicketField, TeamList, SavedReplyList, TicketFieldList },
  input: {
    TeamCreate: CreateTeamBody,
    TeamUpdate: UpdateTeamBody,
    SavedReplyCreate: CreateSavedReplyBody,
    SavedReplyUpdate: UpdateSavedReplyBody,
    TicketFieldCreate: CreateTicketFieldBody,
    TicketFieldUpdate: UpdateTicketFieldBody,
  },
});
