import { sql } from 'kysely';
import { EVENT_EXAMPLES } from '../../shared/events/examples';
import type { TicketView } from '../../shared/events/views';
import type { Harness } from './harness';

/** Outbox events of `type` whose data.conversation.id is `conversationId`, in emission order (their `data`). */
export async function eventsFor(h: Harness, tenantId: string, type: string, conversationId: string) {
  const rows = await h.db
    .selectFrom('events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('event_type', '=', type)
    .where(sql<string>`payload->'conversation'->>'id'`, '=', conversationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload));
}

/** Types of every outbox event about `conversationId`, in emission order. */
export async function allEventsFor(h: Harness, tenantId: string, conversationId: string) {
  const rows = await h.db
    .selectFrom('events')
    .select('event_type')
    .where('tenant_id', '=', tenantId)
    .where(sql<string>`payload->'conversation'->>'id'`, '=', conversationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.event_type);
}

/**
 * A whole ticket as ticket events carry it (the documented example's fields), with its own id and
 * any fields a test cares about: a ticket event's payload is the served ticket, never a summary.
 */
export function servedTicket(id: string, fields: Partial<TicketView> = {}): TicketView {
  return { ...EVENT_EXAMPLES['ticket.created'].ticket, tags: [], id, ...fields };
}
