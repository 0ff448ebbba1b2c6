// The webhook events as the OpenAPI document's top-level `webhooks` show them: each event's `data`
// schema (shared/events/payloads.ts), when it is sent, and the example a test delivery carries
// (shared/events/examples.ts). Docs Worker only.
import { EVENT_GROUPS, type EventType } from '../../shared/events/catalog';
import { EVENT_EXAMPLES } from '../../shared/events/examples';
import { EVENT_DATA } from '../../shared/events/payloads';
import type { WebhookEventDoc } from '../../shared/http/openapi-doc';

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
export const WEBHOOK_EVENTS: readonly WebhookEventDoc[] = (Object.keys(EVENT_DATA) as EventType[]).map(
  (type) => ({
    type,
    group: GROUP_OF[type],
    description: WHEN[type],
    data: EVENT_DATA[type],
    example: EVENT_EXAMPLES[type],
  }),
);
