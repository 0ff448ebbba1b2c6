import { Hono } from 'hono';
import type { Credential } from '../../shared/auth/credential';
import { actorOf, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { assertReferences } from '../../shared/db/references';
import { readThrough } from '../../shared/db/row-cache';
import { emitEvent } from '../../shared/events/emit';
import { ApiError, notFound } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { validate } from '../../shared/http/validation';
import { newId } from '../../shared/ids';
import {
  createTicket,
  normalizeTags,
  type TicketRow,
  ticketReferences,
  ticketView,
} from '../../shared/tickets/tickets';
import { findTicket, listTickets, replyView } from './data';
import {
  CreateReplyBody,
  CreateTicketBody,
  canTransition,
  ListRepliesQuery,
  ListTicketsQuery,
  RESOLVED_STATUSES,
  TicketIdParam,
  UpdateTicketBody,
  type UpdateTicketInput,
} from './schemas';

export const app = new Hono<AppEnv>();

const sourceOf = (auth: Credential) =>
  auth.kind === 'dashboard' ? 'dashboard' : auth.kind === 'end_user' ? 'end_user' : 'api';
const authorTypeOf = (auth: Credential) =>
  auth.kind === 'dashboard' ? 'agent' : auth.kind === 'end_user' ? 'requester' : 'api';

export const Details = {
  invalidTransition: (from: string, to: string) => `Invalid status transition: ${from} -> ${to}`,
  ticketClosed: 'Ticket is closed',
} as const;

app.get('/api/v1/tickets', validate('query', ListTicketsQuery), async (c) => {
  const f = c.req.valid('query');
  const { rows, total } = await listTickets(c.get('services').db, tenantOf(c), f);
  return c.json(pageEnvelope('tickets', rows.map(ticketView), total, f));
});

app.post('/api/v1/tickets', validate('json', CreateTicketBody), async (c) => {
  const input = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { db, events } = c.get('services');
  // one statement writes the ticket and its event atomically: no transaction to open around it
  const row = await createTicket(db, tenantId, input, {
    createdBy: actorOf(c),
    source: sourceOf(c.get('auth')),
  });
  events.kick();
  return c.json(ticketView(row), 201, { Location: `/api/v1/tickets/${row.id}` });
});

const JSON_CONTENT = { 'Content-Type': 'application/json' } as const;

app.get('/api/v1/tickets/:ticket_id', validate('param', TicketIdParam), async (c) => {
  const { ticket_id } = c.req.valid('param');
  const { db, rowCache } = c.get('services');
  const tenantId = tenantOf(c);
  // the hottest read: served from the process's row cache while no ticket write has happened since
  const json = await readThrough(rowCache, `ticket:${tenantId}:${ticket_id}`, async () => {
    const row = await findTicket(db, tenantId, ticket_id);
    return row && JSON.stringify(ticketView(row)); // cached as the body itself: no re-serialising
  });
  if (!json) throw notFound('Ticket');
  return c.body(json, 200, JSON_CONTENT);
});

const EDITABLE = [
  'subject',
  'description',
  'status',
  'priority',
  'type',
  'requester_id',
  'requester_name',
  'requester_email',
  'assignee_id',
  'tags',
  'call_id',
] as const satisfies readonly (keyof UpdateTicketInput)[];

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

app.patch(
  '/api/v1/tickets/:ticket_id',
  validate('param', TicketIdParam),
  validate('json', UpdateTicketBody),
  async (c) => {
    const { ticket_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const tenantId = tenantOf(c);
    const { db, events } = c.get('services');
    const result = await db.transaction().execute(async (trx) => {
      const current = await findTicket(trx, tenantId, ticket_id, true);
      if (!current) throw notFound('Ticket');
      const wanted = { ...input, ...(input.tags ? { tags: normalizeTags(input.tags) } : {}) };
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      for (const field of EDITABLE) {
        if (!(field in wanted) || wanted[field] === undefined) continue;
        if (!same(current[field], wanted[field]))
          changes[field] = { from: current[field], to: wanted[field] };
      }
      if (Object.keys(changes).length === 0) return { row: current, emitted: false };
      if (changes.status && !canTransition(current.status, String(changes.status.to)))
        throw new ApiError(409, Details.invalidTransition(current.status, String(changes.status.to)));
      const changedReferences = ticketReferences(wanted).filter((r) => r.field in changes);
      await assertReferences(trx, tenantId, changedReferences);

      const now = new Date();
      const patch: Record<string, unknown> = { updated_at: now };
      for (const field of Object.keys(changes)) patch[field] = changes[field]!.to;
      const crossesIntoResolved =
        changes.status !== undefined &&
        RESOLVED_STATUSES.has(String(changes.status.to)) &&
        !RESOLVED_STATUSES.has(current.status);
      if (changes.status) {
        const to = String(changes.status.to);
        if (crossesIntoResolved) patch.resolved_at = now;
        if (!RESOLVED_STATUSES.has(to)) patch.resolved_at = null;
        if (to === 'closed') patch.closed_at = now;
      }
      const row = (await trx
        .updateTable('tickets')
        .set(patch)
        .where('tenant_id', '=', tenantId)
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow()) as TicketRow;
      const ticket = ticketView(row);
      await emitEvent(trx, tenantId, 'ticket.updated', { ticket, changes: serializeChanges(changes) });
      if (crossesIntoResolved)
        await emitEvent(trx, tenantId, 'ticket.resolved', { ticket, previous_status: current.status });
      return { row, emitted: true };
    });
    if (result.emitted) events.kick();
    return c.json(ticketView(result.row));
  },
);

function serializeChanges(changes: Record<string, { from: unknown; to: unknown }>) {
  return JSON.parse(JSON.stringify(changes)) as Record<string, { from: unknown; to: unknown }>;
}

app.post(
  '/api/v1/tickets/:ticket_id/replies',
  validate('param', TicketIdParam),
  validate('json', CreateReplyBody),
  async (c) => {
    const { ticket_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const tenantId = tenantOf(c);
    const auth = c.get('auth');
    const { db, events } = c.get('services');
    const reply = await db.transaction().execute(async (trx) => {
      const ticket = await findTicket(trx, tenantId, ticket_id, true);
      if (!ticket) throw notFound('Ticket');
      if (ticket.status === 'closed') throw new ApiError(409, Details.ticketClosed);
      const now = new Date();
      const created = await trx
        .insertInto('ticket_replies')
        .values({
          id: newId('ticketReply'),
          tenant_id: tenantId,
          ticket_id: ticket.id,
          body: input.body,
          author_type: authorTypeOf(auth),
          author_id: actorOf(c),
          is_public: input.is_public ?? true,
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const updated = (await trx
        .updateTable('tickets')
        .set((eb) => ({ reply_count: eb('reply_count', '+', 1), updated_at: now }))
        .where('id', '=', ticket.id)
        .returningAll()
        .executeTakeFirstOrThrow()) as TicketRow;
      const view = replyView(created);
      await emitEvent(trx, tenantId, 'ticket.replied', {
        ticket: ticketView(updated),
        reply: {
          id: view.id,
          body: view.body,
          author_type: view.author_type,
          author_id: view.author_id,
          is_public: view.is_public,
          created_at: view.created_at,
        },
      });
      return view;
    });
    events.kick();
    return c.json(reply, 201);
  },
);

app.get(
  '/api/v1/tickets/:ticket_id/replies',
  validate('param', TicketIdParam),
  validate('query', ListRepliesQuery),
  async (c) => {
    const { ticket_id } = c.req.valid('param');
    const page = c.req.valid('query');
    const tenantId = tenantOf(c);
    const { db } = c.get('services');
    const ticket = await findTicket(db, tenantId, ticket_id);
    if (!ticket) throw notFound('Ticket');
    const [rows, count] = await Promise.all([
      db
        .selectFrom('ticket_replies')
        .selectAll()
        .where('ticket_id', '=', ticket.id)
        .where('tenant_id', '=', tenantId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      db
        .selectFrom('ticket_replies')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('ticket_id', '=', ticket.id)
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow(),
    ]);
    return c.json(pageEnvelope('replies', rows.map(replyView), Number(count.n), page));
  },
);
