// The call record and its reads, shared by the calls function and the conversation export (the
// spec's POST /api/v1/conversations/{id}/export "exports a call or conversation").
import type { Selectable } from 'kysely';
import type { Executor } from '../db/schema';
import type { CallEscalationsTable, CallsTable } from '../db/tables/tickets_calls';
import type { CALL_OUTCOMES } from '../events/catalog';
import { iso } from '../events/emit';

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
    started_at: iso(c.started_at),
    ended_at: iso(c.ended_at),
    duration_seconds: c.duration_seconds,
    outcome: c.outcome as (typeof CALL_OUTCOMES)[number] | null,
    recording_url: c.recording_url,
    ticket_id: c.ticket_id,
    detected_language: c.detected_language,
    summary: c.summary,
    escalated_at: iso(c.escalated_at),
    completed_at: iso(c.completed_at),
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
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
    escalated_at: iso(e.escalated_at),
    created_at: iso(e.created_at),
  };
}

/** One call of the tenant; `forUpdate` locks it for the rest of the caller's transaction. */
export async function findCall(db: Executor, tenantId: string, id: string, forUpdate = false) {
  let q = db.selectFrom('calls').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** A call's escalation attempts, oldest first. */
export async function listEscalations(db: Executor, tenantId: string, callId: string) {
  return db
    .selectFrom('call_escalations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('call_id', '=', callId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}
