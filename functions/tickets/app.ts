import { type Context, Hono } from 'hono';
import type { Credential } from '../../shared/auth/credential';
import { actorOf, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { readThrough } from '../../shared/db/row-cache';
import type { Executor } from '../../shared/db/schema';
import { emitEvent } from '../../shared/events/emit';
import { attachOrRefuse, viewsOf } from '../../shared/files/attach';
import { deleteHandler, getHandler, listHandler, uploadHandler } from '../../shared/files/handlers';
import { attachmentsOf } from '../../shared/files/records';
import { checkCustomFields, customFieldFilters, ticketFieldDefs } from '../../shared/helpdesk/fields';
import { pickTeamMember } from '../../shared/helpdesk/routing';
import { renderSavedReply, userIdOf } from '../../shared/helpdesk/saved-replies';
import {
  answerWithWork,
  type StatementLease,
  sendAnswer,
  storedJson,
} from '../../shared/http/answer-with-work';
import { ApiError, Detail, notFound } from '../../shared/http/errors';
import { cursorEnvelope, pageEnvelope } from '../../shared/http/pagination';
import { assertReferences } from '../../shared/http/references';
import { register } from '../../shared/http/route';
import { recordFirstResponse, ticketSlaAfterUpdate } from '../../shared/sla/records';
import {
  createTicket,
  normalizeTags,
  type TicketRow,
  ticketCreatedAnswer,
  ticketCreationReads,
  ticketReferences,
  ticketView,
} from '../../shared/tickets/tickets';
import { findTicket, insertReply, listReplies, listTickets, replyView, updateTicketRow } from './data';
import * as routes from './routes';
import { canTransition, RESOLVED_STATUSES, type UpdateTicketInput } from './schemas';

export const app = new Hono<AppEnv>();

const sourceOf = (auth: Credential) =>
  auth.kind === 'dashboard' ? 'dashboard' : auth.kind === 'end_user' ? 'end_user' : 'api';
const authorTypeOf = (auth: Credential) =>
  auth.kind === 'dashboard' ? 'agent' : auth.kind === 'end_user' ? 'requester' : 'api';

register(app, routes.listTickets, async (c) => {
  const f = c.req.valid('query');
  const { db } = c.get('services');
  const custom_fields = await customFieldQuery(c, db);
  const page = await listTickets(db, tenantOf(c), { ...f, custom_fields });
  return c.json(cursorEnvelope('tickets', page.rows.map(ticketView), page, f));
});

register(app, routes.createTicket, async (c) => {
  const input = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { db, events } = c.get('services');
  const { fields, policies } = await ticketCreationReads(db, tenantId);
  const custom_fields = checkCustomFields(fields, input.custom_fields);
  const write = (ex: Executor, lease: StatementLease | undefined, assignee_id = input.assignee_id) =>
    createTicket(
      ex,
      tenantId,
      { ...input, assignee_id, custom_fields },
      { createdBy: actorOf(c), source: sourceOf(c.get('auth')) },
      lease,
      policies,
    );
  // one statement writes the ticket, its event and (under a key) its answer atomically: no
  // transaction to open around it, but for a team that routes, whose pick holds the team's lock
  // until the ticket is written
  const routed = Boolean(input.assignee_team_id && input.assignee_id === undefined);
  const { answer } = await answerWithWork(
    c,
    async (ex, lease) => {
      if (!routed) return write(ex, lease);
      const pick = await pickTeamMember(ex, tenantId, input.assignee_team_id!, 'assignee_team_id');
      return write(ex, lease, pick.userId ?? undefined);
    },
    ticketCreatedAnswer,
    { transaction: routed, inStatement: true },
  );
  events.kick();
  return sendAnswer(c, answer);
});

const JSON_CONTENT = { 'Content-Type': 'application/json' } as const;

register(app, routes.getTicket, async (c) => {
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
  'assignee_team_id',
  'custom_fields',
] as const satisfies readonly (keyof UpdateTicketInput)[];

type Changes = Record<string, { from: unknown; to: unknown }>;
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The fields `wanted` changes on `current`, as {field: {from, to}}. */
function changesOf(current: TicketRow, wanted: UpdateTicketInput): Changes {
  const changes: Changes = {};
  for (const field of EDITABLE) {
    if (!(field in wanted) || wanted[field] === undefined) continue;
    if (!same(current[field], wanted[field])) changes[field] = { from: current[field], to: wanted[field] };
  }
  return changes;
}

/** The columns a set of changes writes: the fields, updated_at, and the resolved/closed stamps. */
function patchOf(current: TicketRow, changes: Changes, now: Date) {
  const patch: Record<string, unknown> = { updated_at: now };
  for (const field of Object.keys(changes)) patch[field] = changes[field]!.to;
  const to = changes.status ? String(changes.status.to) : undefined;
  const crossesIntoResolved =
    to !== undefined && RESOLVED_STATUSES.has(to) && !RESOLVED_STATUSES.has(current.status);
  if (to !== undefined) {
    if (crossesIntoResolved) patch.resolved_at = now;
    if (!RESOLVED_STATUSES.has(to)) patch.resolved_at = null;
    if (to === 'closed') patch.closed_at = now;
  }
  return { patch, crossesIntoResolved };
}

register(app, routes.updateTicket, async (c) => {
  const { ticket_id } = c.req.valid('param');
  const input = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { events } = c.get('services');
  // the answer commits with the work under an Idempotency-Key (so does "nothing to change": the
  // ticket as it was then), so a retry after a crash between the two replays it
  const { result, answer } = await answerWithWork(
    c,
    async (trx) => {
      const answered = (row: TicketRow, emitted: boolean) => ({ row, emitted });
      const current = await findTicket(trx, tenantId, ticket_id, true);
      if (!current) throw notFound('Ticket');
      const wanted = { ...input, ...(input.tags ? { tags: normalizeTags(input.tags) } : {}) };
      if (input.custom_fields)
        wanted.custom_fields = checkCustomFields(
          await ticketFieldDefs(trx, tenantId),
          input.custom_fields,
          current.custom_fields,
        );
      let changes = changesOf(current, wanted);
      // assigned to a team alone: a team that routes picks the assignee (holding the team's lock)
      if (changes.assignee_team_id && wanted.assignee_team_id && input.assignee_id === undefined) {
        const pick = await pickTeamMember(trx, tenantId, wanted.assignee_team_id, 'assignee_team_id');
        if (pick.userId) changes = changesOf(current, { ...wanted, assignee_id: pick.userId });
      }
      if (Object.keys(changes).length === 0) return answered(current, false);
      if (changes.status && !canTransition(current.status, String(changes.status.to)))
        throw new ApiError(409, Detail.invalidTransition(current.status, String(changes.status.to)));
      await assertReferences(
        trx,
        tenantId,
        ticketReferences(wanted).filter((r) => r.field in changes),
      );

      const now = new Date();
      const { patch, crossesIntoResolved } = patchOf(current, changes, now);
      Object.assign(patch, await ticketSlaAfterUpdate(trx, tenantId, current, changes, now));
      if (changes.custom_fields) patch.custom_fields = JSON.stringify(changes.custom_fields.to);
      const row = await updateTicketRow(trx, tenantId, current.id, patch);
      const ticket = ticketView(row);
      await emitEvent(trx, tenantId, 'ticket.updated', { ticket, changes: serializeChanges(changes) });
      if (crossesIntoResolved)
        await emitEvent(trx, tenantId, 'ticket.resolved', { ticket, previous_status: current.status });
      return answered(row, true);
    },
    ({ row }) => storedJson(200, ticketView(row)),
    { transaction: true },
  );
  if (result.emitted) events.kick();
  return sendAnswer(c, answer);
});

function serializeChanges(changes: Changes) {
  return JSON.parse(JSON.stringify(changes)) as Changes;
}

register(app, routes.createReply, async (c) => {
  const { ticket_id } = c.req.valid('param');
  const input = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { events } = c.get('services');
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
      const ticket = await findTicket(trx, tenantId, ticket_id, true);
      if (!ticket) throw notFound('Ticket');
      if (ticket.status === 'closed') throw new ApiError(409, Detail.ticketClosed);
      const body =
        input.body ??
        (await renderSavedReply(trx, tenantId, input.saved_reply_id!, { userId: userIdOf(c), ticket }));
      const written = await insertReply(trx, tenantId, ticket.id, {
        body,
        author_type: authorTypeOf(c.get('auth')),
        author_id: actorOf(c),
        is_public: input.is_public ?? true,
      });
      // a public reply by an agent or an integration is the first response (the requester's is not)
      if (written.reply.is_public && written.reply.author_type !== 'requester')
        written.ticket = await recordFirstResponse(trx, 'tickets', written.ticket, written.reply.created_at);
      const attachments = await attachOrRefuse(
        trx,
        tenantId,
        { type: 'ticket', id: ticket.id },
        input.attachment_ids,
        written.reply.id,
      );
      const view = replyView(written.reply, attachments);
      await emitEvent(trx, tenantId, 'ticket.replied', {
        ticket: ticketView(written.ticket),
        reply: {
          id: view.id,
          body: view.body,
          author_type: view.author_type,
          author_id: view.author_id,
          is_public: view.is_public,
          created_at: view.created_at,
          attachments,
        },
      });
      return view;
    },
    (view) => storedJson(201, view),
    { transaction: true },
  );
  events.kick();
  return sendAnswer(c, answer);
});

register(app, routes.listReplies, async (c) => {
  const { ticket_id } = c.req.valid('param');
  const page = c.req.valid('query');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  const ticket = await findTicket(db, tenantId, ticket_id);
  if (!ticket) throw notFound('Ticket');
  const { rows, total } = await listReplies(db, tenantId, ticket.id, page);
  const files = await attachmentsOf(
    db,
    tenantId,
    rows.map((r) => r.id),
  );
  const views = rows.map((r) => replyView(r, viewsOf(files.get(r.id))));
  return c.json(pageEnvelope('replies', views, total, page));
});

// a ticket's files (shared/files: the same four handlers serve a conversation's)
const TICKET_FILES = { type: 'ticket', param: 'ticket_id', noun: 'Ticket' } as const;
register(app, routes.attachments.upload, uploadHandler(TICKET_FILES));
register(app, routes.attachments.list, listHandler(TICKET_FILES));
register(app, routes.attachments.get, getHandler(TICKET_FILES));
register(app, routes.attachments.remove, deleteHandler(TICKET_FILES));

/**
 * The list's `custom_fields.<key>=<value>` parameters (outside the query schema: their keys are the
 * tenant's), checked against the tenant's ticket fields; none given reads no definitions.
 */
async function customFieldQuery(c: Context<AppEnv>, db: Executor) {
  const params = Object.entries(c.req.query()).filter(([k]) => k.startsWith('custom_fields.'));
  if (params.length === 0) return undefined;
  const tenantId = tenantOf(c);
  return customFieldFilters(await ticketFieldDefs(db, tenantId), tenantId, Object.fromEntries(params));
}
