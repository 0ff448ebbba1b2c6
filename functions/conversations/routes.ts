import * as z from 'zod';
import { attachmentRoutes } from '../../shared/files/schemas';
import { unknownIdResponse } from '../../shared/http/error-body';
import { defineComponents } from '../../shared/http/openapi';
import { cursorList } from '../../shared/http/pagination';
import { defineRoute, type RouteDef } from '../../shared/http/route';
import {
  AssignConversationBody,
  ConversationIdParam,
  ConversationSchema,
  CreateConversationBody,
  CreateMessageBody,
  ExportBody,
  ExportOwnerParam,
  ExportParam,
  ExportSchema,
  InboundEmailBody,
  InboundResultSchema,
  InboundWhatsAppBody,
  ListConversationsQuery,
  ListMessagesQuery,
  MessageSchema,
  UpdateConversationBody,
  WidgetMessageBody,
} from './schemas';

const page = <K extends string>(key: K, item: z.ZodType) =>
  z.object({ [key]: z.array(item), total: z.number(), limit: z.number(), offset: z.number() });

/** What v1 and v2 say alike of an operation: its prose and responses (the route states the rest). */
type Prose = Pick<RouteDef, 'summary' | 'description' | 'responses' | 'bodyExample'>;

const createConversation: Prose = {
  summary: 'Create a conversation',
  description:
    "Emits `conversation.created`. A `contact_id` must be a live contact of the tenant (else 422 at body.contact_id, `Contact not found`); the contact's and its company's conversation_count go up by one.",
  responses: { 201: { description: 'Created', schema: ConversationSchema } },
};
const listConversations: Prose = {
  summary: 'List conversations',
  description:
    'Filters: status, channel, contact_id, assignee_user_id, assignee_team_id, updated_since (inclusive, updated_at >= value), sla_breached (`true`|`false`: any SLA breach or none), sla_due_before (the earliest SLA due time not yet met is before it, exclusive). sort: `-created_at` (default, newest first), `created_at`, `updated_at` (ascending by updated_at then id), `-updated_at`, `sla_due_at` (that due time, soonest first; only conversations that have one).',
  responses: { 200: { description: 'A page', schema: cursorList('conversations', ConversationSchema) } },
};
const getConversation: Prose = {
  summary: 'Get a conversation',
  responses: {
    200: { description: 'The conversation', schema: ConversationSchema },
    404: unknownIdResponse('Conversation'),
  },
};
const updateConversation: Prose = {
  summary: 'Update status, priority, tags or subject',
  description:
    'Only a status change across the open/closed boundary emits: open|waiting -> resolved|closed emits `conversation.resolved`, resolved|closed -> open|waiting emits `conversation.reopened` (both with top-level previous_status). Same status, open<->waiting, resolved<->closed, priority, tag and subject edits emit nothing.',
  responses: {
    200: { description: 'The conversation', schema: ConversationSchema },
    404: unknownIdResponse('Conversation'),
  },
};
const assignConversation: Prose = {
  summary: 'Assign to a user and/or team',
  description:
    'Emits `conversation.assigned` with top-level routing_reason (default manual_assignment, or manual_reassignment when it already had an assignee). An omitted field keeps its value, null clears it. Re-assigning to the current assignees changes nothing and emits nothing.',
  responses: {
    200: { description: 'The conversation', schema: ConversationSchema },
    404: unknownIdResponse('Conversation'),
  },
};
const createMessage: Prose = {
  summary: 'Post an agent reply or an internal note',
  description:
    "is_internal=true: an internal note, emits exactly one `conversation.note_added` and no `message.sent`. Otherwise an agent reply: emits `message.sent` in the same transaction, before the outbound channel send (which runs after the response; its outcome is delivery_status sent|failed). `saved_reply_id` in place of `body` sends that saved reply with its placeholders rendered (422 at the field when it is unknown or someone else's personal one).",
  bodyExample: {
    body: 'Thanks, Ana: the corrected invoice is attached.',
    is_internal: false,
    content_type: 'text',
  },
  responses: {
    201: { description: 'Created', schema: MessageSchema },
    404: unknownIdResponse('Conversation'),
  },
};
const listMessages: Prose = {
  summary: 'List messages, oldest first',
  responses: {
    200: { description: 'A page', schema: page('messages', MessageSchema) },
    404: unknownIdResponse('Conversation'),
  },
};
const createExport: Prose = {
  summary: 'Export a transcript',
  description:
    'Exports a conversation or a call: `{id}` is a conversation id or a call id. API keys need conversations:export, conversations:write and conversations:read. Produces a JSON or plain-text transcript. For a conversation: its messages, oldest first; internal notes are left out unless include_internal is true (then flagged). For a call: the call record with its summary and escalation attempts, as `GET /api/v1/calls/{id}` returns it (`message_count` 0). The record names what was exported in `conversation_id` or `call_id`.',
  responses: {
    201: { description: 'The export record', schema: ExportSchema },
    404: {
      ...unknownIdResponse('Conversation'),
      description: 'No conversation or call of the tenant has this id',
    },
  },
};
const getExport: Prose = {
  summary: 'Get an export record',
  responses: {
    200: { description: 'The export record', schema: ExportSchema },
    404: unknownIdResponse('Export'),
  },
};
const downloadExport: Prose = {
  summary: 'Download a transcript',
  description: 'application/json or text/plain, with Content-Disposition: attachment.',
  responses: {
    200: { description: 'The transcript file', mediaTypes: ['application/json', 'text/plain'] },
    404: unknownIdResponse('Export'),
  },
};

// ---- v1: API key or dashboard session ----

const v1 = ['Conversations'];

/** A conversation's files (docs/files.md): upload as the raw body, list, read with a fresh link, delete. */
export const attachments = attachmentRoutes({
  base: '/api/v1/conversations/{id}',
  params: ConversationIdParam,
  noun: 'Conversation',
  tag: 'Conversations',
});

export const createConversationV1 = defineRoute({
  operationId: 'createConversationV1',
  emits: ['conversation.created'],
  method: 'post',
  path: '/api/v1/conversations',
  tags: v1,
  body: CreateConversationBody,
  ...createConversation,
});

export const listConversationsV1 = defineRoute({
  operationId: 'listConversationsV1',
  method: 'get',
  path: '/api/v1/conversations',
  tags: v1,
  query: ListConversationsQuery,
  ...listConversations,
});

export const getConversationV1 = defineRoute({
  operationId: 'getConversationV1',
  description:
    'One conversation of your tenant. Unknown ids and other tenants’ ids are 404 `Conversation not found`.',
  method: 'get',
  path: '/api/v1/conversations/{id}',
  tags: v1,
  params: ConversationIdParam,
  ...getConversation,
});

export const updateConversationV1 = defineRoute({
  operationId: 'updateConversationV1',
  emits: ['conversation.resolved', 'conversation.reopened'],
  method: 'patch',
  path: '/api/v1/conversations/{id}',
  tags: v1,
  params: ConversationIdParam,
  body: UpdateConversationBody,
  ...updateConversation,
});

export const assignConversationV1 = defineRoute({
  operationId: 'assignConversationV1',
  emits: ['conversation.assigned'],
  method: 'post',
  path: '/api/v1/conversations/{id}/assign',
  tags: v1,
  params: ConversationIdParam,
  body: AssignConversationBody,
  ...assignConversation,
});

export const createMessageV1 = defineRoute({
  operationId: 'createMessageV1',
  emits: ['message.sent', 'conversation.note_added'],
  method: 'post',
  path: '/api/v1/conversations/{id}/messages',
  tags: v1,
  params: ConversationIdParam,
  body: CreateMessageBody,
  ...createMessage,
});

export const listMessagesV1 = defineRoute({
  operationId: 'listMessagesV1',
  description:
    'The messages of a conversation, oldest first, internal notes included. 404 for an unknown conversation.',
  method: 'get',
  path: '/api/v1/conversations/{id}/messages',
  tags: v1,
  params: ConversationIdParam,
  query: ListMessagesQuery,
  ...listMessages,
});

export const createExportV1 = defineRoute({
  operationId: 'createConversationExportV1',
  method: 'post',
  path: '/api/v1/conversations/{id}/export',
  tags: v1,
  params: ExportOwnerParam,
  body: ExportBody,
  ...createExport,
});

export const getExportV1 = defineRoute({
  operationId: 'getConversationExportV1',
  description:
    'The state of an export of a conversation (or a call): `pending`, then `completed` with its download address, or `failed`. 404 for an unknown export.',
  method: 'get',
  path: '/api/v1/conversations/{id}/exports/{export_id}',
  tags: v1,
  params: ExportParam,
  ...getExport,
});

export const downloadExportV1 = defineRoute({
  operationId: 'downloadConversationExportV1',
  method: 'get',
  path: '/api/v1/conversations/{id}/exports/{export_id}/download',
  tags: v1,
  params: ExportParam,
  ...downloadExport,
});

// ---- v2: the same operations, dashboard sessions only ----

const v2 = ['Conversations (dashboard)'];

export const createConversationV2 = defineRoute({
  operationId: 'createConversationV2',
  emits: ['conversation.created'],
  method: 'post',
  path: '/api/v2/conversations',
  tags: v2,
  body: CreateConversationBody,
  ...createConversation,
});

export const listConversationsV2 = defineRoute({
  operationId: 'listConversationsV2',
  method: 'get',
  path: '/api/v2/conversations',
  tags: v2,
  query: ListConversationsQuery,
  ...listConversations,
});

export const getConversationV2 = defineRoute({
  operationId: 'getConversationV2',
  description:
    'One conversation of your tenant (the v2 twin of getConversationV1, same shape). Unknown ids and other tenants’ ids are 404 `Conversation not found`.',
  method: 'get',
  path: '/api/v2/conversations/{id}',
  tags: v2,
  params: ConversationIdParam,
  ...getConversation,
});

export const updateConversationV2 = defineRoute({
  operationId: 'updateConversationV2',
  emits: ['conversation.resolved', 'conversation.reopened'],
  method: 'patch',
  path: '/api/v2/conversations/{id}',
  tags: v2,
  params: ConversationIdParam,
  body: UpdateConversationBody,
  ...updateConversation,
});

export const assignConversationV2 = defineRoute({
  operationId: 'assignConversationV2',
  emits: ['conversation.assigned'],
  method: 'post',
  path: '/api/v2/conversations/{id}/assign',
  tags: v2,
  params: ConversationIdParam,
  body: AssignConversationBody,
  ...assignConversation,
});

export const createMessageV2 = defineRoute({
  operationId: 'createMessageV2',
  emits: ['message.sent', 'conversation.note_added'],
  method: 'post',
  path: '/api/v2/conversations/{id}/messages',
  tags: v2,
  params: ConversationIdParam,
  body: CreateMessageBody,
  ...createMessage,
});

export const listMessagesV2 = defineRoute({
  operationId: 'listMessagesV2',
  description:
    'The messages of a conversation, oldest first, internal notes included (v2 twin). 404 for an unknown conversation.',
  method: 'get',
  path: '/api/v2/conversations/{id}/messages',
  tags: v2,
  params: ConversationIdParam,
  query: ListMessagesQuery,
  ...listMessages,
});

export const createExportV2 = defineRoute({
  operationId: 'createConversationExportV2',
  method: 'post',
  path: '/api/v2/conversations/{id}/export',
  tags: v2,
  params: ExportOwnerParam,
  body: ExportBody,
  ...createExport,
});

export const getExportV2 = defineRoute({
  operationId: 'getConversationExportV2',
  description: 'The state of an export of a conversation or call (v2 twin). 404 for an unknown export.',
  method: 'get',
  path: '/api/v2/conversations/{id}/exports/{export_id}',
  tags: v2,
  params: ExportParam,
  ...getExport,
});

export const downloadExportV2 = defineRoute({
  operationId: 'downloadConversationExportV2',
  method: 'get',
  path: '/api/v2/conversations/{id}/exports/{export_id}/download',
  tags: v2,
  params: ExportParam,
  ...downloadExport,
});

// ---- inbound channels ----

const inbound = ['Inbound channels'];

export const widgetMessage = defineRoute({
  operationId: 'createWidgetMessage',
  emits: ['conversation.created', 'conversation.reopened', 'message.received', 'message.sent'],
  method: 'post',
  path: '/api/v1/widget/messages',
  summary: 'Widget chat: a visitor message',
  description:
    'Public (no credential). The tenant is named by `tenant_id` (unknown: 404 `Tenant not found`), the visitor by email and/or visitor_id. Finds or creates the contact and its open widget conversation (`conversation.created` when new), stores the message (`message.received`, sender_type contact, source widget), then asks the answerer for an AI auto-reply (`message.sent`, sender_type ai) unless a human agent is assigned.',
  tags: inbound,
  body: WidgetMessageBody,
  responses: {
    201: { description: 'Stored', schema: InboundResultSchema },
    404: unknownIdResponse('Tenant'),
  },
});

export const inboundEmail = defineRoute({
  operationId: 'receiveInboundEmail',
  emits: ['conversation.created', 'conversation.reopened', 'message.received'],
  method: 'post',
  path: '/api/internal/channels/email',
  summary: 'Inbound email (mail ingestion job)',
  description:
    "Internal token. Same behaviour as the widget with source email and no AI auto-reply. conversation_id threads the email into an existing conversation of the same contact; a resolved/closed one is reopened (`conversation.reopened`). `attachments` carries the email's files inline (base64, at most 10): checked before anything is stored (empty or bad base64 422 at the file's field, over ATTACHMENT_MAX_BYTES or past the plan's storage cap 413), stored, and attached to the message; a refused message leaves no file behind. The body may exceed MAX_BODY_BYTES by one base64 file at ATTACHMENT_MAX_BYTES.",
  tags: inbound,
  body: InboundEmailBody,
  bodyExample: {
    tenant_id: 'ten_0mha1b2c3D4e5F6g7H8i9J',
    from: 'ana@example.com',
    from_name: 'Ana Silva',
    subject: 'Invoice 1042',
    body: 'Please find the corrected invoice attached.',
    attachments: [
      {
        filename: 'invoice-1042.txt',
        content_type: 'text/plain',
        content_base64: 'SW52b2ljZSAxMDQyOiBFVVIgMTIwLjAwCg==',
      },
    ],
  },
  responses: {
    201: { description: 'Stored', schema: InboundResultSchema },
    404: unknownIdResponse('Tenant'),
  },
});

export const inboundWhatsApp = defineRoute({
  operationId: 'receiveInboundWhatsApp',
  emits: ['conversation.created', 'conversation.reopened', 'message.received', 'message.sent'],
  method: 'post',
  path: '/api/internal/channels/whatsapp',
  summary: 'Inbound WhatsApp message (WhatsApp webhook handler)',
  description:
    "Internal token. Contact by phone number (normalised to + and digits); AI auto-reply as for the widget. `attachments`: the message's media inline, as for inbound email.",
  tags: inbound,
  body: InboundWhatsAppBody,
  bodyExample: {
    tenant_id: 'ten_0mha1b2c3D4e5F6g7H8i9J',
    from: '+14155550123',
    name: 'Ana Silva',
    body: 'Here is the receipt',
    attachments: [
      {
        filename: 'receipt.txt',
        content_type: 'text/plain',
        content_base64: 'UmVjZWlwdCA4ODE6IEVVUiA0NS4wMAo=',
      },
    ],
  },
  responses: {
    201: { description: 'Stored', schema: InboundResultSchema },
    404: unknownIdResponse('Tenant'),
  },
});

export const components = defineComponents({
  docs: {
    Conversation: {
      description: 'A messaging thread with one contact on one channel.',
      fields: {
        id: 'Conversation id (`cnv_…`)',
        tenant_id: 'The tenant',
        contact_id: 'The contact it is with (`ctc_…`)',
        subject: 'Subject line',
        status: '`open`, `waiting` (on the contact), `resolved` or `closed`',
        channel: 'Channel it happens on',
        priority: 'Priority',
        assignee_user_id: 'Agent it is assigned to',
        assignee_team_id: 'Team it is assigned to',
        tags: 'Labels',
        created_at: 'When it started (ISO 8601 UTC)',
        updated_at: 'Last change or message',
      },
    },
    Message: {
      description:
        'One message of a conversation: from the contact, an agent, or the AI; or an internal note.',
      fields: {
        id: 'Message id (`msg_…`)',
        conversation_id: 'The conversation',
        sender_type: 'Who wrote it',
        sender_id: 'User id or contact id of the sender',
        body: 'Text of the message',
        content_type: 'Format of `body`',
        is_internal: 'An internal note, never sent to the contact',
        source: 'Where it was written',
        delivery_status: 'Outbound delivery state on the channel',
        created_at: 'When it was written',
      },
    },
    ConversationExport: {
      description: 'A stored transcript of a conversation or of a call, and where to download it.',
      fields: {
        id: 'Export id (`exp_…`)',
        conversation_id: 'The conversation exported, or null for the export of a call',
        call_id: 'The call exported, or null for the export of a conversation',
        format: '`json` or `text`',
        status: '`completed` (transcripts are built while the request waits)',
        include_internal: 'Whether internal notes were included (flagged as such)',
        message_count: 'Messages in the transcript (0 for a call)',
        download_url: 'Where the file downloads (needs conversations:read)',
        created_at: 'When it was exported (ISO 8601 UTC)',
      },
    },
  },
  output: {
    Conversation: ConversationSchema,
    Message: MessageSchema,
    ConversationExport: ExportSchema,
    InboundResult: InboundResultSchema,
  },
  input: {
    ConversationCreate: CreateConversationBody,
    ConversationUpdate: UpdateConversationBody,
    ConversationAssign: AssignConversationBody,
    MessageCreate: CreateMessageBody,
    ConversationExportCreate: ExportBody,
    WidgetMessage: WidgetMessageBody,
    InboundEmail: InboundEmailBody,
    InboundWhatsApp: InboundWhatsAppBody,
  },
});
