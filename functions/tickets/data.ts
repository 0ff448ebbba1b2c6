import { type Selectable, sql } from 'kysely';
import { countedKey } from '../../shared/db/kept-counts';
import {
  afterPosition,
  ginPageIds,
  type ListOrder,
  type ListPage,
  nextPosition,
  type Page,
  readCursor,
  sortKeyText,
} from '../../shared/db/paging';
import type { Executor } from '../../shared/db/schema';
import type { TicketRepliesTable } from '../../shared/db/tables/tickets_calls';
import { iso } from '../../shared/events/emit';
import type { AttachmentView } from '../../shared/files/view';
import { customFieldsMatch } from '../../shared/helpdesk/fields';
import { newId } from '../../shared/ids';
import type { TicketRow } from '../../shared/tickets/tickets';
import type { ListTicketsFilters } from './schemas';

export type ReplyRow = Selectable<TicketRepliesTable>;

export function replyView(r: ReplyRow, attachments: AttachmentView[] = []) {
  return {
    id: r.id,
    ticket_id: r.ticket_id,
    body: r.body,
    author_type: r.author_type,
    author_id: r.author_id,
    is_public: r.is_public,
    created_at: iso(r.created_at),
    attachments,
  };
}

export async function findTicket(db: Executor, tenantId: string, id: string, forUpdate = false) {
  let q = db.selectFrom('tickets').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/**
 * The filters only a GIN index serves, as one condition (undefined: none given): the tenant-first
 * indexes over custom field values (schema/0027_helpdesk.sql) and tags (schema/0017_lists_at_scale.sql).
 */
function ginFilter(tenantId: string, f: Partial<ListTicketsFilters> & CustomFieldFilter) {
  const conditions = [
    ...(f.custom_fields?.length ? [customFieldsMatch(f.custom_fields)] : []),
    ...(f.tag
      ? [sql<boolean>`tenant_tag_keys(tenant_id, tags) @> ARRAY[${`${tenantId}:${f.tag}`}]::text[]`]
      : []),
  ];
  return conditions.length ? sql<boolean>`(${sql.join(conditions, sql` and `)})` : undefined;
}

/** Filters shared by the page query and the count (`gin: false`: all but ginFilter's). */
function filtered(
  db: Executor,
  tenantId: string,
  f: Partial<ListTicketsFilters> & CustomFieldFilter,
  { gin = true } = {},
) {
  let q = db.selectFrom('tickets').where('tenant_id', '=', tenantId);
  if (f.status) q = q.where('status', 'in', f.status);
  if (f.priority) q = q.where('priority', 'in', f.priority);
  if (f.type) q = q.where('type', 'in', f.type);
  if (f.requester_id) q = q.where('requester_id', '=', f.requester_id);
  if (f.assignee_id) q = q.where('assignee_id', '=', f.assignee_id);
  if (f.assignee_team_id) q = q.where('assignee_team_id', '=', f.assignee_team_id);
  if (f.call_id) q = q.where('call_id', '=', f.call_id);
  const byGin = ginFilter(tenantId, f);
  if (gin && byGin) q = q.where(byGin);
  if (f.created_after) q = q.where('created_at', '>=', f.created_after);
  if (f.created_before) q = q.where('created_at', '<', f.created_before);
  if (f.updated_since) q = q.where('updated_at', '>=', f.updated_since);
  // the SLA filters and the queue order (schema/0028_sla.sql's tenant-first indexes)
  if (f.sla_breached !== undefined) q = q.where('sla_breached', '=', f.sla_breached);
  if (f.sla_due_before) q = q.where('sla_due_at', '<', f.sla_due_before);
  if (f.sort === 'sla_due_at') q = q.where('sla_due_at', 'is not', null);
  return q;
}

/** `custom_fields.<key>=<value>` filters, as shared/helpdesk/fields.ts customFieldFilters gives them */
type CustomFieldFilter = { custom_fields?: string[] };
type ListTicketsInput = Partial<ListTicketsFilters> & Page & CustomFieldFilter;

/**
 * The filters whose total a kept counter answers (ticket_filter_counts), with the pairs of them
 * counted together (schema/0035_pair_counts.sql): alone on a request, or two of a pair (with the
 * sort or not), their `total` is a few rows read at any size.
 */
const COUNTED = ['status', 'priority', 'type', 'requester_id', 'assignee_id', 'tag', 'sla_breached'] as const;
const COUNTED_PAIRS = [
  'priority+status',
  'status+type',
  'priority+type',
  'assignee_id+status',
  'assignee_id+priority',
  'requester_id+status',
  'status+tag',
  'priority+tag',
] as const;

/**
 * The `total` of an offset page: the tenant's counter when unfiltered, the kept counters when the
 * filters given are one counted filter or a counted pair (a comma list sums its values), an exact
 * count over the filters' indexes otherwise (its cost grows with the rows matched:
 * docs/benchmarks.md).
 */
function totalQuery(db: Executor, tenantId: string, f: ListTicketsInput) {
  const given = [
    ...FILTER_KEYS.filter((k) => f[k] !== undefined),
    ...(f.custom_fields?.length ? ['custom_fields'] : []),
  ];
  // the queue order lists only tickets with a due time: no kept count says how many
  if (f.sort === 'sla_due_at')
    return filtered(db, tenantId, f).select((eb) => eb.fn.countAll<string>().as('n'));
  if (given.length === 0) return db.selectFrom('ticket_counts').select('n').where('tenant_id', '=', tenantId);
  const key = countedKey(given, f, COUNTED, COUNTED_PAIRS);
  if (key)
    return db
      .selectFrom('ticket_filter_counts')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('n'), sql<string>`0`).as('n'))
      .where('tenant_id', '=', tenantId)
      .where('field', '=', key.field)
      .where('value', 'in', key.values);
  return filtered(db, tenantId, f).select((eb) => eb.fn.countAll<string>().as('n'));
}

/** The list's order: newest first, or oldest change first with sort=updated_at (then id alike). */
export const ticketOrder = (f: Partial<ListTicketsFilters>): ListOrder =>
  f.sort === 'updated_at'
    ? { column: 'updated_at', dir: 'asc' }
    : f.sort === 'sla_due_at'
      ? { column: 'sla_due_at', dir: 'asc' }
      : { column: 'created_at', dir: 'desc' };

/**
 * The list query GET /api/v1/tickets runs (and the benchmarks time). The page of ids comes from
 * an index-only scan (deferred join), so a deep offset skips index entries, not heap rows; a cursor
 * page starts at its position in the same index (the same cost at any depth) and counts nothing.
 * One row beyond `limit` says whether there is a next page.
 */
export function ticketListQueries(db: Executor, tenantId: string, f: ListTicketsInput) {
  const order = ticketOrder(f);
  const after = f.cursor ? readCursor(f.cursor) : null;
  const offset = after ? 0 : f.offset;
  const gin = ginFilter(tenantId, f);
  let ids = filtered(db, tenantId, f, { gin: false }).select('id');
  if (after) ids = ids.where(afterPosition(order, after));
  // a tag or custom field filter: the planner cannot tell a rare value from a common one (ginPageIds)
  const pageIds = gin
    ? ginPageIds({ filtered: ids, gin, order, take: f.limit + 1, offset })
    : ids
        .orderBy(order.column as 'created_at', order.dir)
        .orderBy('id', order.dir)
        .limit(f.limit + 1)
        .offset(offset);
  const rows = db
    .selectFrom('tickets')
    .selectAll()
    .select(sortKeyText(order.column).as('cursor_key'))
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', pageIds);
  return { rows, count: after ? null : totalQuery(db, tenantId, f) };
}

const FILTER_KEYS = [
  'status',
  'priority',
  'type',
  'requester_id',
  'assignee_id',
  'assignee_team_id',
  'call_id',
  'tag',
  'created_after',
  'created_before',
  'updated_since',
  'sla_breached',
  'sla_due_before',
] as const satisfies readonly (keyof ListTicketsFilters)[];

export async function listTickets(
  db: Executor,
  tenantId: string,
  f: ListTicketsInput,
): Promise<ListPage<TicketRow>> {
  const q = ticketListQueries(db, tenantId, f);
  const { column, dir } = ticketOrder(f);
  const byColumn = column as 'created_at';
  if (!q.count) {
    const rows = await q.rows.orderBy(byColumn, dir).orderBy('id', dir).execute();
    return withoutKeys(nextPosition(rows, f.limit), null);
  }
  // One statement (one round trip on the edge): the total is the outer row, the page joined to it
  // laterally (a page past the end still brings the total, as one row of nulls). No count row (a
  // tenant that never had a ticket) means no tickets. The page runs only when the total goes past
  // the offset: a kept pair that no ticket has (a tag beside a status) would otherwise read every
  // ticket carrying the tag to find none.
  const joined = await db
    .selectFrom(q.count.as('c'))
    .leftJoinLateral(q.rows.where(sql<boolean>`c.n > ${f.offset}`).as('p'), (join) => join.onTrue())
    .selectAll('p')
    .select('c.n as list_total')
    .orderBy(`p.${byColumn}`, dir)
    .orderBy('p.id', dir)
    .execute();
  const total = Number(joined[0]?.list_total ?? 0);
  const rows = joined
    .filter((r) => r.id !== null)
    .map(({ list_total: _, ...row }) => row as typeof row & { id: string; cursor_key: string });
  return withoutKeys(nextPosition(rows, f.limit), total);
}

const withoutKeys = (
  { page, next }: { page: { cursor_key: string }[]; next: ListPage<unknown>['next'] },
  total: number | null,
): ListPage<TicketRow> => ({
  rows: page.map(({ cursor_key: _, ...row }) => row as unknown as TicketRow),
  total,
  next,
});

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
