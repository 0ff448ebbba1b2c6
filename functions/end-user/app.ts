import { type Context, Hono } from 'hono';
import { publicBase } from '../../shared/auth/accounts';
import { jsonOnly } from '../../shared/auth/json-only';
import { END_USER_TOKEN_SECONDS, signEndUserToken } from '../../shared/auth/jwt';
import { hashPassword, verifyPassword } from '../../shared/auth/password';
import type { AppEnv } from '../../shared/context/app-env';
import { randomBase62, sha256Hex } from '../../shared/crypto';
import { tenantExists } from '../../shared/db/tenants';
import { iso } from '../../shared/events/emit';
import { ApiError, conflict, Detail, notFound, unauthorized } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { register } from '../../shared/http/route';
import { ticketView } from '../../shared/tickets/tickets';
import {
  consumeMagicLink,
  createOwnTicket,
  type EndUser,
  findOwnTicket,
  findProfile,
  findRequester,
  findUserByEmail,
  findUserById,
  insertMagicLink,
  insertUser,
  listOwnTickets,
} from './data';
import * as routes from './routes';

/**
 * The end-user API. `/api/v1/app/auth/*` is public (rate-limited per client IP); every other
 * `/api/v1/app/*` path takes the end-user JWT the auth endpoints issue, and an end user sees and
 * creates only their own tickets (tickets.requester_id = the end user's id).
 */
export const app = new Hono<AppEnv>();
// credential-free POSTs: JSON only (415), so a foreign page cannot send them without a preflight
app.use('/api/v1/app/auth/*', jsonOnly);

export const MAGIC_LINK_TTL_SECONDS = 15 * 60;
export const MAGIC_LINK_SENT = 'If the address belongs to an account, a sign-in link has been sent';

async function issue(c: Context<AppEnv>, user: EndUser) {
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

register(app, routes.registerUser, async (c) => {
  const body = c.req.valid('json');
  const { db } = c.get('services');
  if (!(await tenantExists(db, body.tenant_id))) throw notFound('Tenant');
  if (await findUserByEmail(db, body.tenant_id, body.email)) throw conflict(Detail.endUserEmailTaken);
  const user = await insertUser(db, {
    tenant_id: body.tenant_id,
    email: body.email,
    name: body.name ?? null,
    password_hash: await hashPassword(body.password),
  });
  return c.json(await issue(c, user), 201);
});

/** Unknown tenant, unknown email and wrong password are the same 401 (and cost the same hash). */
register(app, routes.logIn, async (c) => {
  const body = c.req.valid('json');
  const user = await findUserByEmail(c.get('services').db, body.tenant_id, body.email);
  const ok = await verifyPassword(body.password, user?.password_hash ?? null);
  if (!user || !ok) throw unauthorized(Detail.invalidLogin);
  return c.json(await issue(c, user));
});

/**
 * Requests a one-time sign-in link (15 minutes). The answer is the same whether or not the address
 * has an account, and so is the work before it: the lookup only; the token is made, stored and
 * mailed after the answer. The token is never in the answer (whoever asks would sign in as anyone
 * whose address they know); development prints the mail on stdout (shared/mail/mailer.ts).
 */
register(app, routes.requestMagicLink, async (c) => {
  const body = c.req.valid('json');
  const { db, config, mailer, defer } = c.get('services');
  const user = await findUserByEmail(db, body.tenant_id, body.email);
  if (user)
    defer(async () => {
      const token = randomBase62(43);
      await insertMagicLink(db, {
        token_hash: await sha256Hex(token),
        tenant_id: user.tenant_id,
        end_user_id: user.id,
        expires_at: new Date(Date.now() + MAGIC_LINK_TTL_SECONDS * 1000),
      });
      const link = `${publicBase(config)}/app/login/magic?token=${token}`;
      await mailer.send({
        to: user.email,
        subject: 'Your sign-in link',
        text: `Sign in: ${link}\n\nThe link works once, for ${MAGIC_LINK_TTL_SECONDS / 60} minutes. If you did not ask for it, ignore this mail.`,
        link,
      });
    });
  return c.json({ detail: MAGIC_LINK_SENT, expires_in: MAGIC_LINK_TTL_SECONDS }, 202);
});

/** Single use: the token is consumed by a conditional update, so two concurrent verifications cannot both win. */
register(app, routes.verifyMagicLink, async (c) => {
  const { token } = c.req.valid('json');
  const { db } = c.get('services');
  const endUserId = await consumeMagicLink(db, await sha256Hex(token));
  if (!endUserId) throw unauthorized(Detail.invalidMagicLink);
  const user = await findUserById(db, endUserId);
  if (!user) throw unauthorized(Detail.invalidMagicLink);
  return c.json(await issue(c, user));
});

function endUserOf(c: Context<AppEnv>) {
  const auth = c.get('auth');
  if (auth.kind !== 'end_user')
    throw new ApiError(401, Detail.endUserTokenRequired, { 'WWW-Authenticate': 'Bearer' });
  return auth;
}

register(app, routes.getMe, async (c) => {
  const auth = endUserOf(c);
  const user = await findProfile(c.get('services').db, auth.tenantId, auth.endUserId);
  if (!user) throw notFound('User');
  return c.json({ ...user, tenant_id: auth.tenantId, created_at: iso(user.created_at) });
});

register(app, routes.listTickets, async (c) => {
  const auth = endUserOf(c);
  const q = c.req.valid('query');
  const { rows, total } = await listOwnTickets(c.get('services').db, auth.tenantId, auth.endUserId, q);
  return c.json(pageEnvelope('tickets', rows.map(ticketView), total, q));
});

register(app, routes.getTicket, async (c) => {
  const auth = endUserOf(c);
  const { id } = c.req.valid('param');
  const row = await findOwnTicket(c.get('services').db, auth.tenantId, auth.endUserId, id);
  if (!row) throw notFound('Ticket');
  return c.json(ticketView(row));
});

register(app, routes.createTicket, async (c) => {
  const auth = endUserOf(c);
  const body = c.req.valid('json');
  const { db } = c.get('services');
  const user = await findRequester(db, auth.tenantId, auth.endUserId);
  if (!user) throw unauthorized(Detail.endUserGone);
  const row = await createOwnTicket(db, auth.tenantId, user, body);
  c.get('services').events.kick();
  return c.json(ticketView(row), 201);
});
