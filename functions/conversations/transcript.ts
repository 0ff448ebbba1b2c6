import { type CallRow, callView, type EscalationRow, escalationView } from '../../shared/calls/calls';
import type { AttachmentView } from '../../shared/files/view';
import { type ConversationRow, conversationView, type MessageRow, messageView } from './data';

export type TranscriptFormat = 'json' | 'text';

export const TRANSCRIPT_MEDIA_TYPE: Record<TranscriptFormat, string> = {
  json: 'application/json; charset=utf-8',
  text: 'text/plain; charset=utf-8',
};

/** The files of a message in a text transcript: names and sizes (the bytes stay in storage). */
const filesLine = (files: AttachmentView[]) =>
  files.length === 0
    ? ''
    : `Attachments: ${files.map((f) => `${f.filename} (${f.size} bytes)`).join(', ')}\n`;

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
  attachmentsOf: (m: MessageRow) => AttachmentView[] = () => [],
): string {
  if (format === 'json') {
    return JSON.stringify(
      {
        conversation: conversationView(conversation),
        exported_at: exportedAt.toISOString(),
        messages: messages.map((m) => messageView(m, attachmentsOf(m))),
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
      `[${new Date(m.created_at).toISOString()}] ${senderLabel(m)} via ${m.source}${m.is_internal ? ' [internal note]' : ''}\n${m.body}\n${filesLine(attachmentsOf(m))}`,
  );
  return [...head, ...body].join('\n');
}

const orNone = (v: string | number | null) => (v === null || v === '' ? '(none)' : String(v));

/**
 * A call's transcript: the voice agent keeps no message thread, so it is the call record as
 * `GET /api/v1/calls/{id}` returns it (its escalations included) in JSON, or in plain text a header,
 * the summary, then one line per escalation attempt.
 */
export function renderCallTranscript(
  format: TranscriptFormat,
  call: CallRow,
  escalations: EscalationRow[],
  exportedAt: Date,
): string {
  const view = callView(call);
  if (format === 'json') {
    return JSON.stringify(
      {
        call: { ...view, escalations: escalations.map(escalationView) },
        exported_at: exportedAt.toISOString(),
      },
      null,
      2,
    );
  }
  const lines = [
    `Call ${view.id}`,
    `Channel: ${view.channel}  Direction: ${view.direction}  Status: ${view.status}`,
    `Caller: ${orNone(view.caller_phone)}`,
    `Started: ${view.started_at}`,
    `Ended: ${orNone(view.ended_at)}  Duration: ${view.duration_seconds === null ? '(none)' : `${view.duration_seconds} s`}`,
    `Outcome: ${orNone(view.outcome)}  Ticket: ${orNone(view.ticket_id)}`,
    `Language: ${orNone(view.detected_language)}`,
    `Recording: ${orNone(view.recording_url)}`,
    `Exported: ${exportedAt.toISOString()}`,
    '',
    'Summary:',
    orNone(view.summary),
    '',
    `Escalations: ${escalations.length === 0 ? '(none)' : ''}`.trimEnd(),
    ...escalations.map((e) => {
      const to = e.destination ? ` to ${e.destination}` : '';
      const via = e.route ? ` via ${e.route}` : '';
      const why = e.failure ? ` (${e.failure})` : '';
      return `[${new Date(e.escalated_at).toISOString()}] ${e.result}: ${e.reason}${via}${to}${why}`;
    }),
  ];
  return `${lines.join('\n')}\n`;
}
