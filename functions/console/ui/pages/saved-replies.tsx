/** @jsxImportSource hono/jsx/dom */
// Saved replies: texts agents send in one go, tenant-wide or personal, with placeholders that the
// server fills in when one is sent. The dialog previews them with example values, rendered by the
// same function the server uses.
import type { Child } from 'hono/jsx';
import { useState } from 'hono/jsx/dom';
import {
  PLACEHOLDERS,
  type PlaceholderValues,
  renderPlaceholders,
} from '../../../../shared/helpdesk/placeholders';
import { api, type components, must } from '../api';
import { Badge, FormDialog, ListPage, RecordsTable, Time, useSubmit } from '../components';
import { currentIdentity } from '../session';

type SavedReply = components['schemas']['SavedReply'];
type Visibility = SavedReply['visibility'];

/** What the preview fills the placeholders with (a missing value renders as empty text, as sent). */
const EXAMPLE: PlaceholderValues = {
  'contact.first_name': 'Ada',
  'contact.last_name': 'Lovelace',
  'contact.name': 'Ada Lovelace',
  'contact.email': 'ada@example.com',
  'agent.name': 'Sam from Support',
  'conversation.id': 'cnv_example',
  'ticket.id': 'tkt_example',
  'ticket.subject': 'Printer on fire',
};

export function SavedRepliesPage() {
  return (
    <ListPage<SavedReply>
      title="Saved replies"
      intro="Answers sent in one go on a conversation or a ticket; tenant-wide ones are everyone's, personal ones their author's only."
      what="saved replies"
      load={async (page) => {
        const answer = await must(api.GET('/api/v2/saved-replies', { params: { query: page } }));
        return { items: answer.saved_replies, total: answer.total };
      }}
      empty="No saved replies yet."
      table={(list, menu) => <RepliesTable list={list} menu={menu} />}
      editing={{
        action: 'helpdesk.manage',
        newLabel: 'New saved reply',
        noun: 'Saved reply',
        name: (r) => r.title,
        dialog: (reply, on) => <ReplyDialog reply={reply} {...on} />,
        remove: {
          title: 'Delete saved reply',
          message: (r) => `${r.title} is deleted; messages and replies already sent with it keep their text.`,
          run: async (r) => {
            const path = { saved_reply_id: r.id };
            await must(api.DELETE('/api/v2/saved-replies/{saved_reply_id}', { params: { path } }));
          },
        },
      }}
    />
  );
}

function VisibilityBadge(props: { reply: SavedReply }) {
  const mine = props.reply.created_by === currentIdentity()?.userId;
  return props.reply.visibility === 'tenant' ? (
    <Badge tone="ok">tenant-wide</Badge>
  ) : (
    <Badge tone="neutral">{mine ? 'personal (yours)' : 'personal'}</Badge>
  );
}

function RepliesTable(props: { list: SavedReply[]; menu?: (r: SavedReply) => Child }) {
  return (
    <RecordsTable
      name="saved-replies"
      columns={['Title', 'Text', 'Visibility', 'Changed']}
      actions={!!props.menu}
    >
      {props.list.map((r) => (
        <tr key={r.id} data-reply={r.title}>
          <td data-label="Title">
            <strong>{r.title}</strong>
            {r.shortcut ? <div class="mono small muted">/{r.shortcut}</div> : null}
          </td>
          <td data-label="Text" class="reply-text">
            {r.body}
          </td>
          <td data-label="Visibility">
            <VisibilityBadge reply={r} />
          </td>
          <td data-label="Changed">
            <Time iso={r.updated_at} />
          </td>
          {props.menu?.(r)}
        </tr>
      ))}
    </RecordsTable>
  );
}

/** New saved reply, or Edit: title, shortcut, visibility and the text with its live preview. */
function ReplyDialog(props: {
  reply: SavedReply | undefined;
  onClose: () => void;
  onSaved: (r: SavedReply, created: boolean) => void;
}) {
  const { reply } = props;
  const [title, setTitle] = useState(reply?.title ?? '');
  const [body, setBody] = useState(reply?.body ?? '');
  const [shortcut, setShortcut] = useState(reply?.shortcut ?? '');
  const [visibility, setVisibility] = useState<Visibility>(reply?.visibility ?? 'tenant');
  const form = useSubmit(async () => {
    const fields = { title, body, shortcut: shortcut.trim() || null, visibility };
    const saved = reply
      ? await must(
          api.PATCH('/api/v2/saved-replies/{saved_reply_id}', {
            params: { path: { saved_reply_id: reply.id } },
            body: fields,
          }),
        )
      : await must(api.POST('/api/v2/saved-replies', { body: fields }));
    props.onSaved(saved, !reply);
  });
  const value = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <FormDialog
      title={reply ? 'Edit saved reply' : 'New saved reply'}
      id="saved-reply-form"
      form={form}
      action={reply ? 'Save changes' : 'Create saved reply'}
      onClose={props.onClose}
      wide
    >
      <label for="reply-title">Title</label>
      <input
        id="reply-title"
        required
        maxLength={200}
        value={title}
        onInput={(e: Event) => setTitle(value(e))}
      />
      <label for="reply-shortcut">Shortcut (optional)</label>
      <input
        id="reply-shortcut"
        class="mono"
        maxLength={50}
        pattern="[a-z0-9_\-]{1,50}"
        aria-describedby="reply-shortcut-hint"
        value={shortcut}
        onInput={(e: Event) => setShortcut(value(e))}
      />
      <p class="muted small" id="reply-shortcut-hint">
        Lower-case letters, digits, _ and -, at most 50.
      </p>
      <VisibilityChoice visibility={visibility} onPick={setVisibility} />
      <ReplyBody body={body} onInput={setBody} />
    </FormDialog>
  );
}

function VisibilityChoice(props: { visibility: Visibility; onPick: (v: Visibility) => void }) {
  const choices: [Visibility, string][] = [
    ['tenant', 'Tenant-wide: every member sees and sends it'],
    ['personal', 'Personal: only you see and send it'],
  ];
  return (
    <fieldset>
      <legend>Visibility</legend>
      {choices.map(([v, label]) => (
        <label key={v} class="check">
          <input
            type="radio"
            name="visibility"
            value={v}
            checked={props.visibility === v}
            onChange={() => props.onPick(v)}
          />
          <span>{label}</span>
        </label>
      ))}
    </fieldset>
  );
}

/** The text, the placeholders it may hold, and what it looks like sent (example values). */
function ReplyBody(props: { body: string; onInput: (body: string) => void }) {
  return (
    <>
      <label for="reply-body">Text</label>
      <textarea
        id="reply-body"
        rows={5}
        required
        maxLength={10000}
        aria-describedby="reply-placeholders"
        value={props.body}
        onInput={(e: Event) => props.onInput((e.target as HTMLTextAreaElement).value)}
      />
      <p class="muted small" id="reply-placeholders">
        Placeholders: {PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}.
      </p>
      <h3 class="preview-title">Preview</h3>
      <p class="reply-preview" data-testid="reply-preview">
        {renderPlaceholders(props.body, EXAMPLE) || <span class="muted">Nothing to preview yet.</span>}
      </p>
    </>
  );
}
