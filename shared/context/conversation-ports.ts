import type { Selectable } from 'kysely';
import type { Executor } from '../db/schema';
import type { ConversationChannel, ConversationsTable, MessagesTable } from '../db/tables/conversations';

// The conversations function's two pluggable parts, carried by the per-request services
// (Services.channelSenders, Services.answerer) and given to the runtime that builds them, so a
// deployment or a test passes its own to the runtime it creates and nothing is left behind in a module.

type ConversationRow = Selectable<ConversationsTable>;
type MessageRow = Selectable<MessagesTable>;

/**
 * Outbound delivery of an agent reply or AI auto-reply to the contact's channel (email provider,
 * WhatsApp Business API, widget push). The message row and its `message.sent` event are committed
 * BEFORE `send` runs (after the response, through services.defer), so a failing send never loses
 * the event; the outcome is recorded on the message as delivery_status `sent` or `failed`.
 */
export interface ChannelSender {
  send(input: { tenantId: string; conversation: ConversationRow; message: MessageRow }): Promise<void>;
}

/** One sender per channel; a channel without one: delivery_status `skipped`. */
export type ChannelSenders = Partial<Record<ConversationChannel, ChannelSender>>;

/**
 * The AI auto-reply to widget and WhatsApp inbound messages (an LLM-backed one in production, a fake
 * in tests; absent: the knowledge-base answerer, functions/conversations/answerer.ts). `null` means
 * "no answer": nothing is posted and no event is emitted.
 */
export interface Answerer {
  answer(input: {
    db: Executor;
    tenantId: string;
    conversation: ConversationRow;
    message: MessageRow;
  }): Promise<{ body: string; content_type?: 'text' | 'markdown' } | null>;
}

/** What a runtime is given and puts on every request's services as it is. */
export interface ConversationPorts {
  channelSenders?: ChannelSenders;
  answerer?: Answerer;
}
