import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kbAnswerer } from '../../functions/conversations/answerer';
import type { Answerer, ChannelSenders } from '../../shared/context/conversation-ports';
import { allEventsFor, eventsFor } from '../support/events';
import {
  type Harness,
  postgresUnavailable,
  startHarness,
  TEST_SECRETS,
  type TestTenant,
} from '../support/harness';
import { addTenantUsers } from '../support/people';

const tenantCounts = async (h: Harness, tenantId: string) => {
  const n = async (table: 'conversations' | 'messages' | 'events') =>
    Number(
      (
        await h.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('tenant_id', '=', tenantId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const contacts = await sql<{
    n: number;
  }>`SELECT count(*) AS n FROM contacts WHERE tenant_id = ${tenantId}`.execute(h.db);
  return {
    conversations: await n('conversations'),
    messages: await n('messages'),
    events: await n('events'),
    contacts: Number(contacts.rows[0]!.n),
  };
};
const internal = { bearer: TEST_SECRETS.INTERNAL_API_TOKEN };

describe.skipIf(postgresUnavailable())('inbound: widget, email, WhatsApp; AI auto-reply', () => {
  let h: Harness;
  let t: TestTenant;
  let other: TestTenant;
  // this file's runtime's answerer and senders, handed to it once: a test puts its own in,
  // afterEach takes them out (no answerer of its own: the knowledge base's)
  let answerer: Answerer | null = null;
  const senders: ChannelSenders = {};
  beforeAll(async () => {
    h = await startHarness(
      {},
      {
        answerer: { answer: (input) => (answerer ?? kbAnswerer).answer(input) },
        channelSenders: senders,
      },
    );
    t = await h.tenant();
    await addTenantUsers(h, t.id, ['user_human']);
    other = await h.tenant();
    await sql`INSERT INTO kb_articles (id, tenant_id, title, body, status, url) VALUES
      ('art_reset', ${t.id}, 'How to reset your password', 'Open Settings, choose Security and click Reset password. A link arrives by email.', 'published', 'https://help.example.com/reset'),
      ('art_draft', ${t.id}, 'Refund policy draft', 'Refunds within 30 days', 'draft', null),
      ('art_other', ${other.id}, 'Invoice download guide', 'Invoices live under Billing', 'published', null)`.execute(
      h.db,
    );
  }, 120_000);
  afterAll(() => h?.close(), 60_000);
  afterEach(() => {
    answerer = null;
    delete senders.whatsapp;
  });

  const widget = (body: unknown) => h.request('POST', '/api/v1/widget/messages', { body });

  it('widget, new visitor: 201, creates contact + conversation; one conversation.created, one message.received', async () => {
    const res = await widget({
      tenant_id: t.id,
      email: 'Ada@Example.com',
      name: 'Ada Lovelace',
      body: 'Where is my order?',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      conversation_id: expect.stringMatching(/^cnv_/),
      conversation_created: true,
      message: { sender_type: 'contact', source: 'widget', body: 'Where is my order?', is_internal: false },
      reply: null,
    });
    const cid = res.body.conversation_id;
    expect(await allEventsFor(h, t.id, cid)).toEqual(['conversation.created', 'message.received']);
    const [received] = await eventsFor(h, t.id, 'message.received', cid);
    expect(received.message).toMatchObject({
      id: res.body.message.id,
      conversation_id: cid,
      sender_type: 'contact',
      source: 'widget',
    });
    const contact = await sql<{
      id: string;
      email: string;
      first_name: string;
      last_name: string;
      conversation_count: number;
    }>`
      SELECT id, email, first_name, last_name, conversation_count FROM contacts WHERE tenant_id = ${t.id} AND email = 'ada@example.com'`.execute(
      h.db,
    );
    expect(contact.rows).toHaveLength(1);
    expect(contact.rows[0]).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace' });
    expect(Number(contact.rows[0]!.conversation_count)).toBe(1);
    expect(received.message.sender_id).toBe(contact.rows[0]!.id);
    const conv = await h.request('GET', `/api/v2/conversations/${cid}`, { bearer: t.adminToken });
    expect(conv.body).toMatchObject({ channel: 'widget', status: 'open', contact_id: contact.rows[0]!.id });
  });

  it('widget, returning visitor: same conversation, one more message.received, no conversation.created', async () => {
    const first = await widget({ tenant_id: t.id, email: 'grace@example.com', body: 'first' });
    const second = await widget({ tenant_id: t.id, email: 'GRACE@example.com', body: 'second' });
    expect(second.status).toBe(201);
    expect(second.body.conversation_created).toBe(false);
    expect(second.body.conversation_id).toBe(first.body.conversation_id);
    expect(await allEventsFor(h, t.id, first.body.conversation_id)).toEqual([
      'conversation.created',
      'message.received',
      'message.received',
    ]);
  });

  it('widget by visitor_id only finds the same contact; a resolved conversation is not reused', async () => {
    const a = await widget({ tenant_id: t.id, visitor_id: 'v-123', body: 'hello there' });
    const b = await widget({ tenant_id: t.id, visitor_id: 'v-123', body: 'still there?' });
    expect(b.body.conversation_id).toBe(a.body.conversation_id);
    await h.request('PATCH', `/api/v2/conversations/${a.body.conversation_id}`, {
      bearer: t.adminToken,
      body: { status: 'resolved' },
    });
    const c = await widget({ tenant_id: t.id, visitor_id: 'v-123', body: 'new question' });
    expect(c.body.conversation_created).toBe(true);
    expect(c.body.conversation_id).not.toBe(a.body.conversation_id);
    const contacts = await sql<{
      n: number;
    }>`SELECT count(*) AS n FROM contacts WHERE tenant_id = ${t.id} AND custom_attrs->>'widget_visitor_id' = 'v-123'`.execute(
      h.db,
    );
    expect(Number(contacts.rows[0]!.n)).toBe(1);
  });

  it('concurrent first messages of one visitor make one contact and one conversation', async () => {
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => widget({ tenant_id: t.id, email: 'burst@example.com', body: `burst ${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const cids = new Set(results.map((r) => r.body.conversation_id));
    expect(cids.size).toBe(1);
    expect(results.filter((r) => r.body.conversation_created)).toHaveLength(1);
    const [cid] = [...cids] as [string];
    expect(await eventsFor(h, t.id, 'conversation.created', cid)).toHaveLength(1);
    expect(await eventsFor(h, t.id, 'message.received', cid)).toHaveLength(5);
    const contacts = await sql<{
      n: number;
    }>`SELECT count(*) AS n FROM contacts WHERE tenant_id = ${t.id} AND email = 'burst@example.com'`.execute(
      h.db,
    );
    expect(Number(contacts.rows[0]!.n)).toBe(1);
  });

  it('a soft-deleted contact with the same email does not block: a new contact is created', async () => {
    await sql`INSERT INTO contacts (id, tenant_id, email, deleted_at) VALUES ('ctc_gone', ${t.id}, 'gone@example.com', now())`.execute(
      h.db,
    );
    const res = await widget({ tenant_id: t.id, email: 'gone@example.com', body: 'back again' });
    expect(res.status).toBe(201);
    const [received] = await eventsFor(h, t.id, 'message.received', res.body.conversation_id);
    expect(received.message.sender_id).not.toBe('ctc_gone');
  });

  it('AI auto-reply on widget: best published KB article, one message.sent with sender_type ai', async () => {
    const res = await widget({
      tenant_id: t.id,
      email: 'kb@example.com',
      body: 'I forgot my password, how do I reset it?',
    });
    expect(res.status).toBe(201);
    expect(res.body.reply).toMatchObject({ sender_type: 'ai', source: 'widget', is_internal: false });
    expect(res.body.reply.body).toContain('How to reset your password');
    expect(res.body.reply.body).toContain('https://help.example.com/reset');
    const cid = res.body.conversation_id;
    const sent = await eventsFor(h, t.id, 'message.sent', cid);
    expect(sent).toHaveLength(1);
    expect(sent[0].message).toMatchObject({
      id: res.body.reply.id,
      sender_type: 'ai',
      source: 'widget',
      conversation_id: cid,
    });
    expect(await allEventsFor(h, t.id, cid)).toEqual([
      'conversation.created',
      'message.received',
      'message.sent',
    ]);
  });

  it('no matching published article (drafts and other tenants do not count): no reply, no message.sent', async () => {
    const res = await widget({
      tenant_id: t.id,
      email: 'nomatch@example.com',
      body: 'refund policy invoice download',
    });
    expect(res.body.reply).toBeNull();
    expect(await eventsFor(h, t.id, 'message.sent', res.body.conversation_id)).toHaveLength(0);
  });

  it('the answerer is pluggable: a fake answers deterministically', async () => {
    const fake: Answerer = { answer: async ({ message }) => ({ body: `echo: ${message.body}` }) };
    answerer = fake;
    const res = await widget({ tenant_id: t.id, email: 'fake@example.com', body: 'ping' });
    expect(res.body.reply.body).toBe('echo: ping');
    expect(await eventsFor(h, t.id, 'message.sent', res.body.conversation_id)).toHaveLength(1);
  });

  it('a failing answerer leaves the inbound message in place and emits no message.sent', async () => {
    answerer = {
      answer: async () => {
        throw new Error('model down');
      },
    };
    const res = await widget({ tenant_id: t.id, email: 'down@example.com', body: 'reset password' });
    expect(res.status).toBe(201);
    expect(res.body.reply).toBeNull();
    expect(await allEventsFor(h, t.id, res.body.conversation_id)).toEqual([
      'conversation.created',
      'message.received',
    ]);
  });

  it('no auto-reply once a human agent is assigned', async () => {
    const first = await widget({ tenant_id: t.id, email: 'assigned@example.com', body: 'hello' });
    await h.request('POST', `/api/v2/conversations/${first.body.conversation_id}/assign`, {
      bearer: t.adminToken,
      body: { assignee_user_id: 'user_human' },
    });
    const second = await widget({
      tenant_id: t.id,
      email: 'assigned@example.com',
      body: 'reset my password please',
    });
    expect(second.body.reply).toBeNull();
    expect(await eventsFor(h, t.id, 'message.sent', first.body.conversation_id)).toHaveLength(0);
  });

  it('email inbound: message.received with source email, subject kept, no AI reply', async () => {
    const res = await h.request('POST', '/api/internal/channels/email', {
      ...internal,
      body: {
        tenant_id: t.id,
        from: 'mail@example.com',
        from_name: 'Mail User',
        subject: 'Password',
        body: 'reset password please',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      conversation_created: true,
      reply: null,
      message: { source: 'email', sender_type: 'contact' },
    });
    const cid = res.body.conversation_id;
    expect(await allEventsFor(h, t.id, cid)).toEqual(['conversation.created', 'message.received']);
    const [received] = await eventsFor(h, t.id, 'message.received', cid);
    expect(received.message.source).toBe('email');
    const conv = await h.request('GET', `/api/v2/conversations/${cid}`, { bearer: t.adminToken });
    expect(conv.body).toMatchObject({ channel: 'email', subject: 'Password' });
  });

  it('email thread reference to a closed conversation reopens it (one conversation.reopened)', async () => {
    const first = await h.request('POST', '/api/internal/channels/email', {
      ...internal,
      body: { tenant_id: t.id, from: 'thread@example.com', subject: 'Thread', body: 'first' },
    });
    const cid = first.body.conversation_id;
    await h.request('PATCH', `/api/v2/conversations/${cid}`, {
      bearer: t.adminToken,
      body: { status: 'closed' },
    });
    const reply = await h.request('POST', '/api/internal/channels/email', {
      ...internal,
      body: { tenant_id: t.id, from: 'thread@example.com', body: 'it broke again', conversation_id: cid },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ conversation_id: cid, conversation_created: false });
    const reopened = await eventsFor(h, t.id, 'conversation.reopened', cid);
    expect(reopened).toHaveLength(1);
    expect(reopened[0]).toMatchObject({
      previous_status: 'closed',
      conversation: { id: cid, status: 'open' },
    });
    expect(await eventsFor(h, t.id, 'message.received', cid)).toHaveLength(2);
  });

  it("a thread reference to another contact's or tenant's conversation is a 404; nothing is written", async () => {
    const mine = await widget({ tenant_id: t.id, email: 'owner@example.com', body: 'mine' });
    const theirs = await widget({ tenant_id: other.id, email: 'owner@example.com', body: 'theirs' });
    const before = await tenantCounts(h, t.id);
    const beforeOther = await tenantCounts(h, other.id);
    const cross = await widget({
      tenant_id: t.id,
      email: 'owner@example.com',
      body: 'x',
      conversation_id: theirs.body.conversation_id,
    });
    expect(cross.status).toBe(404);
    expect(cross.body).toEqual({ detail: 'Conversation not found' });
    const otherContact = await widget({
      tenant_id: t.id,
      email: 'intruder@example.com',
      body: 'x',
      conversation_id: mine.body.conversation_id,
    });
    expect(otherContact.status).toBe(404);
    const viaEmail = await h.request('POST', '/api/internal/channels/email', {
      ...internal,
      body: {
        tenant_id: other.id,
        from: 'owner@example.com',
        body: 'x',
        conversation_id: mine.body.conversation_id,
      },
    });
    expect(viaEmail.status).toBe(404);
    expect(await tenantCounts(h, t.id)).toEqual(before);
    expect(await tenantCounts(h, other.id)).toEqual(beforeOther);
  });

  it('WhatsApp inbound: phone formats map to one contact; AI reply sent with source whatsapp even if the send fails', async () => {
    let sends = 0;
    senders.whatsapp = {
      async send() {
        sends++;
        throw new Error('WhatsApp API 500');
      },
    };
    const a = await h.request('POST', '/api/internal/channels/whatsapp', {
      ...internal,
      body: { tenant_id: t.id, from: '+1 (555) 010-2030', name: 'Wa User', body: 'how to reset my password' },
    });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      conversation_created: true,
      message: { source: 'whatsapp' },
      reply: { sender_type: 'ai', source: 'whatsapp', delivery_status: 'queued' },
    });
    const b = await h.request('POST', '/api/internal/channels/whatsapp', {
      ...internal,
      body: { tenant_id: t.id, from: '+15550102030', body: 'thanks' },
    });
    expect(b.body.conversation_id).toBe(a.body.conversation_id);
    await h.runtime.drain();
    expect(sends).toBe(1);
    const cid = a.body.conversation_id;
    expect(await allEventsFor(h, t.id, cid)).toEqual([
      'conversation.created',
      'message.received',
      'message.sent',
      'message.received',
    ]);
    const reply = await h.db
      .selectFrom('messages')
      .selectAll()
      .where('id', '=', a.body.reply.id)
      .executeTakeFirstOrThrow();
    expect(reply.delivery_status).toBe('failed');
    const phones = await sql<{
      phone: string;
    }>`SELECT phone FROM contacts WHERE tenant_id = ${t.id} AND phone LIKE '+1555%'`.execute(h.db);
    expect(phones.rows).toEqual([{ phone: '+15550102030' }]);
  });

  it('unknown tenant: 404 Tenant not found, nothing written', async () => {
    const res = await widget({ tenant_id: 'ten_doesnotexist', email: 'x@example.com', body: 'hi' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Tenant not found' });
    const email = await h.request('POST', '/api/internal/channels/email', {
      ...internal,
      body: { tenant_id: 'ten_doesnotexist', from: 'x@example.com', body: 'hi' },
    });
    expect(email.status).toBe(404);
  });

  it.each([
    [{ email: 'a@example.com', body: 'hi' }, ['body', 'tenant_id']],
    [{ tenant_id: 'T', body: 'hi' }, ['body']],
    [{ tenant_id: 'T', email: 'not-an-email', body: 'hi' }, ['body', 'email']],
    [{ tenant_id: 'T', email: 'a@example.com', body: '' }, ['body', 'body']],
    [{ tenant_id: 'T', email: 'a@example.com', body: 'hi', sender_type: 'agent' }, ['body', 'sender_type']],
  ])('widget refuses %j with 422 at %j; nothing written', async (raw, loc) => {
    const body = JSON.parse(JSON.stringify(raw).replace('"T"', JSON.stringify(t.id)));
    const before = await tenantCounts(h, t.id);
    const res = await widget(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
    expect(await tenantCounts(h, t.id)).toEqual(before);
  });

  it.each([
    ['/api/internal/channels/email', { tenant_id: 'T', from: 'nope', body: 'x' }, ['body', 'from']],
    ['/api/internal/channels/whatsapp', { tenant_id: 'T', from: 'abc', body: 'x' }, ['body', 'from']],
    ['/api/internal/channels/whatsapp', { tenant_id: 'T', from: '+15550100000' }, ['body', 'body']],
  ])('%s refuses %j with 422', async (path, raw, loc) => {
    const body = JSON.parse(JSON.stringify(raw).replace('"T"', JSON.stringify(t.id)));
    const res = await h.request('POST', path, { ...internal, body });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
  });

  it('internal channel endpoints need the internal token (401 without, 403 for API keys)', async () => {
    const body = { tenant_id: t.id, from: 'x@example.com', body: 'hi' };
    const none = await h.request('POST', '/api/internal/channels/email', { body });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ detail: 'Missing authentication credentials' });
    const key = await t.key(['conversations:write']);
    const withKey = await h.request('POST', '/api/internal/channels/whatsapp', { apiKey: key, body });
    expect(withKey.status).toBe(403);
    expect(withKey.body).toEqual({ detail: 'API keys are not permitted for this endpoint' });
    const session = await h.request('POST', '/api/internal/channels/email', { bearer: t.adminToken, body });
    expect(session.status).toBe(401);
  });
});
