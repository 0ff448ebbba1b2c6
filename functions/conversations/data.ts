import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Executor } from '../../shared/db/schema';
import type {
  ConversationExportsTable,
  ConversationStatus,
  ConversationsTable,
  MessagesTable,
} from '../../shared/db/tables/conversations';
import type { ConversationRef, MessageRef } from '../../shared/events/catalog';
import { iso } from '../../shared/events/emit';
import { notFound } from '../../shared/http/errors';
import { looksLikeId, newId } from '../../shared/ids';

export type ConversationRow = Selectable<ConversationsTable>;
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
export const foreign = (db: Executor) => db as unknown as Kysely<ForeignTables>;

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

export const conversationView = (r: ConversationRow) => ({
  id: r.id,
  tenant_id: r.tenant_id,
  contact_id: r.contact_id,
  subject: r.subject,
  status: r.status,
  channel: r.channel,
  priority: r.priority,
  assignee_user_id: r.assignee_user_id,
  assignee_team_id: r.assignee_team_id,
  tags: r.tags,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export const messageView = (m: MessageRow) => ({
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
export const messageRef = (m: MessageRow): MessageRef => ({
  id: m.id,
  conversation_id: m.conversation_id,
  body: m.body,
  sender_type: m.sender_type,
  sender_id: m.sender_id,
  content_type: m.content_type,
  source: m.source,
  is_internal: m.is_internal,
  created_at: iso(m.created_at) as string,
});

// ---- lookups ----

/** The tenant's conversation, optionally locked for update; 404 `Conversation not found` otherwise. */
export async function findConversation(
  db: Executor,
  tenantId: string,
  id: string,
  lock = false,
): Promise<ConversationRow> {
  if (!looksLikeId('conversation', id)) throw notFound('Conversation');
  let q = db.selectFrom('conversations').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('Conversation');
  return row;
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
