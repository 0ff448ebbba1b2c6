import { Hono } from 'hono';
import { inviteView, mailUserToken } from '../../shared/auth/accounts';
import { requireRole } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { findTenant } from '../../shared/db/tenants';
import { notFound } from '../../shared/http/errors';
import { register } from '../../shared/http/route';
import { insertTenant, insertTenantAdmin, tenantView } from './data';
import * as routes from './routes';

export const app = new Hono<AppEnv>();

/** super_admin only (docs/platform.md); `admin_email` invites the first tenant_admin. */
register(app, routes.createTenant, async (c) => {
  const { admin_email, ...body } = c.req.valid('json');
  const { db, config } = c.get('services');
  const tenant = await insertTenant(db, body);
  if (!admin_email) return c.json(tenantView(tenant), 201);
  const admin = await insertTenantAdmin(db, tenant.id, admin_email);
  const invite = await mailUserToken(c, admin, 'invite');
  return c.json(
    {
      ...tenantView(tenant),
      invite: { user_id: admin.id, email: admin.email, ...inviteView(config, invite) },
    },
    201,
  );
});

/** The tenant's own admins, or a super_admin. Others get 404 (no existence leak). */
register(app, routes.getTenant, async (c) => {
  const session = requireRole(c, 'tenant_admin'); // declared on the route too: here for the session
  const id = c.req.valid('param').tenant_id;
  if (session.role !== 'super_admin' && session.tenantId !== id) throw notFound('Tenant');
  const tenant = await findTenant(c.get('services').db, id);
  if (!tenant) throw notFound('Tenant');
  return c.json(tenantView(tenant));
});
