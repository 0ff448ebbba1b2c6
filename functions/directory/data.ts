import { type ExpressionBuilder, type Selectable, sql } from 'kysely';
import type { AuditRow } from '../../shared/audit/audit';
import { containsPattern } from '../../shared/db/like';
import { pageWithTotal } from '../../shared/db/paging';
import type { Database, Executor } from '../../shared/db/schema';
import type { EndUsersTable, TenantUsersTable } from '../../shared/db/tables/platform';
import { iso } from '../../shared/events/emit';
import type { Page } from '../../shared/http/pagination';
import { newId } from '../../shared/ids';

/* ---------------------------------------------------------------- requesters (end users) */

export const requesterView = (u: Selectable<EndUsersTable> & { ticket_count?: number | string | null }) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  has_password: u.password_hash !== null,
  ticket_count: Number(u.ticket_count ?? 0),
  created_at: iso(u.created_at),
});

/** The requester's tickets, as a column of the end_users row. */
const ticketCount = (eb: ExpressionBuilder<Database, 'end_users'>) =>
  eb
    .selectFrom('tickets')
    .select((e) => e.fn.countAll<number>().as('n'))
    .whereRef('tickets.requester_id', '=', 'end_users.id')
    .whereRef('tickets.tenant_id', '=', 'end_users.tenant_id')
    .as('ticket_count');

/** `lower(email)` or `lower(name)` contains `search` (case-insensitive, LIKE wildcards escaped). */
const emailOrNameContains = (search: string) => {
  const pattern = containsPattern(search.toLowerCase());
  return <TB extends keyof Database>(eb: ExpressionBuilder<Database, TB>) =>
    eb.or([eb(sql`lower(email)`, 'like', pattern), eb(sql`lower(coalesce(name, ''))`, 'like', pattern)]);
};

/** A page of the tenant's requesters, newest first, with their ticket counts, and the total. */
export async function listRequesters(
  db: Executor,
  tenantId: string,
  q: Page & { email?: string; search?: string },
) {
  let base = db.selectFrom('end_users').where('tenant_id', '=', tenantId);
  if (q.email) base = base.where(sql`lower(email)`, '=', q.email.toLowerCase());
  if (q.search) base = base.where(emailOrNameContains(q.search));
  return pageWithTotal(base, q, (page) =>
    page.selectAll('end_users').select(ticketCount).orderBy('created_at', 'desc').orderBy('id', 'desc'),
  );
}

export async function findRequester(db: Executor, tenantId: string, id: string) {
  return db
    .selectFrom('end_users')
    .selectAll('end_users')
    .select(ticketCount)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/* ---------------------------------------------------------------- tenant users (dashboard) */

export const userView = (u: Selectable<TenantUsersTable>) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  created_at: iso(u.created_at),
  updated_at: iso(u.updated_at),
});

/** A page of the tenant's dashboard users, newest first, and the total. */
export async function listTenantUsers(
  db: Executor,
  tenantId: string,
  q: Page & { role?: 'agent' | 'tenant_admin'; search?: string },
) {
  let base = db.selectFrom('tenant_users').where('tenant_id', '=', tenantId);
  if (q.role) base = base.where('role', '=', q.role);
  if (q.search) base = base.where(emailOrNameContains(q.search));
  return pageWithTotal(base, q, (page) =>
    page.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
  );
}

export async function findTenantUser(db: Executor, tenantId: string, id: string) {
  return db
    .selectFrom('tenant_users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Whether the tenant has a user with this email (case-insensitive). */
/** Who holds the address in the tenant: a member, an invitee who has not accepted yet, or nobody. */
export async function emailTaken(
  db: Executor,
  tenantId: string,
  email: string,
): Promise<'member' | 'invited' | null> {
  const row = await db
    .selectFrom('tenant_users')
    .select('password_hash')
    .where('tenant_id', '=', tenantId)
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
  if (!row) return null;
  return row.password_hash === null ? 'invited' : 'member';
}

export async function insertTenantUser(
  db: Executor,
  tenantId: string,
  user: { email: string; name: string | null; role: 'agent' | 'tenant_admin' },
  audit: (userId: string) => AuditRow,
) {
  const id = newId('tenantUser');
  // the audit row in the same statement (a data-modifying CTE): both commit or neither, with no
  // transaction to open
  return db
    .with('audit', (w) => w.insertInto('audit_log').values(audit(id)))
    .insertInto('tenant_users')
    .values({ id, tenant_id: tenantId, ...user, updated_at: new Date() })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface TenantUserChanges {
  name?: string | null;
  role?: 'agent' | 'tenant_admin';
  updated_at: Date;
}

/** The changed user, or undefined when the tenant has no user with this id. */
export async function updateTenantUser(db: Executor, tenantId: string, id: string, set: TenantUserChanges) {
  return db
    .updateTable('tenant_users')
    .set(set)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/* ---------------------------------------------------------------- invitations */

/**
 * A pending invitation is a tenant user who has not set a password yet (nor been disabled): the
 * invitation's id is theirs. Its expiry is that of the newest invite link issued to them.
 */
const pendingInvitations = (db: Executor, tenantId: string) =>
  db
    .selectFrom('tenant_users as u')
    .where('u.tenant_id', '=', tenantId)
    .where('u.password_hash', 'is', null)
    .where('u.disabled_at', 'is', null);

/** The newest invite link's expiry, as a column of the `u` row. */
const inviteExpiry =
  sql<Date | null>`(SELECT max(t.expires_at) FROM tenant_user_tokens t WHERE t.user_id = u.id AND t.purpose = 'invite')`.as(
    'expires_at',
  );

export interface InvitationRow {
  id: string;
  tenant_id: string;
  email: string;
  role: 'agent' | 'tenant_admin';
  created_at: Date | string;
  expires_at: Date | string | null;
}

export const invitationView = (r: InvitationRow) => ({
  id: r.id,
  email: r.email,
  role: r.role,
  expires_at: r.expires_at === null ? iso(r.created_at) : iso(r.expires_at),
  created_at: iso(r.created_at),
});

/** A page of the tenant's pending invitations, newest first, and the total. */
export async function listInvitations(db: Executor, tenantId: string, q: Page) {
  const base = pendingInvitations(db, tenantId);
  return pageWithTotal(base, q, (page) =>
    page
      .select(['u.id', 'u.tenant_id', 'u.email', 'u.role', 'u.created_at'])
      .select(inviteExpiry)
      .orderBy('u.created_at', 'desc')
      .orderBy('u.id', 'desc'),
  );
}

/** One pending invitation of the tenant, or undefined. */
export function findInvitation(db: Executor, tenantId: string, id: string) {
  return pendingInvitations(db, tenantId)
    .select(['u.id', 'u.tenant_id', 'u.email', 'u.role', 'u.created_at'])
    .select(inviteExpiry)
    .where('u.id', '=', id)
    .executeTakeFirst();
}

/** Removes a pending invitee (their unused links go with them, ON DELETE CASCADE); undefined when none. */
export function deleteInvitation(db: Executor, tenantId: string, id: string) {
  return db
    .deleteFrom('tenant_users')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('password_hash', 'is', null)
    .returning(['id', 'email', 'role'])
    .executeTakeFirst();
}

/**
 * The tenant's active tenant_admins (signed up, not disabled), locked until the transaction ends:
 * of two admins demoting each other at once, the second waits and then sees the first's change.
 */
export async function lockActiveAdmins(db: Executor, tenantId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('tenant_users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('role', '=', 'tenant_admin')
    .where('disabled_at', 'is', null)
    .where('password_hash', 'is not', null)
    .forUpdate()
    .execute();
  return rows.map((r) => r.id);
}

/** The deleted user's email and role, or undefined when the tenant has no user with this id. */
export async function deleteTenantUser(db: Executor, tenantId: string, id: string) {
  return db
    .deleteFrom('tenant_users')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning(['id', 'email', 'role'])
    .executeTakeFirst();
}
