import { z } from 'zod';
import { defineComponents, defineRoutes, type RouteDoc } from '../../shared/http/openapi';
import {
  AssignConversationBody,
  ConversationIdParam,
  ConversationSchema,
  CreateConversationBody,
  CreateMessageBody,
  ExportBody,
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

const notFound = (what: string) => ({
  description: `${what} not found`,
  example: { detail: `${what} not found` },
});

/** The same operations on v1 (API key or dashboard) and v2 (dashboard only). */
function conversationRoutes(base: string, tag: string): RouteDoc[] {
  const one = `${base}/{id}`;
  return [
    {
      method: 'post',
      path: base,
      summary: 'Create a conversation',
      description:
        "Emits `conversation.created`. A `contact_id` must be a live contact of the tenant (else 422 at body.contact_id, `Contact not found`); the contact's and its company's conversation_count go up by one.",
      tags: [tag],
      body: CreateConversationBody,
      responses: { 201: { description: 'Created', schema: ConversationSchema } },
    },
    {
      method: 'get',
      path: base,
      summary: 'List conversations',
      description:
        'Filters: status, channel, contact_id, assignee_user_id, assignee_team_id, updated_since (inclusive, updated_at >= value). sort: `-created_at` (default, newest first), `created_at`, `updated_at` (ascending by updated_at then id), `-updated_at`.',
      tags: [tag],
      query: ListConversationsQuery,
      responses: { 200: { description: 'A page', schema: page('conversations', ConversationSchema) } },
    },
    {
      method: 'get',
      path: one,
      summary: 'Get a conversation',
      tags: [tag],
      params: ConversationIdParam,
      responses: {
        200: { description: 'The conversation', schema: ConversationSchema },
        404: notFound('Conversation'),
      },
    },
    {
      method: 'patch',
      path: one,
      summary: 'Update status, priority, tags or subject',
      description:
        'Only a status change across the open/closed boundary emits: open|waiting -> resolved|closed emits `conversation.resolved`, resolved|closed -> open|waiting emits `conversation.reopened` (both with top-level previous_status). Same status, open<->waiting, resolved<->closed, priority, tag and subject edits emit nothing.',
      tags: [tag],
      params: ConversationIdParam,
      body: UpdateConversationBody,
      responses: {
        200: { description: 'The conversation', schema: ConversationSchema },
        404: notFound('Conversation'),
      },
    },
    {
      method: 'post',
      path: `${one}/assign`,
      summary: 'Assign to a user and/or team',
      description:
        'Emits `conversation.assigned` with top-level routing_reason (default manual_assignment, or manual_reassignment when it already had an assignee). An omitted field keeps its value, null clears it. Re-assigning to the current assignees changes nothing and emits nothing.',
      tags: [tag],
      params: ConversationIdParam,
      body: AssignConversationBody,
      responses: {
        200: { description: 'The conversation', schema: ConversationSchema },
        404: notFound('Conversation'),
      },
    },
    {
      method: 'post',
      path: `${one}/messages`,
      summary: 'Post an agent reply or an internal note',
      description:
        'is_internal=true: an internal note, emits exactly one `conversation.note_added` and no `message.sent`. Otherwise an agent reply: emits `message.sent` in the same transaction, before the outbound channel send (which runs after the response; its outcome is delivery_status sent|failed).',
      tags: [tag],
      params: ConversationIdParam,
      body: CreateMessageBody,
      responses: { 201: { description: 'Created', schema: MessageSchema }, 404: notFound('Conversation') },
    },
    {
      method: 'get',
      path: `${one}/messages`,
      summary: 'List messages, oldest first',
      tags: [tag],
      params: ConversationIdParam,
      query: ListMessagesQuery,
      responses: {
        200: { description: 'A page', schema: page('messages', MessageSchema) },
        404: notFound('Conversation'),
      },
    },
    {
      method: 'post',
      path: `${one}/export`,
      summary: 'Export a transcript',
      description:
        'API keys need conversations:export, conversations:write and conversations:read. Produces a JSON or plain-text transcript; internal notes are left out unless include_internal is true (then flagged).',
      tags: [tag],
      params: ConversationIdParam,
      body: ExportBody,
      responses: {
        201: { description: 'The export record', schema: ExportSchema },
        404: notFound('Conversation'),
      },
    },
    {
      method: 'get',
      path: `${one}/exports/{export_id}`,
      summary: 'Get an export record',
      tags: [tag],
      params: ExportParam,
      responses: { 200: { description: 'The export record', schema: ExportSchema }, 404: notFound('Export') },
    },
    {
      method: 'get',
      path: `${one}/exports/{export_id}/download`,
      summary: 'Download a transcript',
      description: 'application/json or text/plain, with Content-Disposition: attachment.',
      tags: [tag],
      params: ExportParam,
      responses: { 200: { description: 'The transcript file' }, 404: notFound('Export') },
    },
  ];
}

export const routes = defineRoutes([
  ...conversationRoutes('/api/v1/conversations', 'Conversations'),
  ...conversationRoutes('/api/v2/conversations', 'Conversations (dashboard)'),
  {
    method: 'post',
    path: '/api/v1/widget/messages',
    summary: 'Widget chat: a visitor message',
    description:
      'Public (no credential). The tenant is named by `tenant_id` (unknown: 404 `Tenant not found`), the visitor by email and/or visitor_id. Finds or creates the contact and its open widget conversation (`conversation.created` when new), stores the message (`message.received`, sender_type contact, source widget), then asks the answerer for an AI auto-reply (`message.sent`, sender_type ai) unless a human agent is assigned.',
    tags: ['Inbound channels'],
    body: WidgetMessageBody,
    responses: { 201: { description: 'Stored', schema: InboundResultSchema }, 404: notFound('Tenant') },
  },
  {
    method: 'post',
    path: '/api/internal/channels/email',
    summary: 'Inbound email (mail ingestion job)',
    description:
      'Internal token. Same behaviour as the widget with source email and no AI auto-reply. conversation_id threads the email into an existing conversation of the same contact; a resolved/closed one is reopened (`conversation.reopened`).',
    tags: ['Inbound channels'],
    body: InboundEmailBody,
    responses: { 201: { description: 'Stored', schema: InboundResultSchema }, 404: notFound('Tenant') },
  },
  {
    method: 'post',
    path: '/api/internal/channels/whatsapp',
    summary: 'Inbound WhatsApp message (WhatsApp webhook handler)',
    description:
      'Internal token. Contact by phone number (normalised to + and digits); AI auto-reply as for the widget.',
    tags: ['Inbound channels'],
    body: InboundWhatsAppBody,
    responses: { 201: { description: 'Stored', schema: InboundResultSchema }, 404: notFound('Tenant') },
  },
]);

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
