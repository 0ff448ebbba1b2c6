import type { Services } from '../../shared/context/services';
import type { Db, Executor } from '../../shared/db/schema';
import type { MessageContentType } from '../../shared/db/tables/conversations';
import { tenantExists } from '../../shared/db/tenants';
import { emitEvent } from '../../shared/events/emit';
import { recordInboundFiles, type StagedFile } from '../../shared/files/inbound';
import type { AttachmentView } from '../../shared/files/view';
import { notFound } from '../../shared/http/errors';
import { errorField } from '../../shared/log/logger';
import { answererOf } from './answerer';
import { deliverMessage, initialDeliveryStatus } from './channels';
import {
  appendMessage,
  type ContactKey,
  type ConversationRow,
  conversationRef,
  countConversationForContact,
  findConversation,
  findLiveContact,
  findLiveConversation,
  insertContact,
  insertConversation,
  lockInboundSender,
  type MessageRow,
  messageRef,
  STATUS_SIDE,
  touchContact,
  transitionEvent,
  updateConversationRow,
} from './data';

export type InboundChannel = 'widget' | 'email' | 'whatsapp';

export interface InboundInput {
  tenantId: string;
  channel: InboundChannel;
  identity: { email?: string; phone?: string; visitorId?: string; name?: string };
  body: string;
  contentType?: MessageContentType;
  subject?: string | null;
  /** a thread reference: must be a conversation of the same tenant and contact */
  conversationId?: string;
  /** files the channel sent with the message, already in storage (shared/files/inbound.ts) */
  files?: readonly StagedFile[];
}

export interface InboundResult {
  conversation: ConversationRow;
  message: MessageRow;
  created: boolean;
  /** the message's files (metadata only) */
  attachments: AttachmentView[];
}

/** Public and internal endpoints name their tenant in the body: it must exist. */
export async function requireTenant(db: Db, tenantId: string): Promise<void> {
  if (!(await tenantExists(db, tenantId))) throw notFound('Tenant');
}

/** Digits with an optional leading +, so "+1 (555) 010-2030" and "+15550102030" are one contact. */
export const normalizePhone = (phone: string) => {
  const digits = phone.replace(/[^0-9]/g, '');
  return phone.trim().startsWith('+') ? `+${digits}` : digits;
};

function splitName(name: string | undefined) {
  if (!name) return { first_name: null, last_name: null };
  const [first, ...rest] = name.trim().split(/\s+/);
  return { first_name: first ?? null, last_name: rest.length ? rest.join(' ') : null };
}

/**
 * The live contact for this identity, created when there is none: by email (case-insensitive, the
 * live-row unique index makes concurrent creation safe), else by phone (WhatsApp), else by the
 * widget's visitor_id (kept in custom_attrs.widget_visitor_id). Soft-deleted contacts are ignored.
 * Creating a contact here emits no contact.created (that event belongs to the contacts API and sync).
 */
export async function findOrCreateContact(
  db: Executor,
  tenantId: string,
  identity: InboundInput['identity'],
): Promise<{ id: string }> {
  const email = identity.email?.trim().toLowerCase();
  const phone = identity.phone ? normalizePhone(identity.phone) : undefined;
  const key: ContactKey = email ? { email } : phone ? { phone } : { visitorId: identity.visitorId ?? '' };
  const found = await findLiveContact(db, tenantId, key);
  if (found) {
    await touchContact(db, found.id, new Date());
    return found;
  }
  const inserted = await insertContact(db, {
    tenant_id: tenantId,
    email: email ?? null,
    phone: phone ?? null,
    ...splitName(identity.name),
    custom_attrs: JSON.stringify(identity.visitorId ? { widget_visitor_id: identity.visitorId } : {}),
    last_seen_at: new Date(),
  });
  if (inserted) return inserted;
  const raced = await findLiveContact(db, tenantId, key);
  if (!raced) throw new Error('contact vanished after a conflicting insert');
  return raced;
}

/**
 * Persists an inbound message: finds or creates the contact and its live conversation on the
 * channel (creating one emits conversation.created; a thread reference to a resolved/closed
 * conversation reopens it, emitting conversation.reopened), stores the message (sender_type
 * contact) with the records of its files and emits message.received. One transaction: all of it
 * or none (the caller removes the files' bytes when it fails).
 */
export async function ingestInbound(db: Db, input: InboundInput): Promise<InboundResult> {
  await requireTenant(db, input.tenantId);
  const { tenantId } = input;
  return db.transaction().execute(async (trx) => {
    // One inbound pipeline at a time per sender identity: concurrent first messages of a new
    // visitor make one contact and one conversation (transaction-scoped advisory lock).
    const who =
      input.identity.email?.trim().toLowerCase() ??
      input.identity.phone ??
      `visitor:${input.identity.visitorId}`;
    const lockKey = `inbound:${tenantId}:${input.identity.phone ? normalizePhone(input.identity.phone) : who}`;
    await lockInboundSender(trx, lockKey);
    const contact = await findOrCreateContact(trx, tenantId, input.identity);
    const now = new Date();
    let conversation: ConversationRow | undefined;
    let created = false;
    if (input.conversationId) {
      conversation = await findConversation(trx, tenantId, input.conversationId, true);
      if (conversation.contact_id !== contact.id) throw notFound('Conversation');
      if (STATUS_SIDE[conversation.status] === 'closed') {
        const previous = conversation.status;
        conversation = await updateConversationRow(trx, tenantId, conversation.id, {
          status: 'open',
          updated_at: now,
        });
        const event = transitionEvent(previous, 'open');
        if (event)
          await emitEvent(trx, tenantId, event, {
            conversation: conversationRef(conversation),
            previous_status: previous,
          });
      }
    } else {
      conversation = await findLiveConversation(trx, tenantId, contact.id, input.channel);
    }
    if (!conversation) {
      conversation = await insertConversation(
        trx,
        {
          tenant_id: tenantId,
          contact_id: contact.id,
          subject: input.subject ?? null,
          channel: input.channel,
          assignee_user_id: null,
          assignee_team_id: null,
        },
        now,
      );
      created = true;
      await countConversationForContact(trx, tenantId, contact.id);
      await emitEvent(trx, tenantId, 'conversation.created', { conversation: conversationRef(conversation) });
    }
    const appended = await appendMessage(
      trx,
      conversation,
      {
        sender_type: 'contact',
        sender_id: contact.id,
        body: input.body,
        content_type: input.contentType ?? 'text',
        is_internal: false,
        source: input.channel,
        delivery_status: null,
        delivery_error: null,
      },
      now,
      { touch: !created }, // a conversation created here already carries `now`
    );
    const message = appended.message;
    conversation = appended.conversation;
    const attachments = await recordInboundFiles(
      trx,
      tenantId,
      conversation.id,
      message.id,
      input.files ?? [],
    );
    await emitEvent(trx, tenantId, 'message.received', {
      message: { ...messageRef(message, attachments), sender_type: 'contact' },
      conversation: conversationRef(conversation),
    });
    return { conversation, message, created, attachments };
  });
}

/** Channels whose inbound messages get an AI auto-reply. */
export const AUTO_REPLY_CHANNELS: ReadonlySet<InboundChannel> = new Set(['widget', 'whatsapp']);

/**
 * AI auto-reply after the inbound message has committed: asks the answerer; an answer becomes a
 * message (sender_type ai) with message.sent, then the channel send runs after the response.
 * Skipped when a human agent is assigned. An answerer failure is logged and leaves no trace.
 */
export async function autoReply(services: Services, inbound: InboundResult): Promise<MessageRow | null> {
  const { conversation, message } = inbound;
  const channel = message.source as InboundChannel;
  if (!AUTO_REPLY_CHANNELS.has(channel) || conversation.assignee_user_id) return null;
  const { db } = services;
  let answer: Awaited<ReturnType<ReturnType<typeof answererOf>['answer']>>;
  try {
    answer = await answererOf(services).answer({
      db,
      tenantId: conversation.tenant_id,
      conversation,
      message,
    });
  } catch (err) {
    services.logger.warn({ error: errorField(err) }, 'answerer failed');
    return null;
  }
  if (!answer || answer.body.trim() === '') return null;
  const reply = await db.transaction().execute(async (trx) => {
    // strictly after the message it answers, so "oldest first" never lists the reply first
    const now = new Date(Math.max(Date.now(), new Date(message.created_at).getTime() + 1));
    const { message: row, conversation: conv } = await appendMessage(
      trx,
      conversation,
      {
        sender_type: 'ai',
        sender_id: null,
        body: answer.body.slice(0, 20_000),
        content_type: answer.content_type ?? 'text',
        is_internal: false,
        source: channel,
        delivery_status: initialDeliveryStatus(services, conversation.channel),
        delivery_error: null,
      },
      now,
    );
    await emitEvent(trx, conversation.tenant_id, 'message.sent', {
      message: messageRef(row),
      conversation: conversationRef(conv),
    });
    return { row, conv };
  });
  services.events.kick();
  if (reply.row.delivery_status === 'queued')
    services.defer(() => deliverMessage(services, reply.conv, reply.row));
  return reply.row;
}
