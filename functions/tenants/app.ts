import { Hono } from 'hono';
import { inviteView, issueUserToken, mailIssuedToken } from '../../shared/auth/accounts';
import { requireRole } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { findTenant } from '../../shared/db/tenants';
import { answerWithWork, sendAnswer, storedJson } from '../../shared/http/answer-with-work';
import { notFound } from '../../shared/http/errors';
import { register } from '../../shared/http/route';
import { insertTenant, insertTenantAdmin, tenantView } from './data';
import * as routes from './routes';

export const app = new Hono<AppEnv>();

/** super_admin only (docs/platform.md); `admin_email` invites the first tenant_admin. */
register(app, routes.createTenant, async (c) => {
  const { admin_email, ...body } = c.req.valid('json');
  const { config } = c.get('services');
  // the tenant, its first admin and the admin's invite commit together, with the answer under an
  // Idempotency-Key (a retry after a crash gets this tenant, not a second one); the mail goes after
  const { result, answer } = await answerWithWork(
    c,
    async (trx) => {
      const tenant = await insertTenant(trx, body);
      if (!admin_email) return { tenant, admin: null };
      const admin = await insertTenantAdmin(trx, tenant.id, admin_email);
      return { tenant, admin: { row: admin, invite: await issueUserToken(trx, config, admin, 'invite') } };
    },
    ({ tenant, admin }) =>
      storedJson(
        201,
        admin
          ? {
              ...tenantView(tenant),
              invite: { user_id: admin.row.id, email: admin.row.email, ...inviteView(config, admin.invite) },
            }
          : tenantView(tenant),
      ),
    { transaction: Boolean(admin_email) },
  );
  if (result.admin) mailIssuedToken(c, result.admin.row, 'invite', result.admin.invite);
  return sendAnswer(c, answer);
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
