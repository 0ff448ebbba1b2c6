import * as z from 'zod';
import {
  CONVERSATION_CHANNELS,
  CONVERSATION_PRIORITIES,
  CONVERSATION_STATUSES,
  ConversationSchema,
} from '../../shared/conversations/records';
import { ROUTING_REASONS_FIXED } from '../../shared/events/catalog';
import { InboundFiles } from '../../shared/files/inbound';
import { AttachmentIds, AttachmentRef } from '../../shared/files/schemas';
import { smtpLimits } from '../../shared/http/email';
import { isoDateTime } from '../../shared/http/instants';
import { requiredName } from '../../shared/http/names';
import { cursorPageQuery, pageQuery } from '../../shared/http/pagination';
import { SlaListFilters } from '../../shared/sla/schemas';

// the value sets and the record are shared with the search: shared/conversations/records.ts
export { CONVERSATION_CHANNELS, CONVERSATION_PRIORITIES, CONVERSATION_STATUSES, ConversationSchema };
export const MESSAGE_CONTENT_TYPES = ['text', 'html', 'markdown'] as const;
/** Team routing algorithm names accepted as routing_reason besides the four fixed reasons. */
export const ROUTING_ALGORITHMS = [
  'balanced',
  'round_robin',
  'least_busy',
  'load_balanced',
  'skill_based',
] as const;
export const ROUTING_REASONS = [...ROUTING_REASONS_FIXED, ...ROUTING_ALGORITHMS] as const;

export const CONVERSATIONS_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;
export const MESSAGES_PAGE = { defaultLimit: 50, maxLimit: 200 } as const;

const RefId = z.string().trim().min(1).max(64);
const Tag = z.string().trim().min(1).max(64);
const Tags = z.array(Tag).max(50);
const Subject = z.string().trim().max(500);
const MessageBody = z.string().trim().min(1).max(20_000);

export const ConversationIdParam = z.object({
  id: z.string().min(1).max(128).describe('The conversation id (`cnv_…`)'),
});
/** `POST …/{id}/export`: a conversation's transcript, or a call's (docs/conversations.md#export). */
export const ExportOwnerParam = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .describe('The conversation id (`cnv_…`), or a call id (`call_…`): the export of a call'),
});
export const ExportParam = z.object({
  id: z.string().min(1).max(128).describe('The conversation or call id the export was made of'),
  export_id: z.string().min(1).max(128).describe('The export id (`exp_…`)'),
});

export const CreateConversationBody = z.strictObject({
  contact_id: RefId.nullish(),
  subject: Subject.nullish(),
  channel: z.enum(CONVERSATION_CHANNELS).default('api'),
  priority: z.enum(CONVERSATION_PRIORITIES).default('medium'),
  tags: Tags.default([]),
});
export type CreateConversationBody = z.infer<typeof CreateConversationBody>;

export const UpdateConversationBody = z
  .strictObject({
    status: z.enum(CONVERSATION_STATUSES).optional(),
    priority: z.enum(CONVERSATION_PRIORITIES).optional(),
    tags: Tags.optional(),
    subject: Subject.nullable().optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'At least one of status, priority, tags, subject is required',
  })
  .meta({ minProperties: 1 });
export type UpdateConversationBody = z.infer<typeof UpdateConversationBody>;

export const AssignConversationBody = z
  .strictObject({
    assignee_user_id: RefId.nullable().optional(),
    assignee_team_id: RefId.nullable().optional(),
    routing_reason: z.enum(ROUTING_REASONS).optional(),
  })
  // present, not truthy: `{"assignee_user_id": null}` is how a caller clears the assignment
  .refine((b) => b.assignee_user_id !== undefined || b.assignee_team_id !== undefined, {
    message: 'assignee_user_id or assignee_team_id is required',
  })
  .meta({ anyOf: [{ required: ['assignee_user_id'] }, { required: ['assignee_team_id'] }] });
export type AssignConversationBody = z.infer<typeof AssignConversationBody>;

export const CreateMessageBody = z
  .strictObject({
    body: MessageBody.optional(),
    saved_reply_id: RefId.optional().describe(
      'A saved reply (GET /api/v2/saved-replies) to send in place of `body`, its placeholders rendered',
    ),
    is_internal: z.boolean().default(false),
    content_type: z.enum(MESSAGE_CONTENT_TYPES).default('text'),
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
export type CreateMessageBody = z.infer<typeof CreateMessageBody>;

const SORTS = ['-created_at', 'created_at', 'updated_at', '-updated_at', 'sla_due_at'] as const;

export const ListConversationsQuery = cursorPageQuery({
  ...CONVERSATIONS_PAGE,
  items: 'conversations',
}).extend({
  status: z.enum(CONVERSATION_STATUSES).optional().describe('Only conversations in this status'),
  channel: z.enum(CONVERSATION_CHANNELS).optional().describe('Only conversations on this channel'),
  contact_id: RefId.optional().describe('Only conversations with this contact (`ctc_…`)'),
  assignee_user_id: RefId.optional().describe(
    'Only conversations assigned to this agent (a tenant user id, `tus_…`)',
  ),
  assignee_team_id: RefId.optional().describe('Only conversations assigned to this team'),
  updated_since: isoDateTime
    .optional()
    .describe(
      'Only conversations with `updated_at` at or after this ISO 8601 time (inclusive); pair with `sort=updated_at` to mirror',
    ),
  ...SlaListFilters,
  sort: z
    .enum(SORTS)
    .default('-created_at')
    .describe(
      'Order, id breaking ties the same way: `-created_at` (default) newest first, `created_at` oldest first; `updated_at` oldest change first (for incremental mirroring), `-updated_at` latest change first; `sla_due_at` the earliest SLA due time not yet met, soonest first (only conversations that have one)',
    ),
});
export type ListConversationsQuery = z.infer<typeof ListConversationsQuery>;

export const ListMessagesQuery = pageQuery(MESSAGES_PAGE);

export const ExportBody = z
  .strictObject({
    format: z.enum(['json', 'text']).default('json'),
    include_internal: z.boolean().default(false),
  })
  .optional();

// ---- inbound channels ----

const TenantRef = z.string().trim().min(1).max(64);
const Email = z
  .email()
  .max(320)
  .refine(...smtpLimits);

export const WidgetMessageBody = z
  .strictObject({
    tenant_id: TenantRef,
    email: Email.optional(),
    visitor_id: z.string().trim().min(1).max(128).optional(),
    name: requiredName(200).optional(),
    body: MessageBody,
    conversation_id: RefId.optional(),
  })
  .refine((b) => b.email !== undefined || b.visitor_id !== undefined, {
    message: 'email or visitor_id is required',
  })
  .meta({ anyOf: [{ required: ['email'] }, { required: ['visitor_id'] }] });
export type WidgetMessageBody = z.infer<typeof WidgetMessageBody>;

export const InboundEmailBody = z.strictObject({
  tenant_id: TenantRef,
  from: Email,
  from_name: requiredName(200).optional(),
  subject: Subject.optional(),
  body: MessageBody,
  content_type: z.enum(MESSAGE_CONTENT_TYPES).default('text'),
  /** thread reference: the conversation this email replies to */
  conversation_id: RefId.optional(),
  /** the email's attachments, inline (docs/files.md) */
  attachments: InboundFiles,
});
export type InboundEmailBody = z.infer<typeof InboundEmailBody>;

export const InboundWhatsAppBody = z.strictObject({
  tenant_id: TenantRef,
  from: z
    .string()
    .trim()
    .regex(/^\+?[0-9][0-9 ().-]{5,30}$/, 'must be a phone number'),
  name: requiredName(200).optional(),
  body: MessageBody,
  conversation_id: RefId.optional(),
  /** the message's media (a document, an image), inline (docs/files.md) */
  attachments: InboundFiles,
});
export type InboundWhatsAppBody = z.infer<typeof InboundWhatsAppBody>;

// ---- response shapes (OpenAPI) ----

export const MessageSchema = z.object({
  id: z.string(),
  conversation_id: z.string(),
  sender_type: z.enum(['contact', 'agent', 'ai']),
  sender_id: z.string().nullable(),
  body: z.string(),
  content_type: z.enum(MESSAGE_CONTENT_TYPES),
  is_internal: z.boolean(),
  source: z.enum(['dashboard', 'widget', 'whatsapp', 'email']),
  delivery_status: z.enum(['queued', 'sent', 'failed', 'skipped']).nullable(),
  created_at: z.string(),
  attachments: z.array(AttachmentRef),
});

export const InboundResultSchema = z.object({
  conversation_id: z.string(),
  conversation_created: z.boolean(),
  message: MessageSchema,
  reply: MessageSchema.nullable(),
});

export const ExportSchema = z.object({
  id: z.string(),
  /** one of the two is set: what was exported */
  conversation_id: z.string().nullable(),
  call_id: z.string().nullable(),
  format: z.enum(['json', 'text']),
  status: z.enum(['completed', 'failed']),
  include_internal: z.boolean(),
  message_count: z.number(),
  download_url: z.string(),
  created_at: z.string(),
});
