// The ticket record and its creation, shared by the tickets function, call completion (outcome
// `ticket_created`) and the end-user API: one place writes a ticket and its ticket.created event.
import { type Insertable, type Selectable, sql } from 'kysely';
import type { StoredResponse } from '../context/idempotency-store';
import type { Executor } from '../db/schema';
import type { TicketsTable } from '../db/tables/tickets_calls';
import { iso, outboxRow } from '../events/emit';
import type { FieldDef } from '../helpdesk/fields';
import type { StatementLease } from '../http/answer-with-work';
import { assertReferences, type Reference } from '../http/references';
import { newId } from '../ids';
import { slaView } from '../sla/state';
import { chosenSla, NO_SLA, type PolicyWithHours, policyWithHours, slaAmong } from '../sla/store';
import type { CreateTicketInput, TICKET_SOURCES, TicketView } from './schemas';

export type TicketRow = Selectable<TicketsTable>;

/**
 * The public ticket record (reads, write responses and `data.ticket` of every ticket.* event), as
 * the `Ticket` schema documents it. The columns' CHECK constraints keep the value sets.
 */
export function ticketView(t: TicketRow): TicketView {
  return {
    id: t.id,
    subject: t.subject,
    description: t.description,
    status: t.status as TicketView['status'],
    priority: t.priority as TicketView['priority'],
    type: t.type as TicketView['type'],
    source: t.source as TicketView['source'],
    requester_id: t.requester_id,
    requester_name: t.requester_name,
    requester_email: t.requester_email,
    assignee_id: t.assignee_id,
    assignee_team_id: t.assignee_team_id,
    tags: t.tags,
    call_id: t.call_id,
    reply_count: t.reply_count,
    custom_fields: t.custom_fields as TicketView['custom_fields'],
    created_by: t.created_by,
    created_at: iso(t.created_at),
    updated_at: iso(t.updated_at),
    resolved_at: iso(t.resolved_at),
    closed_at: iso(t.closed_at),
    sla: slaView(t),
  };
}

/** Trimmed, de-duplicated, caller's order. */
export const normalizeTags = (tags: readonly string[]) => [...new Set(tags.map((t) => t.trim()))];

/** The ids a ticket carries: each must be a row of the ticket's tenant (422 at the field otherwise). */
export const ticketReferences = (t: {
  call_id?: string | null;
  requester_id?: string | null;
  assignee_id?: string | null;
  assignee_team_id?: string | null;
}): Reference[] => [
  { field: 'call_id', kind: 'call', id: t.call_id },
  { field: 'requester_id', kind: 'endUser', id: t.requester_id },
  { field: 'assignee_id', kind: 'tenantUser', id: t.assignee_id },
  { field: 'assignee_team_id', kind: 'team', id: t.assignee_team_id },
];

/** The answer to a ticket's creation (POST /api/v1/tickets): the route sends these very bytes. */
export function ticketCreatedAnswer(row: TicketRow): StoredResponse {
  return {
    status: 201,
    headers: { 'content-type': 'application/json', location: `/api/v1/tickets/${row.id}` },
    body: JSON.stringify(ticketView(row)),
  };
}

export interface TicketActor {
  /** `user:<sub>`, `api_key:<id>`, `end_user:<id>` or `internal` (actorOf) */
  createdBy: string;
  /** default source when the input names none */
  source: (typeof TICKET_SOURCES)[number];
}

/**
 * What a ticket's creation reads of its tenant before it writes, in one statement: the ticket
 * field definitions (ticketFieldDefs, by key) and the SLA policies with their hours
 * (tenantPolicies, by position then id). Each subquery orders its own aggregate.
 */
export async function ticketCreationReads(
  db: Executor,
  tenantId: string,
): Promise<{ fields: FieldDef[]; policies: PolicyWithHours[] }> {
  const { rows } = await sql<{ fields: FieldDef[]; policies: Parameters<typeof policyWithHours>[0][] }>`
    select
      (select coalesce(json_agg(json_build_object(
          'key', f.key, 'type', f.type, 'options', f.options, 'required', f.required
        ) order by f.key), '[]'::json)
        from ticket_fields f where f.tenant_id = ${tenantId}) as fields,
      (select coalesce(json_agg(json_build_object(
          'id', p.id, 'position', p.position, 'business_hours_id', p.business_hours_id,
          'conditions', p.conditions, 'first_response_minutes', p.first_response_minutes,
          'resolution_minutes', p.resolution_minutes,
          'timezone', h.timezone, 'intervals', h.intervals, 'holidays', h.holidays
        ) order by p.position, p.id), '[]'::json)
        from sla_policies p
        left join business_hours h on h.id = p.business_hours_id and h.tenant_id = ${tenantId}
        where p.tenant_id = ${tenantId}) as policies`.execute(db);
  const row = rows[0]!;
  return { fields: row.fields, policies: row.policies.map(policyWithHours) };
}

/**
 * Creates a ticket and records `ticket.created` in the same statement (a data-modifying CTE: both
 * rows commit together, or neither, with one round trip and no transaction to open). Reused by the
 * end-user API (requester_id = the end user's id) and by call completion (outcome `ticket_created`),
 * inside their own transactions. The caller kicks the event dispatcher after commit.
 * Under an Idempotency-Key (`lease`, from answerWithWork) the same statement commits the answer
 * under the key's lease, so a retry after a crash replays it (a statement whose client died still
 * commits both), and a request that lost its lease creates nothing (409).
 * `policies`: the tenant's SLA policies when the caller read them already (ticketCreationReads).
 */
export async function createTicket(
  db: Executor,
  tenantId: string,
  input: CreateTicketInput,
  actor: TicketActor,
  lease?: StatementLease,
  policies?: readonly PolicyWithHours[],
): Promise<TicketRow> {
  await assertReferences(db, tenantId, ticketReferences(input));
  const now = new Date();
  const source = input.source ?? actor.source;
  const tags = normalizeTags(input.tags ?? []);
  // the policy its priority, channel (source) and tags match, chosen as it is created
  const subject = { priority: input.priority ?? 'medium', channel: source, tags };
  const sla = policies
    ? slaAmong(policies, subject, NO_SLA, now, false)
    : await chosenSla(db, tenantId, subject, NO_SLA, now, false);
  const values = {
    id: newId('ticket'),
    tenant_id: tenantId,
    subject: input.subject,
    description: input.description ?? '',
    status: input.status ?? 'open',
    priority: input.priority ?? 'medium',
    type: input.type ?? 'question',
    source,
    requester_id: input.requester_id ?? null,
    requester_name: input.requester_name ?? null,
    requester_email: input.requester_email ?? null,
    assignee_id: input.assignee_id ?? null,
    assignee_team_id: input.assignee_team_id ?? null,
    tags,
    call_id: input.call_id ?? null,
    // checked against the tenant's ticket fields by the caller (shared/helpdesk/fields.ts)
    custom_fields: JSON.stringify(input.custom_fields ?? {}),
    created_by: actor.createdBy,
    created_at: now,
    updated_at: now,
    ...sla,
  } satisfies Insertable<TicketsTable>;
  // the event carries the row as it will be stored: every column above plus the table's defaults
  const stored: TicketRow = {
    ...values,
    custom_fields: input.custom_fields ?? {},
    reply_count: 0,
    resolved_at: null,
    closed_at: null,
  };
  const event = outboxRow(tenantId, 'ticket.created', { ticket: ticketView(stored) });
  if (!lease)
    return db
      .with('event', (w) => w.insertInto('events').values(event))
      .insertInto('tickets')
      .values(values)
      .returningAll()
      .executeTakeFirstOrThrow();
  return db
    .with('idempotency', await lease.cte(ticketCreatedAnswer(stored)))
    .with('event', (w) => w.insertInto('events').values(event))
    .insertInto('tickets')
    .values({ ...values, id: lease.guard('id', values.id) })
    .returningAll()
    .executeTakeFirstOrThrow();
}
