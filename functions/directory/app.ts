import { Hono } from 'hono';
import { auditRow, recordAudit } from '../../shared/audit/audit';
import { inviteView, issueUserToken, mailIssuedToken, revokeUserSessions } from '../../shared/auth/accounts';
import { tenantOf } from '../../shared/auth/credential';
import { requireGrant } from '../../shared/auth/grants';
import { roleAtLeast } from '../../shared/auth/jwt';
import type { AppEnv } from '../../shared/context/app-env';
import { answerWithWork, sendAnswer, storedJson } from '../../shared/http/answer-with-work';
import { conflict, Detail, notFound } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { register } from '../../shared/http/route';
import {
  deleteInvitation,
  deleteTenantUser,
  emailTaken,
  findInvitation,
  findRequester,
  findTenantUser,
  insertTenantUser,
  invitationView,
  listInvitations,
  listRequesters,
  listTenantUsers,
  lockActiveAdmins,
  requesterView,
  type TenantUserChanges,
  updateTenantUser,
  userView,
} from './data';
import * as routes from './routes';

/**
 * Directory: requesters (the tenant's end users, users:read) and tenant users (dashboard agents
 * and admins; reading needs users:read + roles:write, creating/changing needs users:write +
 * roles:write). Creating one invites them (shared/auth/accounts.ts). Password hashes never leave the database.
 * Dashboard sessions: an agent may read, only a tenant_admin may change (the roles in routes.ts).
 */
export const app = new Hono<AppEnv>();

/* ---------------------------------------------------------------- requesters */

register(app, routes.listRequesters, async (c) => {
  const q = c.req.valid('query');
  const { rows, total } = await listRequesters(c.get('services').db, tenantOf(c), q);
  return c.json(pageEnvelope('requesters', rows.map(requesterView), total, q));
});

register(app, routes.getRequester, async (c) => {
  const { id } = c.req.valid('param');
  const row = await findRequester(c.get('services').db, tenantOf(c), id);
  if (!row) throw notFound('Requester');
  return c.json(requesterView(row));
});

/* ---------------------------------------------------------------- tenant users */

register(app, routes.listTenantUsers, async (c) => {
  const q = c.req.valid('query');
  const { rows, total } = await listTenantUsers(c.get('services').db, tenantOf(c), q);
  return c.json(pageEnvelope('users', rows.map(userView), total, q));
});

export const ALREADY_INVITED =
  'This address is already invited and has not accepted yet: resend or revoke its invitation instead';

/**
 * The colleague and the audit entry commit together (one statement), then their invite link;
 * under an Idempotency-Key all of it commits with the answer. The invite is mailed after.
 */
register(app, routes.createTenantUser, async (c) => {
  const body = c.req.valid('json');
  requireGrant(c, body.role);
  const tenantId = tenantOf(c);
  const { db, config } = c.get('services');
  const taken = await emailTaken(db, tenantId, body.email);
  // an invitee is no member yet: "already exists" would send the admin looking among the members
  if (taken === 'invited') throw conflict(ALREADY_INVITED);
  if (taken) throw conflict(Detail.userEmailTaken);
  const { result, answer } = await answerWithWork(
    c,
    async (tx) => {
      const row = await insertTenantUser(
        tx,
        tenantId,
        { email: body.email, name: body.name ?? null, role: body.role },
        (id) => auditRow(c, 'user.invited', { type: 'user', id }, { email: body.email, role: body.role }),
      );
      // the colleague sets a password through the mailed invite (its link is returned in development only)
      return { row, invite: await issueUserToken(tx, config, row, 'invite') };
    },
    ({ row, invite }) => storedJson(201, { ...userView(row), invite: inviteView(config, invite) }),
  );
  mailIssuedToken(c, result.row, 'invite', result.invite);
  return sendAnswer(c, answer);
});

register(app, routes.getTenantUser, async (c) => {
  const { id } = c.req.valid('param');
  const row = await findTenantUser(c.get('services').db, tenantOf(c), id);
  if (!row) throw notFound('User');
  return c.json(userView(row));
});

/** A lowered role takes effect at once: their sessions end (signing in again gives the new role). */
register(app, routes.updateTenantUser, async (c) => {
  const { id } = c.req.valid('param');
  const body = c.req.valid('json');
  const set: TenantUserChanges = { updated_at: new Date() };
  if (body.name !== undefined) set.name = body.name;
  if (body.role !== undefined) set.role = body.role;
  const tenantId = tenantOf(c);
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
      const admins = await lockActiveAdmins(trx, tenantId);
      const before = await findTenantUser(trx, tenantId, id);
      if (!before) throw notFound('User');
      requireGrant(c, before.role, set.role ?? before.role);
      if (set.role === 'agent') keepAnAdmin(admins, id);
      const after = await updateTenantUser(trx, tenantId, id, set);
      if (!after) throw notFound('User');
      if (!roleAtLeast(after.role, before.role)) await revokeUserSessions(trx, after.id, 'role_lowered');
      const changes = changesOf(before, after);
      if (Object.keys(changes).length > 0)
        await recordAudit(trx, c, 'user.updated', { type: 'user', id }, { email: after.email, ...changes });
      return after;
    },
    // a retry after a crash replays this answer: a second PATCH would answer another updated_at
    (after) => storedJson(200, userView(after)),
    { transaction: true },
  );
  return sendAnswer(c, answer);
});

/** 409 when `userId` is the tenant's last active tenant_admin (a tenant nobody can administer is lost). */
function keepAnAdmin(activeAdmins: string[], userId: string): void {
  if (activeAdmins.length === 1 && activeAdmins[0] === userId) throw conflict(Detail.lastTenantAdmin);
}

/** `{field: {from, to}}` for the fields a PATCH may change that did change. */
function changesOf<T extends { name: string | null; role: string }>(before: T, after: T) {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of ['name', 'role'] as const)
    if (before[field] !== after[field]) changes[field] = { from: before[field], to: after[field] };
  return changes;
}

/** Their sessions and refresh tokens go with the row (ON DELETE CASCADE, schema/0009). */
register(app, routes.deleteTenantUser, async (c) => {
  const { id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  await db.transaction().execute(async (trx) => {
    const admins = await lockActiveAdmins(trx, tenantId);
    const target = await findTenantUser(trx, tenantId, id);
    if (!target) throw notFound('User');
    requireGrant(c, target.role);
    keepAnAdmin(admins, id);
    const removed = await deleteTenantUser(trx, tenantId, id);
    if (!removed) throw notFound('User');
    await recordAudit(
      trx,
      c,
      'user.removed',
      { type: 'user', id },
      { email: removed.email, role: removed.role },
    );
  });
  return c.body(null, 204);
});

/* ---------------------------------------------------------------- invitations */

register(app, routes.listInvitations, async (c) => {
  const q = c.req.valid('query');
  const { rows, total } = await listInvitations(c.get('services').db, tenantOf(c), q);
  return c.json(pageEnvelope('invitations', rows.map(invitationView), total, q));
});

/**
 * A new link (issuing it lapses the earlier one) and its audit entry, mailed (and returned in
 * development), as at creation; under an Idempotency-Key they commit with the answer.
 */
register(app, routes.resendInvitation, async (c) => {
  const { id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  const { config } = c.get('services');
  const { result, answer } = await answerWithWork(
    c,
    async (db) => {
      const invitation = await findInvitation(db, tenantId, id);
      if (!invitation) throw notFound('Invitation');
      requireGrant(c, invitation.role);
      const invite = await issueUserToken(db, config, invitation, 'invite');
      await recordAudit(
        db,
        c,
        'user.invited',
        { type: 'user', id },
        { email: invitation.email, role: invitation.role, resent: true },
      );
      return { invitation, invite };
    },
    ({ invitation, invite }) =>
      storedJson(200, {
        ...invitationView({ ...invitation, expires_at: invite.expires_at }),
        invite: inviteView(config, invite),
      }),
  );
  mailIssuedToken(c, result.invitation, 'invite', result.invite);
  return sendAnswer(c, answer);
});

/** The invitee goes, and with them every link they were sent. */
register(app, routes.revokeInvitation, async (c) => {
  const { id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  await db.transaction().execute(async (trx) => {
    const invitation = await findInvitation(trx, tenantId, id);
    if (!invitation) throw notFound('Invitation');
    requireGrant(c, invitation.role);
    const removed = await deleteInvitation(trx, tenantId, id);
    if (!removed) throw notFound('Invitation');
    await recordAudit(
      trx,
      c,
      'user.removed',
      { type: 'user', id },
      { email: removed.email, role: removed.role, invitation: true },
    );
  });
  return c.body(null, 204);
});
