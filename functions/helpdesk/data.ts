import type { Insertable, Selectable } from 'kysely';
import type { Database, Executor } from '../../shared/db/schema';
import type { SavedRepliesTable, TeamsTable, TicketFieldsTable } from '../../shared/db/tables/helpdesk';
import { iso } from '../../shared/events/emit';
import { validationError } from '../../shared/http/errors';
import type { Page } from '../../shared/http/pagination';

export type TeamRow = Selectable<TeamsTable>;
export type SavedReplyRow = Selectable<SavedRepliesTable>;
export type TicketFieldRow = Selectable<TicketFieldsTable>;

export const teamView = (t: TeamRow) => ({
  id: t.id,
  name: t.name,
  description: t.description,
  routing: t.routing,
  member_ids: t.member_ids,
  created_at: iso(t.created_at),
  updated_at: iso(t.updated_at),
});

export const savedReplyView = (r: SavedReplyRow) => ({
  id: r.id,
  title: r.title,
  body: r.body,
  shortcut: r.shortcut,
  visibility: r.visibility,
  created_by: r.created_by,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export const ticketFieldView = (f: TicketFieldRow) => ({
  id: f.id,
  key: f.key,
  label: f.label,
  type: f.type,
  options: f.options,
  required: f.required,
  created_at: iso(f.created_at),
});

/** 422 at `["body", "member_ids", i]` for each id that is not an active user of the tenant. */
export async function assertMembers(db: Executor, tenantId: string, ids: readonly string[]) {
  if (ids.length === 0) return;
  const found = await db
    .selectFrom('tenant_users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .where('disabled_at', 'is', null)
    .execute();
  const active = new Set(found.map((u) => u.id));
  const issues = ids
    .map((id, i) => ({ id, i }))
    .filter(({ id }) => !active.has(id))
    .map(({ i }) => ({
      loc: ['body', 'member_ids', i],
      msg: 'Not an active user of this tenant',
      type: 'value_error',
    }));
  if (issues.length > 0) throw validationError(issues);
}

const byAge = <Q extends { orderBy: (c: 'created_at' | 'id', d: 'asc') => Q }>(q: Q) =>
  q.orderBy('created_at', 'asc').orderBy('id', 'asc');

/** A page of the tenant's teams, oldest first (then id), and their total. */
export async function listTeams(db: Executor, tenantId: string, page: Page) {
  const q = db.selectFrom('teams').where('tenant_id', '=', tenantId);
  const [rows, count] = await Promise.all([
    byAge(q.selectAll()).limit(page.limit).offset(page.offset).execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** A page of the saved replies `userId` sees (tenant-wide ones and their own personal ones). */
export async function listSavedReplies(db: Executor, tenantId: string, userId: string | null, page: Page) {
  const q = db
    .selectFrom('saved_replies')
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('visibility', '=', 'tenant'), eb('created_by', '=', userId ?? '')]));
  const [rows, count] = await Promise.all([
    byAge(q.selectAll()).limit(page.limit).offset(page.offset).execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** A page of the tenant's ticket fields, oldest first (then id), and their total. */
export async function listTicketFields(db: Executor, tenantId: string, page: Page) {
  const q = db.selectFrom('ticket_fields').where('tenant_id', '=', tenantId);
  const [rows, count] = await Promise.all([
    byAge(q.selectAll()).limit(page.limit).offset(page.offset).execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export const findTeam = (db: Executor, tenantId: string, id: string) =>
  db
    .selectFrom('teams')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/** A saved reply `userId` may see: a tenant-wide one, or their own personal one. */
export async function findSavedReply(db: Executor, tenantId: string, id: string, userId: string | null) {
  const row = await db
    .selectFrom('saved_replies')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && (row.visibility === 'tenant' || row.created_by === userId) ? row : undefined;
}

export const findTicketField = (db: Executor, tenantId: string, id: string) =>
  db
    .selectFrom('ticket_fields')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

// ---- writes (the handlers open the transaction and record the audit entry beside them) ----

type Tables = Database;
type Writable = 'teams' | 'saved_replies' | 'ticket_fields';

/** Inserts one row of `table`; the row as stored. */
export const insertRow = <T extends Writable>(db: Executor, table: T, values: Insertable<Tables[T]>) =>
  db
    .insertInto(table as 'teams')
    .values(values as Insertable<Tables['teams']>)
    .returningAll()
    .executeTakeFirstOrThrow() as unknown as Promise<Selectable<Tables[T]>>;

/** Writes `patch` to one row of the tenant's `table`; the row as stored. */
export const updateRow = <T extends Writable>(
  db: Executor,
  table: T,
  tenantId: string,
  id: string,
  patch: Record<string, unknown>,
) =>
  db
    .updateTable(table as 'teams')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow() as unknown as Promise<Selectable<Tables[T]>>;

/** Deletes one row of the tenant's `table`; the row deleted, or undefined when there was none. */
export const deleteRow = <T extends Writable>(db: Executor, table: T, tenantId: string, id: string) =>
  db
    .deleteFrom(table as 'teams')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst() as unknown as Promise<Selectable<Tables[T]> | undefined>;

/** Whether the tenant has a ticket field with this key. */
export const keyTaken = async (db: Executor, tenantId: string, key: string) =>
  !!(await db
    .selectFrom('ticket_fields')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('key', '=', key)
    .executeTakeFirst());
