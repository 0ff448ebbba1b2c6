// Where a ticket's or a conversation's writes move its SLA: the changes each write makes, read as
// the SLA rules see them (docs/sla.md). Kept here so the two functions' handlers each call one line.
import type { Executor } from '../db/schema';
import { RESOLVED_STATUSES } from '../tickets/schemas';
import { firstResponse, type SlaState, slaColumnsOf } from './state';
import { slaAfterChange } from './store';

type Changed = Record<string, { to: unknown } | undefined>;
interface Record_ extends SlaState {
  created_at: Date;
  status: string;
  priority: string;
  tags: string[];
}

/** Statuses on the resolved side, for tickets and conversations alike. */
export const isResolved = (status: string) => RESOLVED_STATUSES.has(status);

/** The SLA columns a ticket PATCH writes (null: none): its channel is its source, which never changes. */
export function ticketSlaAfterUpdate(
  db: Executor,
  tenantId: string,
  current: Record_ & { source: string },
  changes: Changed,
  at: Date,
): Promise<SlaState | null> {
  return afterUpdate(db, tenantId, current, current.source, changes, at);
}

/** The SLA columns a conversation PATCH writes (null: none). */
export function conversationSlaAfterUpdate(
  db: Executor,
  tenantId: string,
  current: Record_ & { channel: string },
  changes: Partial<Record<'status' | 'priority' | 'tags', unknown>>,
  at: Date,
): Promise<SlaState | null> {
  const wrapped: Changed = {};
  for (const [k, v] of Object.entries(changes)) if (v !== undefined) wrapped[k] = { to: v };
  return afterUpdate(db, tenantId, current, current.channel, wrapped, at);
}

function afterUpdate(
  db: Executor,
  tenantId: string,
  current: Record_,
  channel: string,
  changes: Changed,
  at: Date,
) {
  const status = changes.status ? String(changes.status.to) : current.status;
  const priority = changes.priority ? String(changes.priority.to) : current.priority;
  const tags = changes.tags ? (changes.tags.to as string[]) : current.tags;
  const next = slaAfterChange(db, tenantId, current, {
    subject: { priority, channel, tags },
    rechoose: changes.priority !== undefined || changes.tags !== undefined,
    wasResolved: isResolved(current.status),
    resolved: isResolved(status),
    at,
  });
  return next.then((state) => state && slaColumnsOf(state));
}

/**
 * A public agent reply (a ticket reply that is public and not the requester's; a conversation's
 * outbound message that is not internal) meets the first-response target, once: writes the
 * record's SLA columns and returns the row as it is now.
 */
export async function recordFirstResponse<R extends Record_ & { id: string; tenant_id: string }>(
  db: Executor,
  table: 'tickets' | 'conversations',
  row: R,
  at: Date,
): Promise<R> {
  const next = firstResponse(row, at, isResolved(row.status));
  if (!next) return row;
  const updated = await db
    .updateTable(table as 'tickets')
    .set(slaColumnsOf(next))
    .where('tenant_id', '=', row.tenant_id)
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return updated as unknown as R;
}
