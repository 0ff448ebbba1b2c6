import { sql } from 'kysely';
import type { z } from 'zod';
import { pageWithTotal } from '../../shared/db/paging';
import type { Db, Executor } from '../../shared/db/schema';
import { newId } from '../../shared/ids';
import { createTicket, type TicketRow } from '../../shared/tickets/tickets';
import type { AppCreateTicketBody } from './schemas';

/** What an end-user token carries and the auth endpoints answer with. */
export type EndUser = { id: string; tenant_id: string; email: string; name: string | null };

/** The tenant's end user with this email (case-insensitive), password hash included. */
export const findUserByEmail = (db: Executor, tenantId: string, email: string) =>
  db
    .selectFrom('end_users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();

export async function insertUser(
  db: Executor,
  user: { tenant_id: string; email: string; name: string | null; password_hash: string },
): Promise<EndUser> {
  return db
    .insertInto('end_users')
    .values({ id: newId('endUser'), ...user })
    .returning(['id', 'tenant_id', 'email', 'name'])
    .executeTakeFirstOrThrow();
}

export async function insertMagicLink(
  db: Executor,
  link: { token_hash: string; tenant_id: string; end_user_id: string; expires_at: Date },
) {
  await db.insertInto('end_user_magic_links').values(link).execute();
}

/**
 * Marks an unused, unexpired link used and returns its end user's id: one conditional update, so
 * two concurrent verifications cannot both win. undefined when no such link is left.
 */
export async function consumeMagicLink(db: Executor, tokenHash: string) {
  const used = await db
    .updateTable('end_user_magic_links')
    .set({ used_at: new Date() })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', new Date())
    .returning(['end_user_id'])
    .executeTakeFirst();
  return used?.end_user_id;
}

export async function findUserById(db: Executor, id: string): Promise<EndUser | undefined> {
  return db
    .selectFrom('end_users')
    .select(['id', 'tenant_id', 'email', 'name'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The signed-in end user's profile (GET /api/v1/app/me). */
export async function findProfile(db: Executor, tenantId: string, endUserId: string) {
  return db
    .selectFrom('end_users')
    .select(['id', 'email', 'name', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', endUserId)
    .executeTakeFirst();
}

/** The requester fields of a ticket the end user raises. */
export async function findRequester(db: Executor, tenantId: string, endUserId: string) {
  return db
    .selectFrom('end_users')
    .select(['id', 'email', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', endUserId)
    .executeTakeFirst();
}

/** The tickets an end user raised (requester_id), newest first. */
export async function listOwnTickets(
  db: Executor,
  tenantId: string,
  endUserId: string,
  q: { status?: string; limit: number; offset: number },
) {
  let own = db.selectFrom('tickets').where('tenant_id', '=', tenantId).where('requester_id', '=', endUserId);
  if (q.status) own = own.where('status', '=', q.status);
  return pageWithTotal(own, q, (page) =>
    page.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
  );
}

export async function findOwnTicket(db: Executor, tenantId: string, endUserId: string, id: string) {
  return db
    .selectFrom('tickets')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('requester_id', '=', endUserId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A ticket raised by the end user (source end_user), and its ticket.created event, in one transaction. */
export async function createOwnTicket(
  db: Db,
  tenantId: string,
  requester: { id: string; email: string; name: string | null },
  fields: z.output<typeof AppCreateTicketBody>,
): Promise<TicketRow> {
  return db.transaction().execute((trx) =>
    createTicket(
      trx,
      tenantId,
      {
        ...fields,
        requester_id: requester.id,
        requester_email: requester.email,
        requester_name: requester.name,
      },
      { createdBy: `end_user:${requester.id}`, source: 'end_user' },
    ),
  );
}
