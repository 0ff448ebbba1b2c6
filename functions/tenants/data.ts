import type { Selectable } from 'kysely';
import type { z } from 'zod';
import type { Executor, TenantsTable } from '../../shared/db/schema';
import { newId } from '../../shared/ids';
import type { CreateTenantBody } from './schemas';

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

export async function insertTenant(
  db: Executor,
  fields: Omit<z.output<typeof CreateTenantBody>, 'admin_email'>,
) {
  return db
    .insertInto('tenants')
    .values({ id: newId('tenant'), ...fields })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The tenant's first tenant_admin (invited by the caller), by email. */
export async function insertTenantAdmin(db: Executor, tenantId: string, email: string) {
  return db
    .insertInto('tenant_users')
    .values({
      id: newId('tenantUser'),
      tenant_id: tenantId,
      email,
      role: 'tenant_admin',
      name: null,
      updated_at: new Date(),
    })
    .returning(['id', 'tenant_id', 'email'])
    .executeTakeFirstOrThrow();
}
