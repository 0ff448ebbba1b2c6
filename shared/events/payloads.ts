/**
 * The `data` of every catalog event, as zod schemas: the one description of each payload. The
 * emitters' types are inferred from them (`EventDataMap`), the OpenAPI document's `webhooks` show
 * them (functions/docs/events.ts), and the tests validate real deliveries and every example
 * (shared/events/examples.ts) against them. Required fields are required; optional ones may be
 * absent. Payload shapes the catalog leaves open (ticket.updated/replied/resolved, usage.reported,
 * config.updated) are ours, documented with their areas (docs/tickets.md, docs/platform.md; the
 * list in docs/webhooks.md).
 *
 * Only the docs Worker needs these at run time: everything else imports types from here
 * (`import type`), which the bundler drops.
 */
import * as z from 'zod';
import {
  CALL_OUTCOMES,
  CONTACT_SYNC_SOURCES,
  ESCALATION_REASONS,
  ESCALATION_ROUTES,
  type EventType,
  KB_PROVIDERS,
  MESSAGE_SENDER_TYPES,
  MESSAGE_SOURCES,
} from './catalog';
import { Ticket } from './views';

const ts = (what: string) => z.string().describe(`${what} (ISO 8601 UTC)`);
const id = (what: string) => z.string().describe(what);
const opt = <T extends z.ZodType>(s: T, text: string) => s.nullable().optional().describe(text);
const changes = z
  .record(
    z.string(),
    z.object({
      from: z.unknown().describe('The value before'),
      to: z.unknown().describe('The value after'),
    }),
  )
  .describe('Each changed field: its value before and after');

export const ConversationRef = z
  .object({
    id: id('The conversation id (`cnv_…`)'),
    tenant_id: id('The tenant id').optional(),
    status: z.string().optional().describe('Status: open, pending, snoozed, resolved or closed'),
    channel: z.string().optional().describe('Channel, e.g. `email`, `widget`, `whatsapp`'),
    contact_id: opt(z.string(), 'The contact the conversation is with'),
    subject: opt(z.string(), 'Subject line'),
    priority: z.string().optional().describe('Priority, e.g. `medium`'),
    assignee_user_id: opt(z.string(), 'The agent it is assigned to'),
    assignee_team_id: opt(z.string(), 'The team it is assigned to'),
  })
  .describe('The conversation');
const ConversationWithStatus = ConversationRef.extend({
  status: z.string().describe('Status after the change'),
}).describe('The conversation, with its new status');

export const Attachments = z
  .array(
    z
      .object({
        id: id('The attachment id (`att_…`)'),
        filename: z.string().describe('The name it was uploaded under'),
        content_type: z.string().describe('Its media type'),
        size: z.number().int().describe('Bytes'),
        sha256: z.string().describe('SHA-256 of the bytes, lower-case hex'),
        created_at: ts('When it was uploaded'),
      })
      .describe('A file (metadata only: read it through the API for a download link)'),
  )
  .describe('The files sent with it');

export const MessageRef = z
  .object({
    id: id('The message id (`msg_…`)'),
    conversation_id: id('The conversation it belongs to'),
    body: z.string().optional().describe('The text'),
    sender_type: z.enum(MESSAGE_SENDER_TYPES).optional().describe('Who wrote it'),
    sender_id: opt(z.string(), 'The contact, agent or AI that wrote it'),
    content_type: z.string().optional().describe('Content type, e.g. `text`'),
    source: z.enum(MESSAGE_SOURCES).optional().describe('Where it came from'),
    is_internal: z.boolean().optional().describe('An internal note (never sent to the contact)'),
    created_at: ts('When it was written').optional(),
    attachments: Attachments.optional(),
  })
  .describe('The message');

export const ContactRef = z
  .object({
    id: id('The contact id (`ctc_…`)'),
    external_id: opt(z.string(), 'Id in an external system'),
    first_name: opt(z.string(), 'First name'),
    last_name: opt(z.string(), 'Last name'),
    name: opt(z.string(), 'Full name'),
    email: opt(z.string(), 'Email address'),
    phone: opt(z.string(), 'Phone number'),
    company_id: opt(z.string(), 'The company (`cmp_…`)'),
    company_name: opt(z.string(), 'Company name'),
    provider_type: z.string().optional().describe('Sync only: the helpdesk the contact came from'),
    source: z
      .enum(CONTACT_SYNC_SOURCES)
      .optional()
      .describe('Sync only: which sync wrote it (absent: dashboard API)'),
    mobile: opt(z.string(), 'Sync only: mobile number'),
    active: z.boolean().optional().describe('Sync only: false once deactivated upstream'),
  })
  .describe('The contact; every field but id may be absent');

export const ArticleRef = z
  .object({
    id: id('The article id (`art_…`)'),
    title: z.string().describe('Title'),
    status: z.string().describe('Status, e.g. `published`'),
    url: z.string().nullable().describe('Public address; null for native help-center articles'),
    provider_id: z.enum(KB_PROVIDERS).describe('Where it lives: `itsm` (upstream provider) or `native`'),
    tags: z.array(z.string()).describe('Tags'),
    category: z.string().nullable().describe('Category'),
    language: z.string().describe('Language tag, e.g. `en`'),
    updated_at: ts('Last change'),
  })
  .describe('The article');

const callBase = {
  id: id('The call id (`call_…`)'),
  tenant_id: id('The tenant id'),
};
export const CallStarted = z
  .object({
    ...callBase,
    started_at: ts('When the call started'),
    direction: z.string().describe('Direction, e.g. `inbound`'),
    channel: z.string().describe('Channel, e.g. `phone`'),
    caller_phone: opt(z.string(), 'The caller’s number'),
    telephony_call_sid: opt(z.string(), 'The carrier’s call id'),
    media_room_id: opt(z.string(), 'The media room of a browser call'),
  })
  .describe('The call');
export const CallCompleted = z
  .object({
    ...callBase,
    started_at: ts('When the call started'),
    ended_at: ts('When it ended'),
    duration_seconds: z.number().int().describe('Length in seconds'),
    outcome: z.enum(CALL_OUTCOMES).describe('How it ended'),
    recording_url: opt(z.string(), 'Storage path of the recording'),
    ticket_id: opt(z.string(), 'The ticket it created or updated'),
    detected_language: opt(z.string(), 'Locale tag of the caller’s language'),
    caller_phone: opt(z.string(), 'The caller’s number'),
    telephony_call_sid: opt(z.string(), 'The carrier’s call id'),
  })
  .describe('The call');
export const CallEscalated = z
  .object({
    ...callBase,
    escalated_at: ts('When it was handed to a human'),
    reason: z.enum(ESCALATION_REASONS).describe('Why'),
    escalation_id: id('The escalation id (`esc_…`)'),
    status: z.literal('bridged').describe('Always `bridged`'),
    route: z.enum(ESCALATION_ROUTES).describe('How it was transferred'),
    destination: z.string().describe('Masked: last 4 digits of a number, `sip:[REDACTED]` for a SIP URI'),
  })
  .describe('The escalated call');

const previous = z.string().describe('The status before');
const data = <S extends z.ZodRawShape>(shape: S) => z.object(shape);

/** Every event's `data` schema, keyed by event type. */
export const EVENT_DATA = {
  'conversation.created': data({ conversation: ConversationRef }),
  'conversation.assigned': data({
    conversation: ConversationRef,
    routing_reason: z
      .string()
      .describe(
        'manual_assignment, manual_reassignment, auto_assignment, auto_reassignment, or a team algorithm',
      ),
  }),
  'conversation.resolved': data({ conversation: ConversationWithStatus, previous_status: previous }),
  'conversation.reopened': data({ conversation: ConversationWithStatus, previous_status: previous }),
  'conversation.note_added': data({
    conversation: ConversationRef,
    note: z
      .object({
        id: id('The note id (a message id)'),
        body: z.string().optional().describe('The note'),
        sender_id: opt(z.string(), 'The agent who wrote it'),
        created_at: ts('When it was written').optional(),
      })
      .describe('The internal note'),
  }),
  'message.sent': data({ message: MessageRef, conversation: ConversationRef }),
  'message.received': data({
    message: MessageRef.extend({ sender_type: z.literal('contact').describe('Always `contact`') }),
    conversation: ConversationRef,
  }),
  'contact.created': data({ contact: ContactRef }),
  'contact.updated': data({ contact: ContactRef }),
  'contact.deleted': data({ contact: ContactRef }),
  'ticket.created': data({ ticket: Ticket }),
  'ticket.updated': data({ ticket: Ticket, changes }),
  'ticket.replied': data({
    ticket: Ticket,
    reply: z
      .object({
        id: id('The reply id (`trp_…`)'),
        body: z.string().describe('The text'),
        author_type: z.string().describe('Who wrote it: `agent`, `requester` or `system`'),
        author_id: z.string().nullable().describe('The author'),
        is_public: z.boolean().describe('Visible to the requester'),
        created_at: ts('When it was written'),
        attachments: Attachments,
      })
      .describe('The reply'),
  }),
  'ticket.resolved': data({ ticket: Ticket, previous_status: previous }),
  'call.started': data({ call: CallStarted }),
  'call.completed': data({ call: CallCompleted }),
  'call.escalated': data({ call: CallEscalated }),
  'kb.article.published': data({ article: ArticleRef }),
  'kb.article.updated': data({ article: ArticleRef }),
  'usage.reported': data({
    usage: z
      .record(z.string(), z.unknown())
      .describe(
        'The period’s usage summary: tenant_id, period, period_start, period_end, plan, totals, quotas',
      ),
  }),
  'config.updated': data({
    config: z
      .object({
        section: z.string().describe('The configuration section, e.g. `general`, `tenant`'),
        changes,
      })
      .describe('What changed'),
  }),
} satisfies Record<EventType, z.ZodType>;

/** `data` of each event type. */
export type EventDataMap = { [T in EventType]: z.infer<(typeof EVENT_DATA)[T]> };

export type ConversationRef = z.infer<typeof ConversationRef>;
export type MessageRef = z.infer<typeof MessageRef>;
export type ContactRef = z.infer<typeof ContactRef>;
export type ArticleRef = z.infer<typeof ArticleRef>;
/** A file sent with a reply or message, as events carry it: metadata only (docs/files.md). */
export type AttachmentMeta = z.infer<typeof Attachments>[number];

/** The delivery body: `{event_type, timestamp, data}` (no top-level event or delivery id). */
export interface EventEnvelope<T extends EventType = EventType> {
  event_type: T;
  /** ISO 8601 UTC */
  timestamp: string;
  data: EventDataMap[T];
}
