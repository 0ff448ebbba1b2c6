import { Hono } from 'hono';
import type { Selectable } from 'kysely';
import { inviteView, mailUserToken } from '../../shared/auth/accounts';
import { requireRole } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import type { TenantsTable } from '../../shared/db/schema';
import { notFound } from '../../shared/http/errors';
import { validate } from '../../shared/http/validation';
import { newId } from '../../shared/ids';
import { CreateTenantBody, TenantIdParam } from './schemas';

export { CreateTenantBody, TENANT_ENVIRONMENTS, TENANT_PLANS } from './schemas';

export const tenantView = (t: Selectable<TenantsTable>) => ({
  id: t.id,
  name: t.name,
  plan: t.plan,
  environment: t.environment,
  /** keys issued for this tenant start with this */
  api_key_prefix: t.environment === 'sandbox' ? 'itsm_sk_test_' : 'itsm_sk_live_',
  created_at: t.created_at,
  updated_at: t.updated_at,
});

export const app = new Hono<AppEnv>();

/**
 * POST /api/v1/tenants: super_admin only (../shared/DESIGN.md contract); `admin_email` invites the
 * first tenant_admin.
 */
app.post('/api/v1/tenants', validate('json', CreateTenantBody), async (c) => {
  requireRole(c, 'super_admin');
  const { admin_email, ...body } = c.req.valid('json');
  const { db } = c.get('services');
  const tenant = await db
    .insertInto('tenants')
    .values({ id: newId('tenant'), ...body })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (!admin_email) return c.json(tenantView(tenant), 201);
  const admin = await db
    .insertInto('tenant_users')
    .values({
      id: newId('tenantUser'),
      tenant_id: tenant.id,
      email: admin_email,
      role: 'tenant_admin',
      name: null,
      updated_at: new Date(),
    })
    .returning(['id', 'tenant_id', 'email'])
    .executeTakeFirstOrThrow();
  const invite = await mailUserToken(c, admin, 'invite');
  return c.json(
    { ...tenantView(tenant), invite: { user_id: admin.id, email: admin.email, ...inviteView(invite) } },
    201,
  );
});

/** GET /api/v1/tenants/{id}: the tenant's own admins, or a super_admin. Others get 404 (no existence leak). */
app.get('/api/v1/tenants/:tenant_id', validate('param', TenantIdParam), async (c) => {
  const session = requireRole(c, 'tenant_admin');
  const id = c.req.valid('param').tenant_id;
  if (session.role !== 'super_admin' && session.tenantId !== id) throw notFound('Tenant');
  const tenant = await c
    .get('services')
    .db.selectFrom('tenants')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!tenant) throw notFound('Tenant');
  return c.json(tenantView(tenant));
});
