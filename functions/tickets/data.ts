import { type Selectable, sql } from 'kysely';
import type { Executor } from '../../shared/db/schema';
import type { TicketRepliesTable } from '../../shared/db/tables/tickets_calls';
import { iso } from '../../shared/events/emit';
import { newId } from '../../shared/ids';
import type { TicketRow } from '../../shared/tickets/tickets';
import type { ListTicketsFilters } from './schemas';

export type ReplyRow = Selectable<TicketRepliesTable>;

export function replyView(r: ReplyRow) {
  return {
    id: r.id,
    ticket_id: r.ticket_id,
    body: r.body,
    author_type: r.author_type,
    author_id: r.author_id,
    is_public: r.is_public,
    created_at: iso(r.created_at),
  };
}

export async function findTicket(db: Executor, tenantId: string, id: string, forUpdate = false) {
  let q = db.selectFrom('tickets').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Filters shared by the page query and the count. */
function filtered(db: Executor, tenantId: string, f: Partial<ListTicketsFilters>) {
  let q = db.selectFrom('tickets').where('tenant_id', '=', tenantId);
  if (f.status) q = q.where('status', 'in', f.status);
  if (f.priority) q = q.where('priority', 'in', f.priority);
  if (f.type) q = q.where('type', 'in', f.type);
  if (f.requester_id) q = q.where('requester_id', '=', f.requester_id);
  if (f.assignee_id) q = q.where('assignee_id', '=', f.assignee_id);
  if (f.call_id) q = q.where('call_id', '=', f.call_id);
  if (f.tag) q = q.where(sql<boolean>`tags @> ARRAY[${f.tag}]::text[]`);
  if (f.created_after) q = q.where('created_at', '>=', f.created_after);
  if (f.created_before) q = q.where('created_at', '<', f.created_before);
  if (f.updated_since) q = q.where('updated_at', '>=', f.updated_since);
  return q;
}

/**
 * The list query GET /api/v1/tickets runs (and the benchmark times). The page of ids comes from
 * an index-only scan (deferred join), so a deep offset skips index entries, not heap rows.
 */
export function ticketListQueries(
  db: Executor,
  tenantId: string,
  f: Partial<ListTicketsFilters> & { limit: number; offset: number },
) {
  const byUpdated = f.sort === 'updated_at';
  // biome-ignore lint/suspicious/noExplicitAny: one ordering for two differently-typed Kysely builders
  const order = <Q extends { orderBy: (...a: any[]) => Q }>(q: Q): Q =>
    byUpdated
      ? q.orderBy('updated_at', 'asc').orderBy('id', 'asc')
      : q.orderBy('created_at', 'desc').orderBy('id', 'desc');
  const pageIds = order(filtered(db, tenantId, f).select('id'))
    .limit(f.limit)
    .offset(f.offset);
  const rows = order(
    db.selectFrom('tickets').selectAll().where('tenant_id', '=', tenantId).where('id', 'in', pageIds),
  );
  // Unfiltered: the trigger-kept counter (one row); filtered: an exact count over the indexes.
  const count = hasFilters(f)
    ? filtered(db, tenantId, f).select((eb) => eb.fn.countAll<string>().as('n'))
    : db.selectFrom('ticket_counts').select('n').where('tenant_id', '=', tenantId);
  return { rows, count };
}

const FILTER_KEYS = [
  'status',
  'priority',
  'type',
  'requester_id',
  'assignee_id',
  'call_id',
  'tag',
  'created_after',
  'created_before',
  'updated_since',
] as const satisfies readonly (keyof ListTicketsFilters)[];
const hasFilters = (f: Partial<ListTicketsFilters>) => FILTER_KEYS.some((k) => f[k] !== undefined);

export async function listTickets(
  db: Executor,
  tenantId: string,
  f: Partial<ListTicketsFilters> & { limit: number; offset: number },
) {
  const q = ticketListQueries(db, tenantId, f);
  // One statement (one round trip on the edge): the total is the outer row, the page joined to it
  // laterally (a page past the end still brings the total, as one row of nulls). No count row (a
  // tenant that never had a ticket) means no tickets.
  const byUpdated = f.sort === 'updated_at';
  const joined = await db
    .selectFrom(q.count.as('c'))
    .leftJoinLateral(q.rows.as('p'), (join) => join.onTrue())
    .selectAll('p')
    .select('c.n as list_total')
    .orderBy(byUpdated ? 'p.updated_at' : 'p.created_at', byUpdated ? 'asc' : 'desc')
    .orderBy('p.id', byUpdated ? 'asc' : 'desc')
    .execute();
  const total = Number(joined[0]?.list_total ?? 0);
  const rows = joined.filter((r) => r.id !== null).map(({ list_total: _, ...row }) => row as TicketRow);
  return { rows, total };
}

/** Writes `patch` (already validated and diffed by the handler) to one ticket of the tenant. */
export async function updateTicketRow(
  db: Executor,
  tenantId: string,
  id: string,
  patch: Record<string, unknown>,
) {
  return (await db
    .updateTable('tickets')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()) as TicketRow;
}

export interface NewReply {
  body: string;
  author_type: 'api' | 'agent' | 'requester';
  author_id: string;
  is_public: boolean;
}

/** The reply and the ticket's reply count and updated_at, in the caller's transaction. */
export async function insertReply(trx: Executor, tenantId: string, ticketId: string, reply: NewReply) {
  const now = new Date();
  const created = await trx
    .insertInto('ticket_replies')
    .values({ id: newId('ticketReply'), tenant_id: tenantId, ticket_id: ticketId, ...reply, created_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  const ticket = (await trx
    .updateTable('tickets')
    .set((eb) => ({ reply_count: eb('reply_count', '+', 1), updated_at: now }))
    .where('id', '=', ticketId)
    .returningAll()
    .executeTakeFirstOrThrow()) as TicketRow;
  return { reply: created, ticket };
}

/** A page of a ticket's replies, oldest first, and their total. */
export async function listReplies(
  db: Executor,
  tenantId: string,
  ticketId: string,
  page: { limit: number; offset: number },
) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('ticket_replies')
      .selectAll()
      .where('ticket_id', '=', ticketId)
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('ticket_replies')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('ticket_id', '=', ticketId)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
