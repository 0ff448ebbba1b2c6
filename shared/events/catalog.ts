/**
 * The webhook event catalog: the event names, by group, and the value sets their payloads use.
 * Plain data, imported by Workers that never see a payload schema; the shape of each event's
 * `data` is in shared/events/payloads.ts.
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
