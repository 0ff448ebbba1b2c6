import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { newId } from '../ids';
import type { EventDataMap, EventType } from './catalog';

type Executor = Kysely<Database> | Transaction<Database>;

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
  const id = newId('event');
  await db
    .insertInto('events')
    .values({ id, tenant_id: tenantId, event_type: eventType, payload: JSON.stringify(data) })
    .execute();
  return id;
}

/** Dates in payloads are ISO 8601 UTC strings. */
export const iso = (value: Date | string | null | undefined): string | null =>
  value == null ? null : new Date(value).toISOString();
