import { Hono } from 'hono';
import { sql } from 'kysely';
import type { tenantOf } from '../../shared/auth/credential';
import { END_USER_TOKEN_SECONDS, signEndUserToken } from '../../shared/auth/jwt';
import { hashPassword, verifyPassword } from '../../shared/auth/password';
import type { AppEnv } from '../../shared/context/app-env';
import { randomBase62, sha256Hex } from '../../shared/crypto';
import { pageWithTotal } from '../../shared/db/paging';
import type { Db } from '../../shared/db/schema';
import { ApiError, conflict, notFound, unauthorized } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { validate } from '../../shared/http/validation';
import { newId } from '../../shared/ids';
import { createTicket, ticketView } from '../../shared/tickets/tickets';
import {
  AppCreateTicketBody,
  AppTicketParam,
  AppTicketsQuery,
  LoginBody,
  MagicLinkBody,
  MagicLinkVerifyBody,
  RegisterBody,
} from './schemas';

/**
 * The end-user API. `/api/v1/app/auth/*` is public (rate-limited per client IP); every other
 * `/api/v1/app/*` path takes the end-user JWT the auth endpoints issue, and an end user sees and
 * creates only their own tickets (tickets.requester_id = the end user's id).
 */
export const app = new Hono<AppEnv>();

export const INVALID_LOGIN = 'Invalid email or password';
export const INVALID_MAGIC_LINK = 'Invalid or expired magic link';
export const MAGIC_LINK_TTL_SECONDS = 15 * 60;
export const MAGIC_LINK_SENT = 'If the address belongs to an account, a sign-in link has been sent';

type EndUser = { id: string; tenant_id: string; email: string; name: string | null };

async function issue(c: Parameters<typeof tenantOf>[0], user: EndUser) {
  const access_token = await signEndUserToken(c.get('services').config.END_USER_JWT_SECRET, {
    sub: user.id,
    tenant_id: user.tenant_id,
    email: user.email,
  });
  return {
    access_token,
    token_type: 'bearer' as const,
    expires_in: END_USER_TOKEN_SECONDS,
    user: { id: user.id, email: user.email, name: user.name },
  };
}

const findUser = (db: Db, tenantId: string, email: string) =>
  db
    .selectFrom('end_users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();

app.post('/api/v1/app/auth/register', validate('json', RegisterBody), async (c) => {
  const body = c.req.valid('json');
  const { db } = c.get('services');
  const tenant = await db
    .selectFrom('tenants')
    .select('id')
    .where('id', '=', body.tenant_id)
    .executeTakeFirst();
  if (!tenant) throw notFound('Tenant');
  if (await findUser(db, body.tenant_id, body.email))
    throw conflict('An account with this email already exists');
  const user = await db
    .insertInto('end_users')
    .values({
      id: newId('endUser'),
      tenant_id: body.tenant_id,
      email: body.email,
      name: body.name ?? null,
      password_hash: await hashPassword(body.password),
    })
    .returning(['id', 'tenant_id', 'email', 'name'])
    .executeTakeFirstOrThrow();
  return c.json(await issue(c, user), 201);
});

/** Unknown tenant, unknown email and wrong password are the same 401 (and cost the same hash). */
app.post('/api/v1/app/auth/login', validate('json', LoginBody), async (c) => {
  const body = c.req.valid('json');
  const user = await findUser(c.get('services').db, body.tenant_id, body.email);
  const ok = await verifyPassword(body.password, user?.password_hash ?? null);
  if (!user || !ok) throw unauthorized(INVALID_LOGIN);
  return c.json(await issue(c, user));
});

/**
 * Requests a one-time sign-in link (15 minutes). The answer is the same whether or not the
 * address has an account. Production would e-mail the link (no mail provider is wired yet);
 * with APP_ENV development or test the link and token are returned in the response.
 */
app.post('/api/v1/app/auth/magic-link', validate('json', MagicLinkBody), async (c) => {
  const body = c.req.valid('json');
  const { db, config } = c.get('services');
  const user = await findUser(db, body.tenant_id, body.email);
  const out: Record<string, unknown> = { detail: MAGIC_LINK_SENT, expires_in: MAGIC_LINK_TTL_SECONDS };
  if (user) {
    const token = randomBase62(43);
    await db
      .insertInto('end_user_magic_links')
      .values({
        token_hash: await sha256Hex(token),
        tenant_id: user.tenant_id,
        end_user_id: user.id,
        expires_at: new Date(Date.now() + MAGIC_LINK_TTL_SECONDS * 1000),
      })
      .execute();
    if (config.APP_ENV === 'development' || config.APP_ENV === 'test') {
      const base = (config.PUBLIC_BASE_URL ?? '').replace(/\/+$/, '');
      out.magic_link = `${base}/app/login/magic?token=${token}`;
      out.token = token;
    }
  }
  return c.json(out, 202);
});

/** Single use: the token is consumed by a conditional update, so two concurrent verifications cannot both win. */
app.post('/api/v1/app/auth/magic-link/verify', validate('json', MagicLinkVerifyBody), async (c) => {
  const { token } = c.req.valid('json');
  const { db } = c.get('services');
  const used = await db
    .updateTable('end_user_magic_links')
    .set({ used_at: new Date() })
    .where('token_hash', '=', await sha256Hex(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', new Date())
    .returning(['end_user_id'])
    .executeTakeFirst();
  if (!used) throw unauthorized(INVALID_MAGIC_LINK);
  const user = await db
    .selectFrom('end_users')
    .select(['id', 'tenant_id', 'email', 'name'])
    .where('id', '=', used.end_user_id)
    .executeTakeFirst();
  if (!user) throw unauthorized(INVALID_MAGIC_LINK);
  return c.json(await issue(c, user));
});

function endUserOf(c: Parameters<typeof tenantOf>[0]) {
  const auth = c.get('auth');
  if (auth.kind !== 'end_user')
    throw new ApiError(401, 'End-user token required', { 'WWW-Authenticate': 'Bearer' });
  return auth;
}

app.get('/api/v1/app/me', async (c) => {
  const auth = endUserOf(c);
  const user = await c
    .get('services')
    .db.selectFrom('end_users')
    .select(['id', 'email', 'name', 'created_at'])
    .where('tenant_id', '=', auth.tenantId)
    .where('id', '=', auth.endUserId)
    .executeTakeFirst();
  if (!user) throw notFound('User');
  return c.json({ ...user, tenant_id: auth.tenantId, created_at: new Date(user.created_at).toISOString() });
});

app.get('/api/v1/app/tickets', validate('query', AppTicketsQuery), async (c) => {
  const auth = endUserOf(c);
  const q = c.req.valid('query');
  const { db } = c.get('services');
  let base = db
    .selectFrom('tickets')
    .where('tenant_id', '=', auth.tenantId)
    .where('requester_id', '=', auth.endUserId);
  if (q.status) base = base.where('status', '=', q.status);
  const { rows, total } = await pageWithTotal(base, q, (page) =>
    page.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
  );
  return c.json(pageEnvelope('tickets', rows.map(ticketView), total, q));
});

app.get('/api/v1/app/tickets/:id', validate('param', AppTicketParam), async (c) => {
  const auth = endUserOf(c);
  const row = await c
    .get('services')
    .db.selectFrom('tickets')
    .selectAll()
    .where('tenant_id', '=', auth.tenantId)
    .where('requester_id', '=', auth.endUserId)
    .where('id', '=', c.req.valid('param').id)
    .executeTakeFirst();
  if (!row) throw notFound('Ticket');
  return c.json(ticketView(row));
});

app.post('/api/v1/app/tickets', validate('json', AppCreateTicketBody), async (c) => {
  const auth = endUserOf(c);
  const body = c.req.valid('json');
  const { db } = c.get('services');
  const user = await db
    .selectFrom('end_users')
    .select(['id', 'email', 'name'])
    .where('tenant_id', '=', auth.tenantId)
    .where('id', '=', auth.endUserId)
    .executeTakeFirst();
  if (!user) throw unauthorized('End user no longer exists');
  const row = await db
    .transaction()
    .execute((trx) =>
      createTicket(
        trx,
        auth.tenantId,
        { ...body, requester_id: user.id, requester_email: user.email, requester_name: user.name },
        { createdBy: `end_user:${user.id}`, source: 'end_user' },
      ),
    );
  c.get('services').events.kick();
  return c.json(ticketView(row), 201);
});
