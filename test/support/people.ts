import type { Harness } from './harness';

/**
 * Dashboard users and end users with chosen ids, for bodies that reference them (assignee_id,
 * assignee_user_id, requester_id must be rows of the tenant: shared/db/references.ts).
 */
export async function addTenantUsers(h: Harness, tenantId: string, ids: readonly string[]) {
  await h.db
    .insertInto('tenant_users')
    .values(ids.map((id) => ({ id, tenant_id: tenantId, email: `${id}@people.test`, role: 'agent' })))
    .execute();
}

export async function addEndUsers(h: Harness, tenantId: string, ids: readonly string[]) {
  await h.db
    .insertInto('end_users')
    .values(ids.map((id) => ({ id, tenant_id: tenantId, email: `${id}@people.test` })))
    .execute();
}

/** Teams (manual routing, no members) with these ids, for tests that assign records to a team. */
export async function addTeams(h: Harness, tenantId: string, ids: readonly string[]) {
  const now = new Date();
  await h.db
    .insertInto('teams')
    .values(ids.map((id) => ({ id, tenant_id: tenantId, name: id, created_at: now, updated_at: now })))
    .execute();
}
