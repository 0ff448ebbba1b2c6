import type { Executor } from './schema';

/** A tenant's row, or undefined. Read by the tenants, billing and config functions, each with its own view. */
export function findTenant(db: Executor, tenantId: string) {
  return db.selectFrom('tenants').selectAll().where('id', '=', tenantId).executeTakeFirst();
}

/** Whether a tenant exists: for the paths that take a tenant id from the caller (public, internal). */
export async function tenantExists(db: Executor, tenantId: string): Promise<boolean> {
  const tenant = await db.selectFrom('tenants').select('id').where('id', '=', tenantId).executeTakeFirst();
  return tenant !== undefined;
}
