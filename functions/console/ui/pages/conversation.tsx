/** @jsxImportSource hono/jsx/dom */
// One conversation: its messages oldest first, each with who sent it, when, its text and its files
// (name and size, each a download by the signed link the conversation's attachment list hands out;
// the list is read again before the earliest link expires, as on a ticket's page).
import { useState } from 'hono/jsx/dom';
import { api, type components, must } from '../api';
import { Badge, LIST_PAGE, LoadError, Loading, PageHead, Pager, Time, useLoad } from '../components';
import { sizeText, useFreshLinks } from './attachments';
import { isClosed, Priority, subjectOf } from './conversations';
import { SlaBadge } from './sla-badge';

type Conversation = components['schemas']['Conversation'];
type Message = components['schemas']['Message'];
type FileRef = Message['attachments'][number];

/** How each kind of sender is named beside its name. */
const SENDER_KINDS: Record<Message['sender_type'], string> = {
  contact: 'contact',
  agent: 'agent',
  ai: 'AI assistant',
};

export function ConversationPage(props: { id: string }) {
  const conversation = useLoad(
    () => must(api.GET('/api/v2/conversations/{id}', { params: { path: { id: props.id } } })),
    [props.id],
  );
  const c = conversation.data;
  return (
    <section aria-labelledby="page-title">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="/console/conversations">Conversations</a> <span aria-hidden="true">/</span>{' '}
        <span class="mono">{props.id}</span>
      </nav>
      <PageHead
        title={c ? subjectOf(c) : conversation.error ? 'Conversation not found' : 'Conversation'}
        intro={c ? <Summary c={c} /> : undefined}
      />
      <LoadError load={conversation} />
      {conversation.loading && !c ? <Loading what="conversation" /> : null}
      {c ? <Messages c={c} /> : null}
    </section>
  );
}

function Summary(props: { c: Conversation }) {
  const { c } = props;
  return (
    <>
      <Badge tone={isClosed(c.status) ? 'neutral' : 'ok'}>{c.status}</Badge> <Priority value={c.priority} />{' '}
      <SlaBadge sla={c.sla} resolved={isClosed(c.status)} />{' '}
      <span class="small">
        {c.channel} · started <Time iso={c.created_at} />
      </span>
    </>
  );
}

/**
 * Who wrote what: the contact's name (GET /api/v2/contacts/{id}) and the members' (the first 100
 * users, as the teams page reads them); an id stays an id until its name loads, or when it has none.
 */
function useSenders(c: Conversation) {
  const names = useLoad(async () => {
    const [contact, users] = await Promise.all([
      c.contact_id
        ? must(
            api.GET('/api/v2/contacts/{contact_id}', { params: { path: { contact_id: c.contact_id } } }),
          ).catch(() => null)
        : null,
      must(api.GET('/api/v1/tenant/users', { params: { query: { limit: 100 } } })).catch(() => null),
    ]);
    const byId = new Map<string, string>();
    const contactName = [contact?.first_name, contact?.last_name].filter(Boolean).join(' ');
    if (contact) byId.set(contact.id, contactName || contact.email || contact.phone || contact.id);
    for (const u of users?.users ?? []) byId.set(u.id, u.name || u.email);
    return byId;
  }, [c.id]);
  return (m: Message) =>
    m.sender_id ? (names.data?.get(m.sender_id) ?? m.sender_id) : SENDER_KINDS[m.sender_type];
}

function Messages(props: { c: Conversation }) {
  const id = props.c.id;
  const [offset, setOffset] = useState(0);
  const messages = useLoad(
    () =>
      must(
        api.GET('/api/v2/conversations/{id}/messages', {
          params: { path: { id }, query: { limit: LIST_PAGE, offset } },
        }),
      ),
    [id, offset],
  );
  // the signed links of every file of the conversation, by attachment id
  const files = useLoad(
    () => must(api.GET('/api/v1/conversations/{id}/attachments', { params: { path: { id } } })),
    [id],
  );
  useFreshLinks(files.data?.attachments, files.reload);
  const links = new Map((files.data?.attachments ?? []).map((a) => [a.id, a.download_url]));
  const sender = useSenders(props.c);
  const list = messages.data?.messages;
  return (
    <>
      <h2 class="section-title">Messages</h2>
      <LoadError load={messages} />
      <LoadError load={files} />
      {messages.loading && !list ? <Loading what="messages" /> : null}
      {list && list.length === 0 ? <p class="muted">No messages yet.</p> : null}
      {list && list.length > 0 ? (
        <ol class="messages" aria-label="Messages">
          {list.map((m) => (
            <MessageItem key={m.id} m={m} sender={sender(m)} links={links} />
          ))}
        </ol>
      ) : null}
      <Pager
        offset={offset}
        shown={list?.length ?? 0}
        total={messages.data?.total ?? 0}
        size={LIST_PAGE}
        onMove={setOffset}
      />
    </>
  );
}

function MessageItem(props: { m: Message; sender: string; links: Map<string, string> }) {
  const { m } = props;
  return (
    <li class={m.is_internal ? 'message internal' : `message ${m.sender_type}`} data-message={m.id}>
      <div class="message-head">
        <strong class="sender">{props.sender}</strong>
        <span class="muted small">{SENDER_KINDS[m.sender_type]}</span>
        {m.is_internal ? <Badge tone="warn">internal note</Badge> : null}
        <Time iso={m.created_at} />
      </div>
      <p class="message-body">{m.body}</p>
      {m.attachments.length > 0 ? (
        <ul class="message-files" aria-label={`Files of the message from ${props.sender}`}>
          {m.attachments.map((a) => (
            <FileItem key={a.id} file={a} link={props.links.get(a.id)} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** A file's name (a download once its signed link has loaded) and its size. */
function FileItem(props: { file: FileRef; link: string | undefined }) {
  const { file } = props;
  return (
    <li data-attachment={file.filename}>
      {props.link ? (
        <a href={props.link} download={file.filename} rel="noreferrer">
          {file.filename}
        </a>
      ) : (
        <span>{file.filename}</span>
      )}{' '}
      <span class="muted small">{sizeText(file.size)}</span>
    </li>
  );
}
