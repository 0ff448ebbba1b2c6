import { type ConversationRow, conversationView, type MessageRow, messageView } from './data';

export type TranscriptFormat = 'json' | 'text';

export const TRANSCRIPT_MEDIA_TYPE: Record<TranscriptFormat, string> = {
  json: 'application/json; charset=utf-8',
  text: 'text/plain; charset=utf-8',
};

const senderLabel = (m: MessageRow) =>
  m.sender_type === 'ai' ? 'AI' : `${m.sender_type}${m.sender_id ? ` ${m.sender_id}` : ''}`;

/**
 * A conversation transcript: JSON (the conversation record plus every message record) or plain
 * text (a header, then one block per message). Internal notes appear only when asked for, and
 * then flagged (`is_internal: true` / `[internal note]`).
 */
export function renderTranscript(
  format: TranscriptFormat,
  conversation: ConversationRow,
  messages: MessageRow[],
  exportedAt: Date,
): string {
  if (format === 'json') {
    return JSON.stringify(
      {
        conversation: conversationView(conversation),
        exported_at: exportedAt.toISOString(),
        messages: messages.map(messageView),
      },
      null,
      2,
    );
  }
  const head = [
    `Conversation ${conversation.id}`,
    `Subject: ${conversation.subject ?? '(none)'}`,
    `Channel: ${conversation.channel}  Status: ${conversation.status}  Priority: ${conversation.priority}`,
    `Contact: ${conversation.contact_id ?? '(none)'}`,
    `Created: ${new Date(conversation.created_at).toISOString()}`,
    `Exported: ${exportedAt.toISOString()}`,
    '',
  ];
  const body = messages.map(
    (m) =>
      `[${new Date(m.created_at).toISOString()}] ${senderLabel(m)} via ${m.source}${m.is_internal ? ' [internal note]' : ''}\n${m.body}\n`,
  );
  return [...head, ...body].join('\n');
}
