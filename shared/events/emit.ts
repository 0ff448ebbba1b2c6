import type { Executor } from '../db/schema';
import { newId } from '../ids';
import type { EventType } from './catalog';
import type { EventDataMap } from './payloads';

/**
 * Records a domain event in the outbox. Call it with the action's transaction so the event commits
 * with the action (and never without it); then `services.events.kick()` after commit to deliver
 * promptly. Fan-out to subscriptions happens later, outside the request.
 */
export async function emitEvent<T extends EventType>(
  db: Executor,
  tenantId: string,
  eventType: T,
  data: EventDataMap[T],
): Promise<string> {
  const row = outboxRow(tenantId, eventType, data);
  await db.insertInto('events').values(row).execute();
  return row.id;
}

/**
 * The outbox row of one event, for a caller that writes it in the same statement as its action
 * (a data-modifying CTE: one round trip, atomic without a transaction around it).
 */
export function outboxRow<T extends EventType>(tenantId: string, eventType: T, data: EventDataMap[T]) {
  return { id: newId('event'), tenant_id: tenantId, event_type: eventType, payload: JSON.stringify(data) };
}

/** Dates in payloads and views are ISO 8601 UTC strings (a date that cannot be null gives a string). */
export function iso(value: Date | string): string;
export function iso(value: Date | string | null | undefined): string | null;
export function iso(value: Date | string | null | undefined): string | null {
  return value == null ? null : new Date(value).toISOString();
}
