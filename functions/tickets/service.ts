import { type Insertable, type Selectable, sql } from 'kysely';
import { assertReferences, type Reference } from '../../shared/db/references';
import type { Executor } from '../../shared/db/schema';
import type { TicketRepliesTable, TicketsTable } from '../../shared/db/tables/tickets_calls';
import { iso, outboxRow } from '../../shared/events/emit';
import { newId } from '../../shared/ids';
import type { CreateTicketInput, ListTicketsFilters, TICKET_SOURCES } from './schemas';

export type TicketRow = Selectable<TicketsTable>;
export type ReplyRow = Selectable<TicketRepliesTable>;

/** The public ticket record (reads, write responses and `data.ticket` of every ticket.* event). */
export function ticketView(t: TicketRow) {
  return {
    id: t.id,
    subject: t.subject,
    description: t.description,
    status: t.status,
    priority: t.priority,
    type: t.type,
    source: t.source,
    requester_id: t.requester_id,
    requester_name: t.requester_name,
    requester_email: t.requester_email,
    assignee_id: t.assignee_id,
    tags: t.tags,
    call_id: t.call_id,
    reply_count: t.reply_count,
    created_by: t.created_by,
    created_at: iso(t.created_at) as string,
    updated_at: iso(t.updated_at) as string,
    resolved_at: iso(t.resolved_at),
    closed_at: iso(t.closed_at),
  };
}
export type TicketView = ReturnType<typeof ticketView>;

export function replyView(r: ReplyRow) {
  return {
    id: r.id,
    ticket_id: r.ticket_id,
    body: r.body,
    author_type: r.author_type,
    author_id: r.author_id,
    is_public: r.is_public,
    created_at: iso(r.created_at) as string,
  };
}

/** Trimmed, de-duplicated, caller's order. */
export const normalizeTags = (tags: readonly string[]) => [...new Set(tags.map((t) => t.trim()))];

/** The ids a ticket carries: each must be a row of the ticket's tenant (422 at the field otherwise). */
export const ticketReferences = (t: {
  call_id?: string | null;
  requester_id?: string | null;
  assignee_id?: string | null;
}): Reference[] => [
  { field: 'call_id', kind: 'call', id: t.call_id },
  { field: 'requester_id', kind: 'endUser', id: t.requester_id },
  { field: 'assignee_id', kind: 'tenantUser', id: t.assignee_id },
];

export interface TicketActor {
  /** `user:<sub>`, `api_key:<id>`, `end_user:<id>` or `internal` (actorOf) */
  createdBy: string;
  /** default source when the input names none */
  source: (typeof TICKET_SOURCES)[number];
}

/**
 * Creates a ticket and records `ticket.created` in the same statement (a data-modifying CTE: both
 * rows commit together, or neither, with one round trip and no transaction to open). Reused by the
 * end-user API (requester_id = the end user's id) and by call completion (outcome `ticket_created`),
 * inside their own transactions. The caller kicks the event dispatcher after commit.
 */
export async function createTicket(
  db: Executor,
  tenantId: string,
  input: CreateTicketInput,
  actor: TicketActor,
): Promise<TicketRow> {
  await assertReferences(db, tenantId, ticketReferences(input));
  const now = new Date();
  const values = {
    id: newId('ticket'),
    tenant_id: tenantId,
    subject: input.subject,
    description: input.description ?? '',
    status: input.status ?? 'open',
    priority: input.priority ?? 'medium',
    type: input.type ?? 'question',
    source: input.source ?? actor.source,
    requester_id: input.requester_id ?? null,
    requester_name: input.requester_name ?? null,
    requester_email: input.requester_email ?? null,
    assignee_id: input.assignee_id ?? null,
    tags: normalizeTags(input.tags ?? []),
    call_id: input.call_id ?? null,
    created_by: actor.createdBy,
    created_at: now,
    updated_at: now,
  } satisfies Insertable<TicketsTable>;
  // the event carries the row as it will be stored: every column above plus the table's defaults
  const stored: TicketRow = { ...values, reply_count: 0, resolved_at: null, closed_at: null };
  const event = outboxRow(tenantId, 'ticket.created', { ticket: ticketView(stored) });
  return db
    .with('event', (w) => w.insertInto('events').values(event))
    .insertInto('tickets')
    .values(values)
    .returningAll()
    .executeTakeFirstOrThrow();
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
  const [rows, count] = await Promise.all([q.rows.execute(), q.count.executeTakeFirst()]);
  return { rows, total: Number(count?.n ?? 0) };
}
