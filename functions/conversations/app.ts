import { type Context, Hono } from 'hono';
import { actorOf, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import type { Executor } from '../../shared/db/schema';
import { emitEvent, iso } from '../../shared/events/emit';
import { attachOrRefuse, viewsOf } from '../../shared/files/attach';
import { deleteHandler, getHandler, listHandler, uploadHandler } from '../../shared/files/handlers';
import { type InboundFile, stageInboundFiles } from '../../shared/files/inbound';
import { attachmentsOf } from '../../shared/files/records';
import type { AttachmentView } from '../../shared/files/view';
import { pickTeamMember } from '../../shared/helpdesk/routing';
import { renderSavedReply, userIdOf } from '../../shared/helpdesk/saved-replies';
import { answerWithWork, sendAnswer, storedJson } from '../../shared/http/answer-with-work';
import { notFound } from '../../shared/http/errors';
import { cursorEnvelope, pageEnvelope } from '../../shared/http/pagination';
import { assertReferences } from '../../shared/http/references';
import { type HandlerOf, register } from '../../shared/http/route';
import { conversationSlaAfterUpdate, recordFirstResponse } from '../../shared/sla/records';
import { deliverMessage, initialDeliveryStatus } from './channels';
import {
  appendMessage,
  type ConversationRow,
  conversationPage,
  conversationRef,
  conversationView,
  countConversationForContact,
  defaultRoutingReason,
  type ExportRow,
  type ExportSubject,
  exportView,
  findConversation,
  findExport,
  findExportSubject,
  insertConversation,
  insertExport,
  listEscalations,
  type MessageRow,
  messagePage,
  messageRef,
  messageView,
  subjectIdOf,
  transcriptMessages,
  transitionEvent,
  updateConversationRow,
} from './data';
import { autoReply, type InboundInput, type InboundResult, ingestInbound, requireTenant } from './inbound';
import * as routes from './routes';
import type { AssignConversationBody, UpdateConversationBody } from './schemas';
import {
  renderCallTranscript,
  renderTranscript,
  TRANSCRIPT_MEDIA_TYPE,
  type TranscriptFormat,
} from './transcript';

/**
 * The conversations API twice, v1 (API key or dashboard session) and v2 (dashboard sessions only):
 * distinct routes, one handler each pair. Then the inbound channels (widget, email, WhatsApp).
 */
export const app = new Hono<AppEnv>();

/** A transcript covers at most this many messages (oldest first). */
export const EXPORT_MAX_MESSAGES = 10_000;

/** sender_id of an agent message: the dashboard user's id, or `api_key:<id>` for an integration. */
function senderIdOf(c: Context<AppEnv>): string {
  const auth = c.get('auth');
  return auth.kind === 'dashboard' ? auth.userId : actorOf(c);
}

const uniq = (tags: readonly string[]) => [...new Set(tags)];
const sameTags = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((t, i) => t === b[i]);

// ---- conversations ----

const createConversation: HandlerOf<typeof routes.createConversationV1> = async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { events } = c.get('services');
  const now = new Date();
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
      await assertReferences(trx, tenantId, [{ field: 'contact_id', kind: 'contact', id: body.contact_id }]);
      const created = await insertConversation(
        trx,
        {
          tenant_id: tenantId,
          contact_id: body.contact_id ?? null,
          subject: body.subject || null,
          channel: body.channel,
          priority: body.priority,
          tags: uniq(body.tags),
          assignee_user_id: null,
          assignee_team_id: null,
        },
        now,
      );
      if (created.contact_id) await countConversationForContact(trx, tenantId, created.contact_id);
      await emitEvent(trx, tenantId, 'conversation.created', { conversation: conversationRef(created) });
      return created;
    },
    (created) => storedJson(201, conversationView(created)),
    { transaction: true },
  );
  events.kick();
  return sendAnswer(c, answer);
};
register(app, routes.createConversationV1, createConversation);
register(app, routes.createConversationV2, createConversation);

const listConversations: HandlerOf<typeof routes.listConversationsV1> = async (c) => {
  const q = c.req.valid('query');
  const page = await conversationPage(c.get('services').db, tenantOf(c), q);
  return c.json(cursorEnvelope('conversations', page.rows.map(conversationView), page, q));
};
register(app, routes.listConversationsV1, listConversations);
register(app, routes.listConversationsV2, listConversations);

const getConversation: HandlerOf<typeof routes.getConversationV1> = async (c) => {
  const { id } = c.req.valid('param');
  const row = await findConversation(c.get('services').db, tenantOf(c), id);
  return c.json(conversationView(row));
};
register(app, routes.getConversationV1, getConversation);
register(app, routes.getConversationV2, getConversation);

type Changes = Partial<Pick<ConversationRow, 'status' | 'priority' | 'tags' | 'subject'>>;

/** What a PATCH changes on the conversation: tags de-duplicated, an empty subject is null. */
function changesOf(current: ConversationRow, body: UpdateConversationBody): Changes {
  const changes: Changes = {};
  if (body.status !== undefined && body.status !== current.status) changes.status = body.status;
  if (body.priority !== undefined && body.priority !== current.priority) changes.priority = body.priority;
  if (body.tags !== undefined && !sameTags(uniq(body.tags), current.tags)) changes.tags = uniq(body.tags);
  const subject = body.subject === undefined ? undefined : body.subject || null;
  if (subject !== undefined && subject !== current.subject) changes.subject = subject;
  return changes;
}

const updateConversation: HandlerOf<typeof routes.updateConversationV1> = async (c) => {
  const { id } = c.req.valid('param');
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { events } = c.get('services');
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
      const current = await findConversation(trx, tenantId, id, true);
      const changes = changesOf(current, body);
      // nothing to change is an answer too: the conversation as it is now
      if (Object.keys(changes).length === 0) return current;
      const now = new Date();
      const sla = await conversationSlaAfterUpdate(trx, tenantId, current, changes, now);
      const updated = await updateConversationRow(trx, tenantId, current.id, {
        ...changes,
        ...sla,
        updated_at: now,
      });
      const event = changes.status ? transitionEvent(current.status, changes.status) : null;
      if (event)
        await emitEvent(trx, tenantId, event, {
          conversation: conversationRef(updated),
          previous_status: current.status,
        });
      return updated;
    },
    (row) => storedJson(200, conversationView(row)),
    { transaction: true },
  );
  events.kick();
  return sendAnswer(c, answer);
};
register(app, routes.updateConversationV1, updateConversation);
register(app, routes.updateConversationV2, updateConversation);

/** The assignees after an assign: an omitted field keeps its value, null clears it. */
const assigneesOf = (current: ConversationRow, body: AssignConversationBody) => ({
  assignee_user_id: body.assignee_user_id === undefined ? current.assignee_user_id : body.assignee_user_id,
  assignee_team_id: body.assignee_team_id === undefined ? current.assignee_team_id : body.assignee_team_id,
});

const assignConversation: HandlerOf<typeof routes.assignConversationV1> = async (c) => {
  const { id } = c.req.valid('param');
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { events } = c.get('services');
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
      const current = await findConversation(trx, tenantId, id, true);
      if (body.assignee_user_id !== current.assignee_user_id)
        await assertReferences(trx, tenantId, [
          { field: 'assignee_user_id', kind: 'tenantUser', id: body.assignee_user_id },
        ]);
      if (body.assignee_team_id && body.assignee_team_id !== current.assignee_team_id)
        await assertReferences(trx, tenantId, [
          { field: 'assignee_team_id', kind: 'team', id: body.assignee_team_id },
        ]);
      // assigned to a team alone: a team that routes picks the member (holding the team's lock)
      const pick =
        body.assignee_team_id && body.assignee_user_id === undefined
          ? await pickTeamMember(trx, tenantId, body.assignee_team_id, 'assignee_team_id')
          : null;
      const next = assigneesOf(current, pick?.userId ? { ...body, assignee_user_id: pick.userId } : body);
      // already assigned so: nothing changes, nothing is emitted, the answer is the conversation as is
      if (
        next.assignee_user_id === current.assignee_user_id &&
        next.assignee_team_id === current.assignee_team_id
      )
        return current;
      const updated = await updateConversationRow(trx, tenantId, current.id, {
        ...next,
        updated_at: new Date(),
      });
      await emitEvent(trx, tenantId, 'conversation.assigned', {
        conversation: conversationRef(updated),
        routing_reason: pick?.userId ? pick.routing : (body.routing_reason ?? defaultRoutingReason(current)),
      });
      return updated;
    },
    (row) => storedJson(200, conversationView(row)),
    { transaction: true },
  );
  events.kick();
  return sendAnswer(c, answer);
};
register(app, routes.assignConversationV1, assignConversation);
register(app, routes.assignConversationV2, assignConversation);

// ---- messages ----

/**
 * The event of an agent message: an internal note emits conversation.note_added; a reply emits
 * message.sent, enqueued with the message before the channel send, so it fires even if the send fails.
 */
async function emitAgentMessage(
  trx: Executor,
  tenantId: string,
  message: MessageRow,
  conversation: ConversationRow,
  attachments: AttachmentView[],
) {
  if (message.is_internal) {
    await emitEvent(trx, tenantId, 'conversation.note_added', {
      conversation: conversationRef(conversation),
      note: {
        id: message.id,
        body: message.body,
        sender_id: message.sender_id,
        created_at: iso(message.created_at),
      },
    });
  } else {
    await emitEvent(trx, tenantId, 'message.sent', {
      message: messageRef(message, attachments),
      conversation: conversationRef(conversation),
    });
  }
}

const createMessage: HandlerOf<typeof routes.createMessageV1> = async (c) => {
  const { id } = c.req.valid('param');
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const services = c.get('services');
  const { events, defer } = services;
  const {
    result: { message, conversation },
    answer,
  } = await answerWithWork(
    c,
    async (trx) => {
      const current = await findConversation(trx, tenantId, id, true);
      const appended = await appendMessage(
        trx,
        current,
        {
          sender_type: 'agent',
          sender_id: senderIdOf(c),
          body:
            body.body ??
            (await renderSavedReply(trx, tenantId, body.saved_reply_id!, {
              userId: userIdOf(c),
              conversation: current,
            })),
          content_type: body.content_type,
          is_internal: body.is_internal,
          source: 'dashboard',
          delivery_status: body.is_internal ? null : initialDeliveryStatus(services, current.channel),
          delivery_error: null,
        },
        new Date(),
      );
      // an outbound message that is not internal is the first response
      if (!appended.message.is_internal)
        appended.conversation = await recordFirstResponse(
          trx,
          'conversations',
          appended.conversation,
          appended.message.created_at,
        );
      const attachments = await attachOrRefuse(
        trx,
        tenantId,
        { type: 'conversation', id: current.id },
        body.attachment_ids,
        appended.message.id,
      );
      await emitAgentMessage(trx, tenantId, appended.message, appended.conversation, attachments);
      return { ...appended, attachments };
    },
    ({ message, attachments }) => storedJson(201, messageView(message, attachments)),
    { transaction: true },
  );
  events.kick();
  if (message.delivery_status === 'queued') defer(() => deliverMessage(services, conversation, message));
  return sendAnswer(c, answer);
};
register(app, routes.createMessageV1, createMessage);
register(app, routes.createMessageV2, createMessage);

const listMessages: HandlerOf<typeof routes.listMessagesV1> = async (c) => {
  const { id } = c.req.valid('param');
  const page = c.req.valid('query');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  const conversation = await findConversation(db, tenantId, id);
  const { rows, total } = await messagePage(db, tenantId, conversation.id, page);
  const files = await attachmentsOf(
    db,
    tenantId,
    rows.map((m) => m.id),
  );
  const views = rows.map((m) => messageView(m, viewsOf(files.get(m.id))));
  return c.json(pageEnvelope('messages', views, total, page));
};
register(app, routes.listMessagesV1, listMessages);
register(app, routes.listMessagesV2, listMessages);

// a conversation's files (shared/files: the same four handlers serve a ticket's)
const CONVERSATION_FILES = { type: 'conversation', param: 'id', noun: 'Conversation' } as const;
register(app, routes.attachments.upload, uploadHandler(CONVERSATION_FILES));
register(app, routes.attachments.list, listHandler(CONVERSATION_FILES));
register(app, routes.attachments.get, getHandler(CONVERSATION_FILES));
register(app, routes.attachments.remove, deleteHandler(CONVERSATION_FILES));

// ---- transcript exports ----

/** The download route of the surface (v1 or v2) an export was asked on: its download_url points there. */
type DownloadRoute = typeof routes.downloadExportV1 | typeof routes.downloadExportV2;

const downloadPathOf = (download: DownloadRoute, row: ExportRow) =>
  download.path.replace('{id}', () => subjectIdOf(row)).replace('{export_id}', () => row.id);

type ExportOptions = { format: TranscriptFormat; include_internal: boolean };

/** The export's subject and its transcript: a conversation's messages, or a call's record. */
async function transcriptOf(
  db: Executor,
  tenantId: string,
  subject: ExportSubject,
  options: ExportOptions,
  now: Date,
) {
  if (subject.kind === 'call') {
    const escalations = await listEscalations(db, tenantId, subject.call.id);
    return {
      conversation_id: null,
      call_id: subject.call.id,
      message_count: 0,
      content: renderCallTranscript(options.format, subject.call, escalations, now),
    };
  }
  const { conversation } = subject;
  const messages = await transcriptMessages(db, tenantId, conversation.id, {
    includeInternal: options.include_internal,
    limit: EXPORT_MAX_MESSAGES,
  });
  const files = await attachmentsOf(
    db,
    tenantId,
    messages.map((m) => m.id),
  );
  return {
    conversation_id: conversation.id,
    call_id: null,
    message_count: messages.length,
    content: renderTranscript(options.format, conversation, messages, now, (m) => viewsOf(files.get(m.id))),
  };
}

const createExport =
  (download: DownloadRoute): HandlerOf<typeof routes.createExportV1> =>
  async (c) => {
    const { id } = c.req.valid('param');
    const options = c.req.valid('json') ?? { format: 'json' as const, include_internal: false };
    const tenantId = tenantOf(c);
    const { db, config } = c.get('services');
    const subject = await findExportSubject(db, tenantId, id);
    const now = new Date();
    const fields = {
      tenant_id: tenantId,
      ...(await transcriptOf(db, tenantId, subject, options, now)),
      format: options.format,
      status: 'completed' as const,
      include_internal: options.include_internal,
      created_by: actorOf(c),
      created_at: now,
    };
    const view = (row: ExportRow) => exportView(row, downloadPathOf(download, row), config.PUBLIC_BASE_URL);
    const { answer } = await answerWithWork(
      c,
      (ex) => insertExport(ex, fields),
      (row) => storedJson(201, view(row)),
    );
    return sendAnswer(c, answer);
  };
register(app, routes.createExportV1, createExport(routes.downloadExportV1));
register(app, routes.createExportV2, createExport(routes.downloadExportV2));

/** An export of the tenant's conversation or call: 404 `Conversation not found`, then `Export not found`. */
async function exportOf(c: Context<AppEnv>, subjectId: string, exportId: string) {
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  const subject = await findExportSubject(db, tenantId, subjectId);
  const row = await findExport(db, tenantId, subject, exportId);
  if (!row) throw notFound('Export');
  return row;
}

const getExport =
  (download: DownloadRoute): HandlerOf<typeof routes.getExportV1> =>
  async (c) => {
    const { id, export_id } = c.req.valid('param');
    const row = await exportOf(c, id, export_id);
    const { config } = c.get('services');
    return c.json(exportView(row, downloadPathOf(download, row), config.PUBLIC_BASE_URL));
  };
register(app, routes.getExportV1, getExport(routes.downloadExportV1));
register(app, routes.getExportV2, getExport(routes.downloadExportV2));

const downloadExport: HandlerOf<typeof routes.downloadExportV1> = async (c) => {
  const { id, export_id } = c.req.valid('param');
  const row = await exportOf(c, id, export_id);
  const ext = row.format === 'json' ? 'json' : 'txt';
  const name = row.call_id ? `call-${row.call_id}` : `conversation-${row.conversation_id}`;
  return c.body(row.content, 200, {
    'Content-Type': TRANSCRIPT_MEDIA_TYPE[row.format],
    'Content-Disposition': `attachment; filename="${name}-${row.id}.${ext}"`,
  });
};
register(app, routes.downloadExportV1, downloadExport);
register(app, routes.downloadExportV2, downloadExport);

// ---- inbound channels ----

/**
 * Stores an inbound message. Its files (email, WhatsApp) go into storage first, checked and all or
 * nothing; a message that is then refused (an unknown thread, a failed transaction) takes their
 * bytes with it.
 */
async function inbound(c: Context<AppEnv>, input: InboundInput, files?: readonly InboundFile[]) {
  const services = c.get('services');
  if (files?.length) await requireTenant(services.db, input.tenantId);
  const { staged, discard } = await stageInboundFiles(
    services.files,
    services.db,
    services.config,
    input.tenantId,
    files,
  );
  let result: InboundResult;
  try {
    result = await ingestInbound(services.db, { ...input, files: staged });
  } catch (err) {
    await discard();
    throw err;
  }
  services.events.kick();
  const reply = await autoReply(services, result);
  return c.json(
    {
      conversation_id: result.conversation.id,
      conversation_created: result.created,
      message: messageView(result.message, result.attachments),
      reply: reply ? messageView(reply) : null,
    },
    201,
  );
}

/** Public widget chat: the tenant is named by `tenant_id` in the body (tenant ids are not secrets). */
register(app, routes.widgetMessage, async (c) => {
  const b = c.req.valid('json');
  return inbound(c, {
    tenantId: b.tenant_id,
    channel: 'widget',
    identity: { email: b.email, visitorId: b.visitor_id, name: b.name },
    body: b.body,
    conversationId: b.conversation_id,
  });
});

/** Inbound email, posted by the mail ingestion job (internal token). */
register(app, routes.inboundEmail, async (c) => {
  const b = c.req.valid('json');
  return inbound(
    c,
    {
      tenantId: b.tenant_id,
      channel: 'email',
      identity: { email: b.from, name: b.from_name },
      body: b.body,
      contentType: b.content_type,
      subject: b.subject ?? null,
      conversationId: b.conversation_id,
    },
    b.attachments,
  );
});

/** Inbound WhatsApp message, posted by the WhatsApp webhook handler (internal token). */
register(app, routes.inboundWhatsApp, async (c) => {
  const b = c.req.valid('json');
  return inbound(
    c,
    {
      tenantId: b.tenant_id,
      channel: 'whatsapp',
      identity: { phone: b.from, name: b.name },
      body: b.body,
      conversationId: b.conversation_id,
    },
    b.attachments,
  );
});
