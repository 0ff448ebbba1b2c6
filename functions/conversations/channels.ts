import type { Executor } from '../../shared/db/schema';
import type { ConversationChannel } from '../../shared/db/tables/conversations';
import { type ConversationRow, type MessageRow, recordDelivery } from './data';

/**
 * Outbound delivery of an agent reply or AI auto-reply to the contact's channel (email provider,
 * WhatsApp Business API, widget push). Pluggable: a deployment registers one sender per channel.
 * The message row and its `message.sent` event are committed BEFORE `send` runs (after the
 * response, through services.defer), so a failing send never loses the event; the outcome is
 * recorded on the message as delivery_status `sent` or `failed` (with delivery_error).
 */
export interface ChannelSender {
  send(input: { tenantId: string; conversation: ConversationRow; message: MessageRow }): Promise<void>;
}

const senders = new Map<ConversationChannel, ChannelSender>();

/** Registers (or with `null` removes) the sender of a channel. No sender: delivery_status `skipped`. */
export function setChannelSender(channel: ConversationChannel, sender: ChannelSender | null): void {
  if (sender) senders.set(channel, sender);
  else senders.delete(channel);
}

export const channelSender = (channel: ConversationChannel): ChannelSender | undefined =>
  senders.get(channel);

/** Runs the channel send and records its outcome; never throws. */
export async function deliverMessage(
  db: Executor,
  conversation: ConversationRow,
  message: MessageRow,
): Promise<void> {
  const sender = channelSender(conversation.channel);
  if (!sender) return;
  let outcome: { delivery_status: 'sent' | 'failed'; delivery_error: string | null };
  try {
    await sender.send({ tenantId: conversation.tenant_id, conversation, message });
    outcome = { delivery_status: 'sent', delivery_error: null };
  } catch (err) {
    outcome = {
      delivery_status: 'failed',
      delivery_error: String((err as Error)?.message ?? err).slice(0, 500),
    };
  }
  await recordDelivery(db, conversation.tenant_id, message.id, outcome);
}

/** The delivery_status a new outbound message starts with on this channel. */
export const initialDeliveryStatus = (channel: ConversationChannel) =>
  channelSender(channel) ? ('queued' as const) : ('skipped' as const);
