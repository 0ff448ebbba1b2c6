import type { Selectable } from 'kysely';
import type { Executor } from '../../shared/db/schema';
import type { CallEscalationsTable, CallsTable } from '../../shared/db/tables/tickets_calls';
import type { CALL_OUTCOMES } from '../../shared/events/catalog';
import { iso } from '../../shared/events/emit';
import type { ListCallsFilters } from './schemas';
import { TELEPHONY_CHANNELS } from './schemas';

export type CallRow = Selectable<CallsTable>;
export type EscalationRow = Selectable<CallEscalationsTable>;

export function callView(c: CallRow) {
  return {
    id: c.id,
    tenant_id: c.tenant_id,
    status: c.completed_at ? ('completed' as const) : ('in_progress' as const),
    channel: c.channel,
    direction: c.direction,
    caller_phone: c.caller_phone,
    telephony_call_sid: c.telephony_call_sid,
    media_room_id: c.media_room_id,
    started_at: iso(c.started_at) as string,
    ended_at: iso(c.ended_at),
    duration_seconds: c.duration_seconds,
    outcome: c.outcome as (typeof CALL_OUTCOMES)[number] | null,
    recording_url: c.recording_url,
    ticket_id: c.ticket_id,
    detected_language: c.detected_language,
    summary: c.summary,
    escalated_at: iso(c.escalated_at),
    completed_at: iso(c.completed_at),
    created_at: iso(c.created_at) as string,
    updated_at: iso(c.updated_at) as string,
  };
}

export function escalationView(e: EscalationRow) {
  return {
    id: e.id,
    call_id: e.call_id,
    result: e.result,
    reason: e.reason,
    route: e.route,
    destination: e.destination,
    failure: e.failure,
    emitted: e.emitted,
    escalated_at: iso(e.escalated_at) as string,
    created_at: iso(e.created_at) as string,
  };
}

/** A call that rides a telephony carrier (a carrier call id, or a phone/SIP channel). */
export const isTelephonyCall = (c: Pick<CallRow, 'telephony_call_sid' | 'channel'>) =>
  c.telephony_call_sid !== null || TELEPHONY_CHANNELS.has(c.channel);

export async function findCall(db: Executor, tenantId: string, id: string) {
  return db
    .selectFrom('calls')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

function filtered(db: Executor, tenantId: string, f: Partial<ListCallsFilters>) {
  let q = db.selectFrom('calls').where('tenant_id', '=', tenantId);
  if (f.outcome) q = q.where('outcome', 'in', f.outcome);
  if (f.direction) q = q.where('direction', '=', f.direction);
  if (f.channel) q = q.where('channel', '=', f.channel);
  if (f.status === 'completed') q = q.where('completed_at', 'is not', null);
  if (f.status === 'in_progress') q = q.where('completed_at', 'is', null);
  if (f.caller_phone) q = q.where('caller_phone', '=', f.caller_phone);
  if (f.ticket_id) q = q.where('ticket_id', '=', f.ticket_id);
  if (f.started_after) q = q.where('started_at', '>=', f.started_after);
  if (f.started_before) q = q.where('started_at', '<', f.started_before);
  if (f.updated_since) q = q.where('updated_at', '>=', f.updated_since);
  return q;
}

/** GET /api/v1/calls: newest started first (default) or updated_at ascending then id. */
export async function listCalls(
  db: Executor,
  tenantId: string,
  f: Partial<ListCallsFilters> & { limit: number; offset: number },
) {
  let page = filtered(db, tenantId, f).selectAll();
  page =
    f.sort === 'updated_at'
      ? page.orderBy('updated_at', 'asc').orderBy('id', 'asc')
      : page.orderBy('started_at', 'desc').orderBy('id', 'desc');
  const [rows, count] = await Promise.all([
    page.limit(f.limit).offset(f.offset).execute(),
    filtered(db, tenantId, f)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
