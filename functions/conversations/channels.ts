import type { Services } from '../../shared/context/services';
import type { ConversationChannel } from '../../shared/db/tables/conversations';
import { type ConversationRow, type MessageRow, recordDelivery } from './data';

// Outbound delivery of a reply to the contact's channel, through the sender the runtime was given
// for it (Services.channelSenders; the port: shared/context/conversation-ports.ts).

export type { ChannelSender } from '../../shared/context/conversation-ports';

const senderOf = (services: Pick<Services, 'channelSenders'>, channel: ConversationChannel) =>
  services.channelSenders?.[channel];

/** Runs the channel send and records its outcome; never throws. */
export async function deliverMessage(
  services: Pick<Services, 'db' | 'channelSenders'>,
  conversation: ConversationRow,
  message: MessageRow,
): Promise<void> {
  const sender = senderOf(services, conversation.channel);
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
  await recordDelivery(services.db, conversation.tenant_id, message.id, outcome);
}

/** The delivery_status a new outbound message starts with on this channel. */
export const initialDeliveryStatus = (
  services: Pick<Services, 'channelSenders'>,
  channel: ConversationChannel,
) => (senderOf(services, channel) ? ('queued' as const) : ('skipped' as const));
