// The webhook events as the OpenAPI document's top-level `webhooks` show them: one schema per
// event's `data` (the shapes of shared/events/catalog.ts, checked against them below at compile
// time) with the example a test delivery carries (shared/events/examples.ts). Docs Worker only.
import * as z from 'zod';
import {
  CALL_OUTCOMES,
  CONTACT_SYNC_SOURCES,
  ESCALATION_REASONS,
  ESCALATION_ROUTES,
  EVENT_GROUPS,
  type EventDataMap,
  type EventType,
  KB_PROVIDERS,
  MESSAGE_SENDER_TYPES,
  MESSAGE_SOURCES,
} from '../../shared/events/catalog';
import { EVENT_EXAMPLES } from '../../shared/events/examples';
import type { WebhookEventDoc } from '../../shared/http/openapi-doc';

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

const TicketSummary = z
  .object({
    id: id('The ticket id (`tkt_…`)'),
    subject: z.string().describe('The ticket subject'),
    status: z.string().describe('Status: new, open, pending, on_hold, resolved or closed'),
    priority: z.string().describe('Priority: low, medium, high or urgent'),
  })
  .loose()
  .describe('The ticket: id, subject, status and priority, and possibly more of its fields');

const ConversationRef = z
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

const Attachments = z
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

const MessageRef = z
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

const ContactRef = z
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

const ArticleRef = z
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
const CallStarted = z
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
const CallCompleted = z
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
const CallEscalated = z
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
const DATA = {
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
  'ticket.created': data({ ticket: TicketSummary }),
  'ticket.updated': data({ ticket: TicketSummary, changes }),
  'ticket.replied': data({
    ticket: TicketSummary,
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
  'ticket.resolved': data({ ticket: TicketSummary, previous_status: previous }),
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

// each schema accepts exactly the catalog's payload type (a drift in either fails typecheck)
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const agree: { [T in EventType]: Same<z.input<(typeof DATA)[T]>, EventDataMap[T]> } = Object.fromEntries(
  Object.keys(DATA).map((t) => [t, true]),
) as never;
void agree;

const WHEN: Record<EventType, string> = {
  'conversation.created': 'A conversation was started (agent inbox, widget, WhatsApp or email).',
  'conversation.assigned': 'A conversation was assigned or reassigned to an agent or team.',
  'conversation.resolved': 'A conversation crossed from open to closed (resolved or closed).',
  'conversation.reopened': 'A closed conversation was opened again.',
  'conversation.note_added': 'An agent added an internal note (no message.sent for it).',
  'message.sent': 'An outbound message (agent reply or AI auto-reply) was stored, before any channel send.',
  'message.received': 'An inbound message from the contact was stored (widget, WhatsApp or email).',
  'contact.created': 'A contact was created through the dashboard contacts API or a helpdesk sync.',
  'contact.updated': 'A contact changed, was restored, or was deactivated by a full sync.',
  'contact.deleted': 'A contact was deleted.',
  'ticket.created':
    'A ticket was created (Tickets API, end-user app, or a call with outcome ticket_created).',
  'ticket.updated': 'A ticket changed (PATCH /api/v1/tickets/{ticket_id}); `changes` lists each field.',
  'ticket.replied': 'A reply was added to a ticket.',
  'ticket.resolved': 'A ticket moved to resolved or closed.',
  'call.started': 'A call record was stored (once per call).',
  'call.completed': 'A call finished and was processed (once per call, escalated ones too).',
  'call.escalated': 'A call was transferred to a human (failed escalations emit nothing).',
  'kb.article.published': 'An article was published to a provider (one per successful destination).',
  'kb.article.updated': 'A help-center article was changed.',
  'usage.reported': 'A billing period closed: the tenant’s usage for it (once per period).',
  'config.updated': 'A configuration section, the tenant profile or the plan changed.',
};

const GROUP_OF = Object.fromEntries(
  Object.entries(EVENT_GROUPS).flatMap(([group, types]) => types.map((t) => [t, group])),
) as Record<EventType, string>;

/** One entry per catalog event, in catalog order. */
export const WEBHOOK_EVENTS: readonly WebhookEventDoc[] = (Object.keys(DATA) as EventType[]).map((type) => ({
  type,
  group: GROUP_OF[type],
  description: WHEN[type],
  data: DATA[type],
  example: EVENT_EXAMPLES[type],
}));
