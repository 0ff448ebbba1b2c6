import type { EventType } from './catalog';
import type { EventDataMap } from './payloads';

/**
 * One documented `data` payload per catalog event: the OpenAPI document's `webhooks` examples and
 * the test events a subscriber can ask for are both made from this table, so what the reference
 * shows is what a test delivery carries. Ids have this project's format and tell one story (tenant
 * `ten_demo`, the same ticket, call, conversation... as the reference's operation examples).
 */
const TENANT = 'ten_demo';
/** A ticket as every ticket event carries it: the whole representation the API serves. */
const TICKET = {
  id: 'tkt_0mhbq3k8zHkR2d9TQx7pLw',
  subject: 'Printer on floor 3 is offline',
  description: 'The printer on floor 3 shows error E-451 and prints nothing.',
  status: 'open',
  priority: 'high',
  type: 'incident',
  source: 'api',
  requester_id: null,
  requester_name: 'Ana Silva',
  requester_email: 'ana@example.com',
  assignee_id: null,
  assignee_team_id: null,
  tags: ['floor-3', 'hardware'] as string[],
  call_id: null,
  reply_count: 0,
  custom_fields: {},
  created_by: 'api_key:key_0mha4j8s2Xv5CnT7wRq1Dk',
  created_at: '2026-03-02T09:10:00.000Z',
  updated_at: '2026-03-02T09:10:00.000Z',
  resolved_at: null,
  closed_at: null,
  sla: {
    policy_id: 'sla_0mha4j8s2Xv5CnT7wRq1Dk',
    first_response_due_at: '2026-03-02T10:10:00.000Z',
    first_response_at: null,
    first_response_breached: false,
    resolution_due_at: '2026-03-02T17:10:00.000Z',
    resolution_breached: false,
  },
} as const;
const CONVERSATION = {
  id: 'cnv_0mhbr1d6eYk4TsN8wPa2Jq',
  tenant_id: TENANT,
  status: 'open',
  channel: 'email',
  contact_id: 'ctc_0mh9z8x1kLr5FtY2mWq7Hd',
  subject: 'Invoice question',
  priority: 'medium',
  assignee_user_id: null,
  assignee_team_id: null,
} as const;
const CONTACT = {
  id: 'ctc_0mh9z8x1kLr5FtY2mWq7Hd',
  external_id: 'crm-4711',
  first_name: 'Ada',
  last_name: 'Lovelace',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  phone: '+15555550123',
  company_id: 'cmp_0mh9z2v4nGp8JdR6sKa3Xe',
  company_name: 'Analytical Engines Ltd',
} as const;
const ARTICLE = {
  id: 'art_0mh8w6y3bNf2HqT9vLc5Zs',
  title: 'Resetting your password',
  status: 'published',
  url: null,
  provider_id: 'native',
  tags: ['account', 'password'] as string[],
  category: 'Accounts',
  language: 'en',
  updated_at: '2026-03-02T09:15:00.000Z',
} as const;
const CALL = {
  id: 'call_0mhbpz7t1Vq9bN3xRk2sYe',
  tenant_id: TENANT,
  started_at: '2026-03-02T09:00:00.000Z',
  caller_phone: '+15555550123',
  telephony_call_sid: 'CA0123456789abcdef0123456789abcdef',
} as const;
const ATTACHMENT = {
  id: 'att_0mhbq6x1bPq3Zr8sLd2WnE',
  filename: 'invoice-2026-02.pdf',
  content_type: 'application/pdf',
  size: 48213,
  sha256: '9f2c1e5a0b7d4c3e8f6a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60',
  created_at: '2026-03-02T09:20:00.000Z',
};

const MESSAGE = {
  id: 'msg_0mhbr1d7hBc9QeL3zXn6Vw',
  conversation_id: CONVERSATION.id,
  content_type: 'text',
  is_internal: false,
  created_at: '2026-03-02T09:20:00.000Z',
} as const;

export const EVENT_EXAMPLES: { readonly [T in EventType]: EventDataMap[T] } = {
  'conversation.created': { conversation: CONVERSATION },
  'conversation.assigned': {
    conversation: { ...CONVERSATION, assignee_user_id: 'tus_0mh2v9w8xPr6JzL3qNb5Gc' },
    routing_reason: 'manual_assignment',
  },
  'conversation.resolved': {
    conversation: { ...CONVERSATION, status: 'resolved' },
    previous_status: 'open',
  },
  'conversation.reopened': {
    conversation: { ...CONVERSATION, status: 'open' },
    previous_status: 'resolved',
  },
  'conversation.note_added': {
    conversation: CONVERSATION,
    note: {
      id: 'msg_0mhbr1d8kTe2WmP5xQa7Bz',
      body: 'Customer is on the annual plan; refund needs approval.',
      sender_id: 'tus_0mh2v9w8xPr6JzL3qNb5Gc',
      created_at: '2026-03-02T09:25:00.000Z',
    },
  },
  'message.sent': {
    message: {
      ...MESSAGE,
      body: 'Thanks, we have corrected the invoice.',
      sender_type: 'agent',
      sender_id: 'tus_0mh2v9w8xPr6JzL3qNb5Gc',
      source: 'dashboard',
    },
    conversation: CONVERSATION,
  },
  'message.received': {
    message: {
      ...MESSAGE,
      body: 'My invoice shows the wrong amount.',
      sender_type: 'contact',
      sender_id: CONTACT.id,
      source: 'email',
      attachments: [ATTACHMENT],
    },
    conversation: CONVERSATION,
  },
  'contact.created': { contact: CONTACT },
  'contact.updated': { contact: { ...CONTACT, phone: '+15555550199' } },
  'contact.deleted': { contact: CONTACT },
  'ticket.created': { ticket: TICKET },
  'ticket.updated': {
    ticket: { ...TICKET, priority: 'urgent' },
    changes: { priority: { from: 'high', to: 'urgent' } },
  },
  'ticket.replied': {
    ticket: TICKET,
    reply: {
      id: 'trp_0mhbq5n2cJd81sXaLq4WmZ',
      body: 'A technician is on the way.',
      author_type: 'agent',
      author_id: 'tus_0mh2v9w8xPr6JzL3qNb5Gc',
      is_public: true,
      created_at: '2026-03-02T09:30:00.000Z',
      attachments: [ATTACHMENT],
    },
  },
  'ticket.resolved': { ticket: { ...TICKET, status: 'resolved' }, previous_status: 'open' },
  'call.started': {
    call: { ...CALL, direction: 'inbound', channel: 'phone', media_room_id: 'room-7f3a9c' },
  },
  'call.completed': {
    call: {
      ...CALL,
      ended_at: '2026-03-02T09:04:30.000Z',
      duration_seconds: 270,
      outcome: 'ticket_created',
      recording_url: 'recordings/ten_demo/call_0mhbpz7t1Vq9bN3xRk2sYe.wav',
      ticket_id: TICKET.id,
      detected_language: 'en-US',
    },
  },
  'call.escalated': {
    call: {
      id: CALL.id,
      tenant_id: TENANT,
      escalated_at: '2026-03-02T09:02:10.000Z',
      reason: 'user_requested',
      escalation_id: 'esc_0mhbq0a9fTg5LmW2pXc8Rb',
      status: 'bridged',
      route: 'telephony_number',
      destination: '********0123',
    },
  },
  'kb.article.published': { article: ARTICLE },
  'kb.article.updated': { article: { ...ARTICLE, title: 'Resetting or changing your password' } },
  'usage.reported': {
    usage: {
      tenant_id: TENANT,
      period: '2026-02',
      period_start: '2026-02-01T00:00:00.000Z',
      period_end: '2026-03-01T00:00:00.000Z',
      plan: 'starter',
      totals: { api_requests: 48210, call_minutes: 312, conversations: 907, webhook_deliveries: 5120 },
      quotas: { api_requests: 100000, call_minutes: 1000, conversations: 5000, webhook_deliveries: 100000 },
    },
  },
  'config.updated': {
    config: { section: 'voice', changes: { language: { from: 'en-US', to: 'de-DE' } } },
  },
};
