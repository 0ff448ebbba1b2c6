import { type Context, Hono } from 'hono';
import { actorOf, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { pageWithTotal } from '../../shared/db/paging';
import { assertReferences } from '../../shared/db/references';
import type { ConversationsTable } from '../../shared/db/tables/conversations';
import { emitEvent, iso } from '../../shared/events/emit';
import { notFound } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { validate } from '../../shared/http/validation';
import { looksLikeId, newId } from '../../shared/ids';
import { deliverMessage, initialDeliveryStatus } from './channels';
import {
  appendMessage,
  conversationRef,
  conversationView,
  countConversationForContact,
  defaultRoutingReason,
  type ExportRow,
  findConversation,
  messageRef,
  messageView,
  transitionEvent,
} from './data';
import { autoReply, type InboundInput, ingestInbound } from './inbound';
import {
  AssignConversationBody,
  ConversationIdParam,
  CreateConversationBody,
  CreateMessageBody,
  ExportBody,
  ExportParam,
  InboundEmailBody,
  InboundWhatsAppBody,
  ListConversationsQuery,
  ListMessagesQuery,
  UpdateConversationBody,
  WidgetMessageBody,
} from './schemas';
import { renderTranscript, TRANSCRIPT_MEDIA_TYPE } from './transcript';

/** The same handlers serve the API-key surface (v1) and the dashboard-only surface (v2). */
export const CONVERSATION_BASES = ['/api/v1/conversations', '/api/v2/conversations'] as const;
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

function exportView(row: ExportRow, base: string, publicBaseUrl: string | undefined) {
  return {
    id: row.id,
    conversation_id: row.conversation_id,
    format: row.format,
    status: row.status,
    include_internal: row.include_internal,
    message_count: row.message_count,
    download_url: `${(publicBaseUrl ?? '').replace(/\/+$/, '')}${base}/${row.conversation_id}/exports/${row.id}/download`,
    created_at: iso(row.created_at),
  };
}

export const app = new Hono<AppEnv>();

for (const base of CONVERSATION_BASES) {
  app.post(base, validate('json', CreateConversationBody), async (c) => {
    const body = c.req.valid('json');
    const tenantId = tenantOf(c);
    const { db } = c.get('services');
    const now = new Date();
    const row = await db.transaction().execute(async (trx) => {
      await assertReferences(trx, tenantId, [{ field: 'contact_id', kind: 'contact', id: body.contact_id }]);
      const created = await trx
        .insertInto('conversations')
        .values({
          id: newId('conversation'),
          tenant_id: tenantId,
          contact_id: body.contact_id ?? null,
          subject: body.subject || null,
          channel: body.channel,
          priority: body.priority,
          tags: uniq(body.tags),
          assignee_user_id: null,
          assignee_team_id: null,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (created.contact_id) await countConversationForContact(trx, tenantId, created.contact_id);
      await emitEvent(trx, tenantId, 'conversation.created', { conversation: conversationRef(created) });
      return created;
    });
    c.get('services').events.kick();
    return c.json(conversationView(row), 201);
  });

  app.get(base, validate('query', ListConversationsQuery), async (c) => {
    const q = c.req.valid('query');
    const tenantId = tenantOf(c);
    const { db } = c.get('services');
    let filtered = db.selectFrom('conversations').where('tenant_id', '=', tenantId);
    if (q.status) filtered = filtered.where('status', '=', q.status);
    if (q.channel) filtered = filtered.where('channel', '=', q.channel);
    if (q.contact_id) filtered = filtered.where('contact_id', '=', q.contact_id);
    if (q.assignee_user_id) filtered = filtered.where('assignee_user_id', '=', q.assignee_user_id);
    if (q.assignee_team_id) filtered = filtered.where('assignee_team_id', '=', q.assignee_team_id);
    if (q.updated_since) filtered = filtered.where('updated_at', '>=', new Date(q.updated_since));
    const desc = q.sort.startsWith('-');
    const field = q.sort.replace(/^-/, '') as keyof ConversationsTable & ('created_at' | 'updated_at');
    const dir = desc ? 'desc' : 'asc';
    const { rows, total } = await pageWithTotal(filtered, q, (page) =>
      page.selectAll().orderBy(field, dir).orderBy('id', dir),
    );
    return c.json(pageEnvelope('conversations', rows.map(conversationView), total, q));
  });

  app.get(`${base}/:id`, validate('param', ConversationIdParam), async (c) => {
    const { id } = c.req.valid('param');
    const row = await findConversation(c.get('services').db, tenantOf(c), id);
    return c.json(conversationView(row));
  });

  app.patch(
    `${base}/:id`,
    validate('param', ConversationIdParam),
    validate('json', UpdateConversationBody),
    async (c) => {
      const { id } = c.req.valid('param');
      const body = c.req.valid('json');
      const tenantId = tenantOf(c);
      const { db } = c.get('services');
      const row = await db.transaction().execute(async (trx) => {
        const current = await findConversation(trx, tenantId, id, true);
        const changes: Partial<Pick<typeof current, 'status' | 'priority' | 'tags' | 'subject'>> = {};
        if (body.status !== undefined && body.status !== current.status) changes.status = body.status;
        if (body.priority !== undefined && body.priority !== current.priority)
          changes.priority = body.priority;
        if (body.tags !== undefined && !sameTags(uniq(body.tags), current.tags))
          changes.tags = uniq(body.tags);
        const subject = body.subject === undefined ? undefined : body.subject || null;
        if (subject !== undefined && subject !== current.subject) changes.subject = subject;
        if (Object.keys(changes).length === 0) return current;
        const updated = await trx
          .updateTable('conversations')
          .set({ ...changes, updated_at: new Date() })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', current.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        const event = changes.status ? transitionEvent(current.status, changes.status) : null;
        if (event)
          await emitEvent(trx, tenantId, event, {
            conversation: conversationRef(updated),
            previous_status: current.status,
          });
        return updated;
      });
      c.get('services').events.kick();
      return c.json(conversationView(row));
    },
  );

  app.post(
    `${base}/:id/assign`,
    validate('param', ConversationIdParam),
    validate('json', AssignConversationBody),
    async (c) => {
      const { id } = c.req.valid('param');
      const body = c.req.valid('json');
      const tenantId = tenantOf(c);
      const { db } = c.get('services');
      const row = await db.transaction().execute(async (trx) => {
        const current = await findConversation(trx, tenantId, id, true);
        if (body.assignee_user_id !== current.assignee_user_id)
          await assertReferences(trx, tenantId, [
            { field: 'assignee_user_id', kind: 'tenantUser', id: body.assignee_user_id },
          ]);
        const next = {
          assignee_user_id:
            body.assignee_user_id === undefined ? current.assignee_user_id : body.assignee_user_id,
          assignee_team_id:
            body.assignee_team_id === undefined ? current.assignee_team_id : body.assignee_team_id,
        };
        if (
          next.assignee_user_id === current.assignee_user_id &&
          next.assignee_team_id === current.assignee_team_id
        )
          return current; // already assigned so: nothing changes, nothing is emitted
        const updated = await trx
          .updateTable('conversations')
          .set({ ...next, updated_at: new Date() })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', current.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await emitEvent(trx, tenantId, 'conversation.assigned', {
          conversation: conversationRef(updated),
          routing_reason: body.routing_reason ?? defaultRoutingReason(current),
        });
        return updated;
      });
      c.get('services').events.kick();
      return c.json(conversationView(row));
    },
  );

  app.post(
    `${base}/:id/messages`,
    validate('param', ConversationIdParam),
    validate('json', CreateMessageBody),
    async (c) => {
      const { id } = c.req.valid('param');
      const body = c.req.valid('json');
      const tenantId = tenantOf(c);
      const { db } = c.get('services');
      const { message, conversation } = await db.transaction().execute(async (trx) => {
        const current = await findConversation(trx, tenantId, id, true);
        const now = new Date();
        const { message, conversation } = await appendMessage(
          trx,
          current,
          {
            sender_type: 'agent',
            sender_id: senderIdOf(c),
            body: body.body,
            content_type: body.content_type,
            is_internal: body.is_internal,
            source: 'dashboard',
            delivery_status: body.is_internal ? null : initialDeliveryStatus(current.channel),
            delivery_error: null,
          },
          now,
        );
        if (message.is_internal) {
          await emitEvent(trx, tenantId, 'conversation.note_added', {
            conversation: conversationRef(conversation),
            note: {
              id: message.id,
              body: message.body,
              sender_id: message.sender_id,
              created_at: iso(message.created_at) as string,
            },
          });
        } else {
          // enqueued with the message, before the channel send: it fires even if the send fails
          await emitEvent(trx, tenantId, 'message.sent', {
            message: messageRef(message),
            conversation: conversationRef(conversation),
          });
        }
        return { message, conversation };
      });
      c.get('services').events.kick();
      if (message.delivery_status === 'queued')
        c.get('services').defer(() => deliverMessage(db, conversation, message));
      return c.json(messageView(message), 201);
    },
  );

  app.get(
    `${base}/:id/messages`,
    validate('param', ConversationIdParam),
    validate('query', ListMessagesQuery),
    async (c) => {
      const { id } = c.req.valid('param');
      const page = c.req.valid('query');
      const tenantId = tenantOf(c);
      const { db } = c.get('services');
      const conversation = await findConversation(db, tenantId, id);
      const scoped = db
        .selectFrom('messages')
        .where('tenant_id', '=', tenantId)
        .where('conversation_id', '=', conversation.id);
      const { rows, total } = await pageWithTotal(scoped, page, (q) =>
        q.selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc'),
      );
      return c.json(pageEnvelope('messages', rows.map(messageView), total, page));
    },
  );

  app.post(
    `${base}/:id/export`,
    validate('param', ConversationIdParam),
    validate('json', ExportBody),
    async (c) => {
      const { id } = c.req.valid('param');
      const options = c.req.valid('json') ?? { format: 'json' as const, include_internal: false };
      const tenantId = tenantOf(c);
      const { db, config } = c.get('services');
      const conversation = await findConversation(db, tenantId, id);
      let q = db
        .selectFrom('messages')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('conversation_id', '=', conversation.id);
      if (!options.include_internal) q = q.where('is_internal', '=', false);
      const messages = await q
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .limit(EXPORT_MAX_MESSAGES)
        .execute();
      const now = new Date();
      const row = await db
        .insertInto('conversation_exports')
        .values({
          id: newId('export'),
          tenant_id: tenantId,
          conversation_id: conversation.id,
          format: options.format,
          status: 'completed',
          include_internal: options.include_internal,
          message_count: messages.length,
          content: renderTranscript(options.format, conversation, messages, now),
          created_by: actorOf(c),
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return c.json(exportView(row, base, config.PUBLIC_BASE_URL), 201);
    },
  );

  const findExport = async (c: Context<AppEnv>, conversationId: string, exportId: string) => {
    const tenantId = tenantOf(c);
    const { db } = c.get('services');
    await findConversation(db, tenantId, conversationId);
    const row = looksLikeId('export', exportId)
      ? await db
          .selectFrom('conversation_exports')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .where('conversation_id', '=', conversationId)
          .where('id', '=', exportId)
          .executeTakeFirst()
      : undefined;
    if (!row) throw notFound('Export');
    return row;
  };

  app.get(`${base}/:id/exports/:export_id`, validate('param', ExportParam), async (c) => {
    const { id, export_id } = c.req.valid('param');
    const row = await findExport(c, id, export_id);
    return c.json(exportView(row, base, c.get('services').config.PUBLIC_BASE_URL));
  });

  app.get(`${base}/:id/exports/:export_id/download`, validate('param', ExportParam), async (c) => {
    const { id, export_id } = c.req.valid('param');
    const row = await findExport(c, id, export_id);
    const ext = row.format === 'json' ? 'json' : 'txt';
    return c.body(row.content, 200, {
      'Content-Type': TRANSCRIPT_MEDIA_TYPE[row.format],
      'Content-Disposition': `attachment; filename="conversation-${row.conversation_id}-${row.id}.${ext}"`,
    });
  });
}

// ---- inbound channels ----

async function inbound(c: Context<AppEnv>, input: InboundInput) {
  const services = c.get('services');
  const result = await ingestInbound(services.db, input);
  services.events.kick();
  const reply = await autoReply(services, result);
  return c.json(
    {
      conversation_id: result.conversation.id,
      conversation_created: result.created,
      message: messageView(result.message),
      reply: reply ? messageView(reply) : null,
    },
    201,
  );
}

/** Public widget chat: the tenant is named by `tenant_id` in the body (tenant ids are not secrets). */
app.post('/api/v1/widget/messages', validate('json', WidgetMessageBody), async (c) => {
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
app.post('/api/internal/channels/email', validate('json', InboundEmailBody), async (c) => {
  const b = c.req.valid('json');
  return inbound(c, {
    tenantId: b.tenant_id,
    channel: 'email',
    identity: { email: b.from, name: b.from_name },
    body: b.body,
    contentType: b.content_type,
    subject: b.subject ?? null,
    conversationId: b.conversation_id,
  });
});

/** Inbound WhatsApp message, posted by the WhatsApp webhook handler (internal token). */
app.post('/api/internal/channels/whatsapp', validate('json', InboundWhatsAppBody), async (c) => {
  const b = c.req.valid('json');
  return inbound(c, {
    tenantId: b.tenant_id,
    channel: 'whatsapp',
    identity: { phone: b.from, name: b.name },
    body: b.body,
    conversationId: b.conversation_id,
  });
});
