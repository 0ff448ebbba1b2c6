import { Hono } from 'hono';
import { inviteView, mailUserToken, revokeUserSessions } from '../../shared/auth/accounts';
import { tenantOf } from '../../shared/auth/credential';
import { roleAtLeast } from '../../shared/auth/jwt';
import type { AppEnv } from '../../shared/context/app-env';
import { conflict, Detail, notFound } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { register } from '../../shared/http/route';
import {
  deleteTenantUser,
  emailTaken,
  findRequester,
  findTenantUser,
  findTenantUserRole,
  insertTenantUser,
  listRequesters,
  listTenantUsers,
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

register(app, routes.createTenantUser, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  if (await emailTaken(db, tenantId, body.email)) throw conflict(Detail.userEmailTaken);
  const row = await insertTenantUser(db, tenantId, {
    email: body.email,
    name: body.name ?? null,
    role: body.role,
  });
  // the colleague sets a password through the invite (mailed; shown once here for the inviter to pass on)
  const invite = await mailUserToken(c, row, 'invite');
  return c.json({ ...userView(row), invite: inviteView(invite) }, 201);
});

register(app, routes.getTenantUser, async (c) => {
  const { id } = c.req.valid('param');
  const row = await findTenantUser(c.get('services').db, tenantOf(c), id);
  if (!row) throw notFound('User');
  return c.json(userView(row));
});

register(app, routes.updateTenantUser, async (c) => {
  const { id } = c.req.valid('param');
  const body = c.req.valid('json');
  const set: TenantUserChanges = { updated_at: new Date() };
  if (body.name !== undefined) set.name = body.name;
  if (body.role !== undefined) set.role = body.role;
  const { db } = c.get('services');
  const before = await findTenantUserRole(db, tenantOf(c), id);
  const row = await updateTenantUser(db, tenantOf(c), id, set);
  if (!before || !row) throw notFound('User');
  // a lowered role takes effect at once: their sessions end (signing in again gives the new role)
  if (!roleAtLeast(row.role, before.role)) await revokeUserSessions(db, row.id, 'role_lowered');
  return c.json(userView(row));
});

/** Their sessions and refresh tokens go with the row (ON DELETE CASCADE, schema/0009). */
register(app, routes.deleteTenantUser, async (c) => {
  const { id } = c.req.valid('param');
  if (!(await deleteTenantUser(c.get('services').db, tenantOf(c), id))) throw notFound('User');
  return c.body(null, 204);
});
