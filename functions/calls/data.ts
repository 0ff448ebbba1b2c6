import type { Insertable, Updateable } from 'kysely';
import type { CallRow } from '../../shared/calls/calls';
import { type KeptCounts, keptTotal } from '../../shared/db/kept-counts';
import { cursorPage, type ListOrder, type Page } from '../../shared/db/paging';
import type { Executor } from '../../shared/db/schema';
import type { CallEscalationsTable, CallsTable } from '../../shared/db/tables/tickets_calls';
import type { ListCallsFilters } from './schemas';
import { TELEPHONY_CHANNELS } from './schemas';

// The record and its reads live in shared/ (the conversation export renders calls too).
export {
  type CallRow,
  callView,
  type EscalationRow,
  escalationView,
  findCall,
  listEscalations,
} from '../../shared/calls/calls';

/** A call that rides a telephony carrier (a carrier call id, or a phone/SIP channel). */
export const isTelephonyCall = (c: Pick<CallRow, 'telephony_call_sid' | 'channel'>) =>
  c.telephony_call_sid !== null || TELEPHONY_CHANNELS.has(c.channel);

/** The new call, or undefined when its id (or its tenant's carrier sid) is already taken. */
export async function insertCall(trx: Executor, values: Insertable<CallsTable>) {
  return trx
    .insertInto('calls')
    .values(values)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** A call by id, whichever tenant it belongs to (the id is global). */
export async function findCallById(trx: Executor, id: string) {
  return trx.selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findCallBySid(trx: Executor, tenantId: string, telephonyCallSid: string) {
  return trx
    .selectFrom('calls')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('telephony_call_sid', '=', telephonyCallSid)
    .executeTakeFirst();
}

/** An escalation by id, whichever tenant or call it belongs to (the id is global). */
export async function findEscalation(trx: Executor, id: string) {
  return trx.selectFrom('call_escalations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertEscalation(trx: Executor, values: Insertable<CallEscalationsTable>) {
  return trx.insertInto('call_escalations').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Stamps a bridged escalation on the call (the first escalated_at stays). */
export async function markEscalated(trx: Executor, call: CallRow, escalatedAt: Date) {
  await trx
    .updateTable('calls')
    .set({ escalated_at: call.escalated_at ?? escalatedAt, updated_at: new Date() })
    .where('id', '=', call.id)
    .execute();
}

/**
 * The conditional UPDATE ... WHERE completed_at IS NULL that makes one report the completion:
 * the completed call, or undefined when another report completed it first.
 */
export async function claimCompletion(
  trx: Executor,
  tenantId: string,
  callId: string,
  completion: Updateable<CallsTable>,
) {
  return trx
    .updateTable('calls')
    .set(completion)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', callId)
    .where('completed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** The ticket a completion links: its id and the call it already names, if any. */
export async function findTicketLink(trx: Executor, tenantId: string, ticketId: string) {
  return trx
    .selectFrom('tickets')
    .select(['id', 'call_id'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', ticketId)
    .executeTakeFirst();
}

export async function setTicketCall(trx: Executor, ticketId: string, callId: string) {
  await trx.updateTable('tickets').set({ call_id: callId }).where('id', '=', ticketId).execute();
}

export async function setCallTicket(trx: Executor, callId: string, ticketId: string | null) {
  return trx
    .updateTable('calls')
    .set({ ticket_id: ticketId })
    .where('id', '=', callId)
    .returningAll()
    .executeTakeFirstOrThrow();
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

/**
 * The filters whose `total` a kept count answers (alone on a request): the small value sets, and a
 * caller's phone (whose calls grow with the tenant as a requester's tickets do).
 */
const KEPT: KeptCounts = {
  list: 'calls',
  counted: ['outcome', 'direction', 'channel', 'status', 'caller_phone'],
  // schema/0035_pair_counts.sql
  pairs: ['channel+status', 'channel+direction', 'direction+status', 'channel+outcome'],
};

/**
 * GET /api/v1/calls: newest started first (default) or updated_at ascending then id; after the
 * cursor's position when one is given (`total` null then).
 */
export function listCalls(db: Executor, tenantId: string, f: Partial<ListCallsFilters> & Page) {
  const order: ListOrder =
    f.sort === 'updated_at' ? { column: 'updated_at', dir: 'asc' } : { column: 'started_at', dir: 'desc' };
  const total = keptTotal(db, tenantId, KEPT, f);
  return cursorPage(filtered(db, tenantId, f), f, order, (q) => q.selectAll(), total);
}
