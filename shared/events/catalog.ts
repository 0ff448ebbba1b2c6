/**
 * The webhook event catalog (spec: Events > Catalog) and the shape of each event's `data`.
 * Required fields are required here; the spec's optional ones are optional. Payload shapes the
 * spec leaves open (ticket.updated/replied/resolved, usage.reported, config.updated) are ours,
 * documented with their areas (docs/tickets.md, docs/platform.md; the list in docs/webhooks.md).
 */
export const EVENT_GROUPS = {
  Conversations: [
    'conversation.created',
    'conversation.assigned',
    'conversation.resolved',
    'conversation.reopened',
    'conversation.note_added',
  ],
  Messages: ['message.sent', 'message.received'],
  Contacts: ['contact.created', 'contact.updated', 'contact.deleted'],
  Tickets: ['ticket.created', 'ticket.updated', 'ticket.replied', 'ticket.resolved'],
  Calls: ['call.started', 'call.completed', 'call.escalated'],
  'Knowledge Base': ['kb.article.published', 'kb.article.updated'],
  System: ['usage.reported', 'config.updated'],
} as const;

export type EventType = (typeof EVENT_GROUPS)[keyof typeof EVENT_GROUPS][number];
export const EVENT_TYPES: readonly EventType[] = Object.values(EVENT_GROUPS).flat();
const EVENT_SET: ReadonlySet<string> = new Set(EVENT_TYPES);
export const isEventType = (v: string): v is EventType => EVENT_SET.has(v);

/** `*` in a subscription means every event of the catalog. */
export const ALL_EVENTS = '*';

export const CALL_OUTCOMES = [
  'ticket_created',
  'status_checked',
  'kb_article',
  'escalated',
  'hung_up',
  'error',
] as const;
export const ESCALATION_REASONS = [
  'user_requested',
  'low_confidence',
  'repeated_failure',
  'system_error',
  'out_of_scope',
  'auth_failure',
] as const;
export const ESCALATION_ROUTES = ['telephony_number', 'sip_trunk'] as const;
export const ROUTING_REASONS_FIXED = [
  'manual_assignment',
  'manual_reassignment',
  'auto_assignment',
  'auto_reassignment',
] as const;
export const MESSAGE_SENDER_TYPES = ['contact', 'agent', 'ai'] as const;
export const MESSAGE_SOURCES = ['dashboard', 'widget', 'whatsapp', 'email'] as const;
export const CONTACT_SYNC_SOURCES = ['helpdesk_a_sync', 'helpdesk_b_sync'] as const;
export const KB_PROVIDERS = ['itsm', 'native'] as const;

type Ts = string; // ISO 8601 UTC

export interface TicketSummary {
  id: string;
  subject: string;
  status: string;
  priority: string;
  [field: string]: unknown;
}

export interface CallStarted {
  id: string;
  tenant_id: string;
  started_at: Ts;
  direction: string;
  channel: string;
  caller_phone?: string | null;
  telephony_call_sid?: string | null;
  media_room_id?: string | null;
}

export interface CallCompleted {
  id: string;
  tenant_id: string;
  started_at: Ts;
  ended_at: Ts;
  duration_seconds: number;
  outcome: (typeof CALL_OUTCOMES)[number];
  recording_url?: string | null;
  ticket_id?: string | null;
  detected_language?: string | null;
  caller_phone?: string | null;
  telephony_call_sid?: string | null;
}

export interface CallEscalated {
  id: string;
  tenant_id: string;
  escalated_at: Ts;
  reason: (typeof ESCALATION_REASONS)[number];
  escalation_id: string;
  status: 'bridged';
  route: (typeof ESCALATION_ROUTES)[number];
  /** masked: last 4 digits of a phone number, `sip:[REDACTED]` for a SIP URI */
  destination: string;
}

export interface ConversationRef {
  id: string;
  tenant_id?: string;
  status?: string;
  channel?: string;
  contact_id?: string | null;
  subject?: string | null;
  priority?: string;
  assignee_user_id?: string | null;
  assignee_team_id?: string | null;
}

/** A file sent with a reply or message, as events carry it: metadata only (docs/files.md). */
export interface AttachmentMeta {
  id: string;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
  created_at: Ts;
}

export interface MessageRef {
  id: string;
  conversation_id: string;
  body?: string;
  sender_type?: (typeof MESSAGE_SENDER_TYPES)[number];
  sender_id?: string | null;
  content_type?: string;
  source?: (typeof MESSAGE_SOURCES)[number];
  is_internal?: boolean;
  created_at?: Ts;
  attachments?: AttachmentMeta[];
}

export interface ContactRef {
  id: string;
  external_id?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  company_id?: string | null;
  company_name?: string | null;
  provider_type?: string;
  source?: (typeof CONTACT_SYNC_SOURCES)[number];
  mobile?: string | null;
  active?: boolean;
}

export interface ArticleRef {
  id: string;
  title: string;
  status: string;
  url: string | null;
  provider_id: (typeof KB_PROVIDERS)[number];
  tags: string[];
  category: string | null;
  language: string;
  updated_at: Ts;
}

/** `data` of each event type. */
export interface EventDataMap {
  'ticket.created': { ticket: TicketSummary };
  'ticket.updated': { ticket: TicketSummary; changes: Record<string, { from: unknown; to: unknown }> };
  'ticket.replied': {
    ticket: TicketSummary;
    reply: {
      id: string;
      body: string;
      author_type: string;
      author_id: string | null;
      is_public: boolean;
      created_at: Ts;
      attachments: AttachmentMeta[];
    };
  };
  'ticket.resolved': { ticket: TicketSummary; previous_status: string };
  'call.started': { call: CallStarted };
  'call.completed': { call: CallCompleted };
  'call.escalated': { call: CallEscalated };
  'conversation.created': { conversation: ConversationRef };
  'conversation.assigned': { conversation: ConversationRef; routing_reason: string };
  'conversation.resolved': { conversation: ConversationRef & { status: string }; previous_status: string };
  'conversation.reopened': { conversation: ConversationRef & { status: string }; previous_status: string };
  'conversation.note_added': {
    conversation: ConversationRef;
    note: { id: string; body?: string; sender_id?: string | null; created_at?: Ts };
  };
  'message.sent': { message: MessageRef; conversation: ConversationRef };
  'message.received': { message: MessageRef & { sender_type: 'contact' }; conversation: ConversationRef };
  'contact.created': { contact: ContactRef };
  'contact.updated': { contact: ContactRef };
  'contact.deleted': { contact: ContactRef };
  'kb.article.published': { article: ArticleRef };
  'kb.article.updated': { article: ArticleRef };
  'usage.reported': { usage: Record<string, unknown> };
  'config.updated': { config: { section: string; changes: Record<string, { from: unknown; to: unknown }> } };
}

/** The delivery body: `{event_type, timestamp, data}` (no top-level event or delivery id). */
export interface EventEnvelope<T extends EventType = EventType> {
  event_type: T;
  timestamp: Ts;
  data: EventDataMap[T];
}
