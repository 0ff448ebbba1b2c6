import { Hono } from 'hono';
import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import { inviteView, mailUserToken, revokeUserSessions } from '../../shared/auth/accounts';
import { roleGuard, tenantOf } from '../../shared/auth/credential';
import { roleAtLeast } from '../../shared/auth/jwt';
import type { AppEnv } from '../../shared/context/app-env';
import { containsPattern } from '../../shared/db/like';
import { pageWithTotal } from '../../shared/db/paging';
import type { EndUsersTable, TenantUsersTable } from '../../shared/db/tables/platform';
import { conflict, notFound } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { validate } from '../../shared/http/validation';
import { newId } from '../../shared/ids';
import {
  CreateTenantUserBody,
  IdParam,
  RequestersQuery,
  TenantUsersQuery,
  UpdateTenantUserBody,
} from './schemas';

/**
 * Directory: requesters (the tenant's end users, users:read) and tenant users (dashboard agents
 * and admins; reading needs users:read + roles:write, creating/changing needs users:write +
 * roles:write). Creating one invites them (shared/auth/accounts.ts). Password hashes never leave the database.
 */
export const app = new Hono<AppEnv>();
// dashboard sessions: an agent may read, only a tenant_admin may change; API keys go by their scopes
const tenantAdminWrites = roleGuard('tenant_admin', { keysByScope: true, readsForAnySession: true });
app.use('/api/v1/tenant/users', tenantAdminWrites);
app.use('/api/v1/tenant/users/*', tenantAdminWrites);

const requesterView = (u: Selectable<EndUsersTable> & { ticket_count?: number | string | null }) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  has_password: u.password_hash !== null,
  ticket_count: Number(u.ticket_count ?? 0),
  created_at: new Date(u.created_at).toISOString(),
});

app.get('/api/v1/requesters', validate('query', RequestersQuery), async (c) => {
  const q = c.req.valid('query');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  let base = db.selectFrom('end_users').where('tenant_id', '=', tenantId);
  if (q.email) base = base.where(sql`lower(email)`, '=', q.email.toLowerCase());
  if (q.search) {
    const pattern = containsPattern(q.search.toLowerCase());
    base = base.where((eb) =>
      eb.or([eb(sql`lower(email)`, 'like', pattern), eb(sql`lower(coalesce(name, ''))`, 'like', pattern)]),
    );
  }
  const { rows, total } = await pageWithTotal(base, q, (page) =>
    page
      .selectAll('end_users')
      .select((eb) =>
        eb
          .selectFrom('tickets')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('tickets.requester_id', '=', 'end_users.id')
          .whereRef('tickets.tenant_id', '=', 'end_users.tenant_id')
          .as('ticket_count'),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc'),
  );
  return c.json(pageEnvelope('requesters', rows.map(requesterView), total, q));
});

app.get('/api/v1/requesters/:id', validate('param', IdParam), async (c) => {
  const { id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  const row = await c
    .get('services')
    .db.selectFrom('end_users')
    .selectAll('end_users')
    .select((eb) =>
      eb
        .selectFrom('tickets')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('tickets.requester_id', '=', 'end_users.id')
        .whereRef('tickets.tenant_id', '=', 'end_users.tenant_id')
        .as('ticket_count'),
    )
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('Requester');
  return c.json(requesterView(row));
});

const userView = (u: Selectable<TenantUsersTable>) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  created_at: new Date(u.created_at).toISOString(),
  updated_at: new Date(u.updated_at).toISOString(),
});

app.get('/api/v1/tenant/users', validate('query', TenantUsersQuery), async (c) => {
  const q = c.req.valid('query');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  let base = db.selectFrom('tenant_users').where('tenant_id', '=', tenantId);
  if (q.role) base = base.where('role', '=', q.role);
  if (q.search) {
    const pattern = containsPattern(q.search.toLowerCase());
    base = base.where((eb) =>
      eb.or([eb(sql`lower(email)`, 'like', pattern), eb(sql`lower(coalesce(name, ''))`, 'like', pattern)]),
    );
  }
  const { rows, total } = await pageWithTotal(base, q, (page) =>
    page.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
  );
  return c.json(pageEnvelope('users', rows.map(userView), total, q));
});

app.get('/api/v1/tenant/users/:id', validate('param', IdParam), async (c) => {
  const { id } = c.req.valid('param');
  const row = await c
    .get('services')
    .db.selectFrom('tenant_users')
    .selectAll()
    .where('tenant_id', '=', tenantOf(c))
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('User');
  return c.json(userView(row));
});

app.post('/api/v1/tenant/users', validate('json', CreateTenantUserBody), async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  const exists = await db
    .selectFrom('tenant_users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where(sql`lower(email)`, '=', body.email.toLowerCase())
    .executeTakeFirst();
  if (exists) throw conflict('A user with this email already exists');
  const row = await db
    .insertInto('tenant_users')
    .values({
      id: newId('tenantUser'),
      tenant_id: tenantId,
      email: body.email,
      name: body.name ?? null,
      role: body.role,
      updated_at: new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  // the colleague sets a password through the invite (mailed; shown once here for the inviter to pass on)
  const invite = await mailUserToken(c, row, 'invite');
  return c.json({ ...userView(row), invite: inviteView(invite) }, 201);
});

app.patch(
  '/api/v1/tenant/users/:id',
  validate('param', IdParam),
  validate('json', UpdateTenantUserBody),
  async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const set: { name?: string | null; role?: 'agent' | 'tenant_admin'; updated_at: Date } = {
      updated_at: new Date(),
    };
    if (body.name !== undefined) set.name = body.name;
    if (body.role !== undefined) set.role = body.role;
    const { db } = c.get('services');
    const before = await db
      .selectFrom('tenant_users')
      .select('role')
      .where('tenant_id', '=', tenantOf(c))
      .where('id', '=', id)
      .executeTakeFirst();
    const row = await db
      .updateTable('tenant_users')
      .set(set)
      .where('tenant_id', '=', tenantOf(c))
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    if (!before || !row) throw notFound('User');
    // a lowered role takes effect at once: their sessions end (signing in again gives the new role)
    if (!roleAtLeast(row.role, before.role)) await revokeUserSessions(db, row.id, 'role_lowered');
    return c.json(userView(row));
  },
);

/** Their sessions and refresh tokens go with the row (ON DELETE CASCADE, schema/0009). */
app.delete('/api/v1/tenant/users/:id', validate('param', IdParam), async (c) => {
  const { id } = c.req.valid('param');
  const deleted = await c
    .get('services')
    .db.deleteFrom('tenant_users')
    .where('tenant_id', '=', tenantOf(c))
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  if (!deleted) throw notFound('User');
  return c.body(null, 204);
});
