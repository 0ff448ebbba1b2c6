import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { type CallRow, findCall } from '../../shared/calls/calls';
import { type ConversationRow, conversationView } from '../../shared/conversations/records';
import { type KeptCounts, keptTotal } from '../../shared/db/kept-counts';
import { cursorPage, pageWithTotal } from '../../shared/db/paging';
import type { Executor } from '../../shared/db/schema';
import type {
  ConversationChannel,
  ConversationExportsTable,
  ConversationStatus,
  ConversationsTable,
  DeliveryStatus,
  MessagesTable,
} from '../../shared/db/tables/conversations';
import { iso } from '../../shared/events/emit';
import type { ConversationRef, MessageRef } from '../../shared/events/payloads';
import type { AttachmentView } from '../../shared/files/view';
import { notFound } from '../../shared/http/errors';
import type { Page } from '../../shared/http/pagination';
import { looksLikeId, newId } from '../../shared/ids';
import { chosenSla, NO_SLA } from '../../shared/sla/store';

export type MessageRow = Selectable<MessagesTable>;
export type ExportRow = Selectable<ConversationExportsTable>;

/**
 * The tables of the contacts area this function reads and writes (contacts and companies
 * conversation counts, find-or-create of inbound contacts, published KB articles for the answerer).
 * Declared here, narrowly, so this area does not depend on the contacts area's type file.
 */
export interface ForeignTables {
  contacts: {
    id: string;
    tenant_id: string;
    email: string | null;
    phone: string | null;
    first_name: string | null;
    last_name: string | null;
    company_id: string | null;
    conversation_count: number;
    custom_attrs: unknown;
    deleted_at: Date | null;
    last_seen_at: Date | null;
    created_at: Date;
    updated_at: Date;
  };
  companies: { id: string; tenant_id: string; conversation_count: number; updated_at: Date };
  kb_articles: {
    id: string;
    tenant_id: string;
    title: string;
    body: string;
    status: string;
    url: string | null;
    updated_at: Date;
  };
}
const foreign = (db: Executor) => db as unknown as Kysely<ForeignTables>;

// ---- status rules (spec: States > Conversation status) ----

/** Which side of the open/closed boundary a status is on. `closed` counts as resolved. */
export const STATUS_SIDE: Record<ConversationStatus, 'open' | 'closed'> = {
  open: 'open',
  waiting: 'open',
  resolved: 'closed',
  closed: 'closed',
};

/**
 * The event a status change emits, keyed by `<from side>-><to side>`. Only crossing the boundary
 * emits; staying on a side (open <-> waiting, resolved <-> closed, same status) emits nothing.
 * Reaching `waiting` from resolved/closed crosses the boundary too, so it is a reopen.
 */
export const STATUS_TRANSITION_EVENTS = {
  'open->closed': 'conversation.resolved',
  'closed->open': 'conversation.reopened',
} as const satisfies Partial<Record<string, 'conversation.resolved' | 'conversation.reopened'>>;

export function transitionEvent(
  from: ConversationStatus,
  to: ConversationStatus,
): 'conversation.resolved' | 'conversation.reopened' | null {
  const key = `${STATUS_SIDE[from]}->${STATUS_SIDE[to]}`;
  return (
    (STATUS_TRANSITION_EVENTS as Record<string, 'conversation.resolved' | 'conversation.reopened'>)[key] ??
    null
  );
}

/** Default routing_reason: a first assignment is manual_assignment, a change of assignee manual_reassignment. */
export const defaultRoutingReason = (
  current: Pick<ConversationRow, 'assignee_user_id' | 'assignee_team_id'>,
) => (current.assignee_user_id || current.assignee_team_id ? 'manual_reassignment' : 'manual_assignment');

// ---- views ----

// the conversation's own view is shared with the search hits: shared/conversations/records.ts
export { type ConversationRow, conversationView };

export const messageView = (m: MessageRow, attachments: AttachmentView[] = []) => ({
  id: m.id,
  conversation_id: m.conversation_id,
  sender_type: m.sender_type,
  sender_id: m.sender_id,
  body: m.body,
  content_type: m.content_type,
  is_internal: m.is_internal,
  source: m.source,
  delivery_status: m.delivery_status,
  created_at: iso(m.created_at),
  attachments,
});

/**
 * An export record. `downloadPath` is where its transcript downloads on the surface it was asked
 * on (v1 or v2, the download route's path filled in); download_url puts it under the public base URL.
 */
export const exportView = (row: ExportRow, downloadPath: string, publicBaseUrl: string | undefined) => ({
  id: row.id,
  conversation_id: row.conversation_id,
  call_id: row.call_id,
  format: row.format,
  status: row.status,
  include_internal: row.include_internal,
  message_count: row.message_count,
  download_url: `${(publicBaseUrl ?? '').replace(/\/+$/, '')}${downloadPath}`,
  created_at: iso(row.created_at),
});

/** `data.conversation` of every conversation and message event. */
export const conversationRef = (r: ConversationRow): ConversationRef & { status: string } => ({
  id: r.id,
  tenant_id: r.tenant_id,
  status: r.status,
  channel: r.channel,
  contact_id: r.contact_id,
  subject: r.subject,
  priority: r.priority,
  assignee_user_id: r.assignee_user_id,
  assignee_team_id: r.assignee_team_id,
});

/** `data.message` of message.sent / message.received. */
export const messageRef = (m: MessageRow, attachments: AttachmentView[] = []): MessageRef => ({
  id: m.id,
  conversation_id: m.conversation_id,
  body: m.body,
  sender_type: m.sender_type,
  sender_id: m.sender_id,
  content_type: m.content_type,
  source: m.source,
  is_internal: m.is_internal,
  created_at: iso(m.created_at),
  attachments,
});

// ---- lookups ----

/** The tenant's conversation, optionally locked for update; 404 `Conversation not found` otherwise. */
export async function findConversation(
  db: Executor,
  tenantId: string,
  id: string,
  lock = false,
): Promise<ConversationRow> {
  const row = await conversationOf(db, tenantId, id, lock);
  if (!row) throw notFound('Conversation');
  return row;
}

/** The tenant's conversation, or undefined for an unknown (or malformed) id. */
async function conversationOf(db: Executor, tenantId: string, id: string, lock = false) {
  if (!looksLikeId('conversation', id)) return undefined;
  let q = db.selectFrom('conversations').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Adds one to the contact's conversation_count and, when it belongs to a company, to the company's. */
export async function countConversationForContact(db: Executor, tenantId: string, contactId: string) {
  const f = foreign(db);
  const contact = await f
    .updateTable('contacts')
    .set((eb) => ({ conversation_count: eb('conversation_count', '+', 1) }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', contactId)
    .returning(['company_id'])
    .executeTakeFirst();
  if (contact?.company_id) {
    await f
      .updateTable('companies')
      .set((eb) => ({ conversation_count: eb('conversation_count', '+', 1) }))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', contact.company_id)
      .execute();
  }
}

/** What a caller says about a new message; ids, tenant, conversation and time come from appendMessage. */
export type NewMessage = Omit<
  Insertable<MessagesTable>,
  'id' | 'tenant_id' | 'conversation_id' | 'created_at'
>;

/**
 * Appends a message to a conversation at `at` and moves the conversation's updated_at to it (skip
 * that with `touch: false` when the conversation was created at `at` in the same transaction).
 */
export async function appendMessage(
  trx: Executor,
  conversation: ConversationRow,
  fields: NewMessage,
  at: Date,
  options: { touch?: boolean } = {},
): Promise<{ message: MessageRow; conversation: ConversationRow }> {
  const message = await trx
    .insertInto('messages')
    .values({
      id: newId('message'),
      tenant_id: conversation.tenant_id,
      conversation_id: conversation.id,
      ...fields,
      created_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (options.touch === false) return { message, conversation };
  const touched = await trx
    .updateTable('conversations')
    .set({ updated_at: at })
    .where('id', '=', conversation.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { message, conversation: touched };
}

// ---- conversations ----

/** A new conversation at `at` (created_at = updated_at); status, priority and tags default in the table. */
export async function insertConversation(
  db: Executor,
  fields: Omit<Insertable<ConversationsTable>, 'id' | 'created_at' | 'updated_at'>,
  at: Date,
): Promise<ConversationRow> {
  // the SLA policy its priority, channel and tags match, chosen as it is created (every channel)
  const subject = { priority: fields.priority ?? 'medium', channel: fields.channel, tags: fields.tags ?? [] };
  const sla = await chosenSla(db, fields.tenant_id, subject, NO_SLA, at, false);
  return db
    .insertInto('conversations')
    .values({ id: newId('conversation'), ...fields, ...sla, created_at: at, updated_at: at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Writes `patch` (already decided by the caller) to one conversation of the tenant. */
export async function updateConversationRow(
  db: Executor,
  tenantId: string,
  id: string,
  patch: Updateable<ConversationsTable>,
): Promise<ConversationRow> {
  return db
    .updateTable('conversations')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface ConversationFilters {
  status?: ConversationStatus;
  channel?: ConversationChannel;
  contact_id?: string;
  assignee_user_id?: string;
  assignee_team_id?: string;
  /** inclusive: updated_at >= updated_since */
  updated_since?: string;
  sla_breached?: boolean | undefined;
  sla_due_before?: Date | undefined;
  /** a column, `-` first for descending; id breaks ties in the same direction */
  sort: '-created_at' | 'created_at' | 'updated_at' | '-updated_at' | 'sla_due_at';
}

/** The filters whose `total` a kept count answers (alone on a request). */
const KEPT: KeptCounts = {
  list: 'conversations',
  counted: ['status', 'channel', 'contact_id', 'assignee_user_id', 'assignee_team_id', 'sla_breached'],
  // schema/0035_pair_counts.sql
  pairs: ['channel+status', 'assignee_user_id+status', 'assignee_team_id+status', 'contact_id+status'],
};

/** A page of the tenant's conversations matching the filters, and their total. */
export async function conversationPage(db: Executor, tenantId: string, q: ConversationFilters & Page) {
  let filtered = db.selectFrom('conversations').where('tenant_id', '=', tenantId);
  if (q.status) filtered = filtered.where('status', '=', q.status);
  if (q.channel) filtered = filtered.where('channel', '=', q.channel);
  if (q.contact_id) filtered = filtered.where('contact_id', '=', q.contact_id);
  if (q.assignee_user_id) filtered = filtered.where('assignee_user_id', '=', q.assignee_user_id);
  if (q.assignee_team_id) filtered = filtered.where('assignee_team_id', '=', q.assignee_team_id);
  if (q.updated_since) filtered = filtered.where('updated_at', '>=', new Date(q.updated_since));
  if (q.sla_breached !== undefined) filtered = filtered.where('sla_breached', '=', q.sla_breached);
  if (q.sla_due_before) filtered = filtered.where('sla_due_at', '<', q.sla_due_before);
  // the queue order lists only conversations with a due time: counted exactly, no kept count
  const queue = q.sort === 'sla_due_at';
  if (queue) filtered = filtered.where('sla_due_at', 'is not', null);
  const desc = q.sort.startsWith('-');
  const field = q.sort.replace(/^-/, '') as keyof ConversationsTable & ('created_at' | 'updated_at');
  const dir = desc ? 'desc' : 'asc';
  const total = queue ? undefined : keptTotal(db, tenantId, KEPT, q);
  return cursorPage(filtered, q, { column: field, dir }, (page) => page.selectAll(), total);
}

/** The contact's live (open or waiting) conversation on a channel, most recently updated, locked. */
export async function findLiveConversation(
  trx: Executor,
  tenantId: string,
  contactId: string,
  channel: ConversationChannel,
): Promise<ConversationRow | undefined> {
  return trx
    .selectFrom('conversations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('contact_id', '=', contactId)
    .where('channel', '=', channel)
    .where('status', 'in', ['open', 'waiting'])
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .forUpdate()
    .executeTakeFirst();
}

// ---- messages ----

/** A page of a conversation's messages, oldest first, and their total. */
export async function messagePage(db: Executor, tenantId: string, conversationId: string, page: Page) {
  const scoped = db
    .selectFrom('messages')
    .where('tenant_id', '=', tenantId)
    .where('conversation_id', '=', conversationId);
  return pageWithTotal(scoped, page, (q) => q.selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc'));
}

/** The first `limit` messages of a conversation, oldest first; internal notes only when asked for. */
export async function transcriptMessages(
  db: Executor,
  tenantId: string,
  conversationId: string,
  options: { includeInternal: boolean; limit: number },
): Promise<MessageRow[]> {
  let q = db
    .selectFrom('messages')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('conversation_id', '=', conversationId);
  if (!options.includeInternal) q = q.where('is_internal', '=', false);
  return q.orderBy('created_at', 'asc').orderBy('id', 'asc').limit(options.limit).execute();
}

/** The outcome of a channel send, on the message. */
export async function recordDelivery(
  db: Executor,
  tenantId: string,
  messageId: string,
  outcome: { delivery_status: DeliveryStatus; delivery_error: string | null },
) {
  await db
    .updateTable('messages')
    .set(outcome)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', messageId)
    .execute();
}

// ---- exports ----

export async function insertExport(
  db: Executor,
  fields: Omit<Insertable<ConversationExportsTable>, 'id'>,
): Promise<ExportRow> {
  return db
    .insertInto('conversation_exports')
    .values({ id: newId('export'), ...fields })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * What an export is of (the spec's export "exports a call or conversation"): the tenant's
 * conversation with this id, else its call. The voice agent may name a call itself, so the id's
 * prefix does not tell them apart. Neither: 404 `Conversation not found`, the path's own noun.
 */
export type ExportSubject =
  | { kind: 'conversation'; conversation: ConversationRow }
  | { kind: 'call'; call: CallRow };

export async function findExportSubject(db: Executor, tenantId: string, id: string): Promise<ExportSubject> {
  const conversation = await conversationOf(db, tenantId, id);
  if (conversation) return { kind: 'conversation', conversation };
  const call = await findCall(db, tenantId, id);
  if (call) return { kind: 'call', call };
  throw notFound('Conversation');
}

/** A call's escalation attempts, for its transcript. */
export { listEscalations } from '../../shared/calls/calls';

/** The id an export is found under: its conversation's or its call's. */
export const subjectIdOf = (row: ExportRow): string => (row.conversation_id ?? row.call_id) as string;

/** The export of the tenant's conversation or call; undefined for an unknown (or malformed) id. */
export async function findExport(
  db: Executor,
  tenantId: string,
  subject: ExportSubject,
  exportId: string,
): Promise<ExportRow | undefined> {
  if (!looksLikeId('export', exportId)) return undefined;
  const q = db
    .selectFrom('conversation_exports')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', exportId);
  return (
    subject.kind === 'conversation'
      ? q.where('conversation_id', '=', subject.conversation.id)
      : q.where('call_id', '=', subject.call.id)
  ).executeTakeFirst();
}

// ---- inbound: tenants, contacts, the sender lock ----

/**
 * Holds, until the transaction ends, the lock of one inbound sender identity: concurrent first
 * messages of one new visitor then make one contact and one conversation.
 */
export async function lockInboundSender(trx: Executor, key: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}

/** How an inbound identity names its contact (already normalised by the caller). */
export type ContactKey = { email: string } | { phone: string } | { visitorId: string };

/**
 * The tenant's live (not soft-deleted) contact for a key: by email case-insensitively, by phone or
 * by the widget's visitor_id (custom_attrs.widget_visitor_id), the oldest first.
 */
export async function findLiveContact(
  db: Executor,
  tenantId: string,
  key: ContactKey,
): Promise<{ id: string } | undefined> {
  const live = foreign(db)
    .selectFrom('contacts')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('deleted_at', 'is', null);
  if ('email' in key) return live.where(sql<string>`lower(email)`, '=', key.email).executeTakeFirst();
  if ('phone' in key)
    return live.where('phone', '=', key.phone).orderBy('created_at').orderBy('id').executeTakeFirst();
  return live
    .where(sql<string>`custom_attrs->>'widget_visitor_id'`, '=', key.visitorId)
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
}

export async function touchContact(db: Executor, id: string, at: Date): Promise<void> {
  await foreign(db).updateTable('contacts').set({ last_seen_at: at }).where('id', '=', id).execute();
}

/** A new contact; undefined when a concurrent insert won the live-row unique index. */
export async function insertContact(
  db: Executor,
  contact: {
    tenant_id: string;
    email: string | null;
    phone: string | null;
    first_name: string | null;
    last_name: string | null;
    custom_attrs: string;
    last_seen_at: Date;
  },
): Promise<{ id: string } | undefined> {
  return foreign(db)
    .insertInto('contacts')
    .values({ id: newId('contact'), ...contact } as never)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
}

// ---- the answerer's knowledge base ----

/** The tenant's published KB articles, most recently updated first (ties: smallest id). */
export async function publishedArticles(db: Executor, tenantId: string, limit: number) {
  return foreign(db)
    .selectFrom('kb_articles')
    .select(['id', 'title', 'body', 'url', 'updated_at'])
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'published')
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
}
