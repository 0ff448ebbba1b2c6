import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelSender, ChannelSenders } from '../../shared/context/conversation-ports';
import { allEventsFor, eventsFor } from '../support/events';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

const messageRow = (h: Harness, id: string) =>
  h.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const countMessages = async (h: Harness, conversationId: string) =>
  Number(
    (
      await h.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('conversation_id', '=', conversationId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe.skipIf(postgresUnavailable())('conversation messages: notes, replies, outbound send', () => {
  let h: Harness;
  let t: TestTenant;
  let agent: string;
  // this file's runtime's senders, handed to it once: a test puts its own in, afterEach takes them out
  const senders: ChannelSenders = {};
  beforeAll(async () => {
    h = await startHarness({}, { channelSenders: senders });
    t = await h.tenant();
    agent = await t.token('agent', 'user_agent7');
  }, 120_000);
  afterAll(() => h?.close(), 60_000);
  afterEach(() => {
    for (const channel of Object.keys(senders)) delete senders[channel as keyof ChannelSenders];
  });

  const newConversation = async (channel = 'email') => {
    const res = await h.request('POST', '/api/v2/conversations', { bearer: agent, body: { channel } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const post = (
    id: string,
    body: unknown,
    options: { bearer?: string; apiKey?: string } = { bearer: agent },
  ) =>
    h.request(
      'POST',
      `/api/v2/conversations/${id}/messages`.replace('/v2/', options.apiKey ? '/v1/' : '/v2/'),
      {
        ...options,
        body,
      },
    );

  it('an internal note emits exactly one conversation.note_added and no message.sent', async () => {
    const id = await newConversation();
    const res = await post(id, { body: 'Customer is a VIP', is_internal: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      conversation_id: id,
      sender_type: 'agent',
      sender_id: 'user_agent7',
      is_internal: true,
      source: 'dashboard',
      delivery_status: null,
    });
    const notes = await eventsFor(h, t.id, 'conversation.note_added', id);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      conversation: { id },
      note: {
        id: res.body.id,
        body: 'Customer is a VIP',
        sender_id: 'user_agent7',
        created_at: res.body.created_at,
      },
    });
    expect(await eventsFor(h, t.id, 'message.sent', id)).toHaveLength(0);
    expect(await allEventsFor(h, t.id, id)).toEqual(['conversation.created', 'conversation.note_added']);
  });

  it('an agent reply emits exactly one message.sent (sender_type agent) and no note_added', async () => {
    const id = await newConversation();
    const res = await post(id, { body: 'We are on it' });
    expect(res.status).toBe(201);
    const sent = await eventsFor(h, t.id, 'message.sent', id);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      message: {
        id: res.body.id,
        conversation_id: id,
        body: 'We are on it',
        sender_type: 'agent',
        sender_id: 'user_agent7',
        content_type: 'text',
        source: 'dashboard',
        is_internal: false,
      },
      conversation: { id, channel: 'email' },
    });
    expect(await eventsFor(h, t.id, 'conversation.note_added', id)).toHaveLength(0);
    expect(await allEventsFor(h, t.id, id)).toEqual(['conversation.created', 'message.sent']);
  });

  it('message.sent is committed before the channel send and survives a failing send', async () => {
    let calls = 0;
    const failing: ChannelSender = {
      async send() {
        calls++;
        throw new Error('SMTP 554 rejected');
      },
    };
    senders.email = failing;
    const id = await newConversation('email');
    const res = await post(id, { body: 'Reply that will bounce' });
    expect(res.status).toBe(201);
    expect(res.body.delivery_status).toBe('queued');
    await h.runtime.drain();
    expect(calls).toBe(1);
    const row = await messageRow(h, res.body.id);
    expect(row.delivery_status).toBe('failed');
    expect(row.delivery_error).toBe('SMTP 554 rejected');
    expect(await eventsFor(h, t.id, 'message.sent', id)).toHaveLength(1);
  });

  it('a working sender receives the committed message and marks it sent', async () => {
    const seen: { id: string; eventsAtSend: number }[] = [];
    senders.whatsapp = {
      async send({ message }) {
        seen.push({
          id: message.id,
          eventsAtSend: (await eventsFor(h, t.id, 'message.sent', message.conversation_id)).length,
        });
      },
    };
    const id = await newConversation('whatsapp');
    const res = await post(id, { body: 'Hi from WhatsApp' });
    await h.runtime.drain();
    expect(seen).toEqual([{ id: res.body.id, eventsAtSend: 1 }]);
    expect((await messageRow(h, res.body.id)).delivery_status).toBe('sent');
  });

  it('no sender for the channel: delivery_status skipped; internal notes are never sent', async () => {
    let calls = 0;
    senders.email = {
      async send() {
        calls++;
      },
    };
    const api = await newConversation('api');
    const reply = await post(api, { body: 'api channel' });
    expect(reply.body.delivery_status).toBe('skipped');
    const email = await newConversation('email');
    await post(email, { body: 'note', is_internal: true });
    await h.runtime.drain();
    expect(calls).toBe(0);
  });

  it("a sender is its runtime's: another runtime (as another test file starts) sends nothing through it", async () => {
    let calls = 0;
    senders.email = {
      async send() {
        calls++;
      },
    };
    const other = await startHarness();
    try {
      const tenant = await other.tenant();
      const token = await tenant.token('agent', 'user_agent7');
      const created = await other.request('POST', '/api/v2/conversations', {
        bearer: token,
        body: { channel: 'email' },
      });
      const reply = await other.request('POST', `/api/v2/conversations/${created.body.id}/messages`, {
        bearer: token,
        body: { body: 'from the other runtime' },
      });
      expect(reply.status).toBe(201);
      expect(reply.body.delivery_status).toBe('skipped');
      await other.runtime.drain();
    } finally {
      await other.close();
    }
    expect(calls).toBe(0);
    // while this file's runtime still sends through it
    const mine = await post(await newConversation('email'), { body: 'from this runtime' });
    expect(mine.body.delivery_status).toBe('queued');
    await h.runtime.drain();
    expect(calls).toBe(1);
  }, 120_000);

  it('API key on v1 posts replies; sender_id names the key', async () => {
    const key = await t.key(['conversations:read', 'conversations:write']);
    const id = await newConversation();
    const res = await post(id, { body: 'from an integration' }, { apiKey: key });
    expect(res.status).toBe(201);
    expect(res.body.sender_id).toMatch(/^api_key:key_/);
  });

  it.each([
    [{}, ['body', 'body'], 'missing'],
    [{ body: '' }, ['body', 'body'], 'string_too_short'],
    [{ body: '   ' }, ['body', 'body'], 'string_too_short'],
    [{ body: 'x'.repeat(20_001) }, ['body', 'body'], 'string_too_long'],
    [{ body: 'ok', is_internal: 'yes' }, ['body', 'is_internal'], 'boolean_type'],
    [{ body: 'ok', content_type: 'pdf' }, ['body', 'content_type'], 'enum'],
    [{ body: 'ok', sender_type: 'ai' }, ['body', 'sender_type'], 'extra_forbidden'],
  ])('refuses %j with 422 at %j; no message, no event', async (body, loc, type) => {
    const id = await newConversation();
    const res = await post(id, body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect(await countMessages(h, id)).toBe(0);
    expect(await allEventsFor(h, t.id, id)).toEqual(['conversation.created']);
  });

  it('lists messages oldest first with the envelope; 422 outside limits', async () => {
    const id = await newConversation();
    for (const body of ['one', 'two', 'three']) expect((await post(id, { body })).status).toBe(201);
    const all = await h.request('GET', `/api/v2/conversations/${id}/messages`, { bearer: agent });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(all.body.messages.map((m: { body: string }) => m.body)).toEqual(['one', 'two', 'three']);
    const page = await h.request('GET', `/api/v2/conversations/${id}/messages?limit=1&offset=1`, {
      bearer: agent,
    });
    expect(page.body.messages.map((m: { body: string }) => m.body)).toEqual(['two']);
    expect(page.body.total).toBe(3);
    for (const qs of ['limit=0', 'limit=201', 'offset=-1']) {
      const bad = await h.request('GET', `/api/v2/conversations/${id}/messages?${qs}`, { bearer: agent });
      expect(bad.status).toBe(422);
    }
  });

  it('a reply bumps the conversation updated_at', async () => {
    const id = await newConversation();
    await h.db
      .updateTable('conversations')
      .set({ updated_at: new Date('2026-01-01T00:00:00Z') })
      .where('id', '=', id)
      .execute();
    await post(id, { body: 'bump' });
    const conv = await h.request('GET', `/api/v2/conversations/${id}`, { bearer: agent });
    expect(Date.parse(conv.body.updated_at)).toBeGreaterThan(Date.parse('2026-01-01T00:00:00Z'));
  });

  it("tenant B can neither read nor post to tenant A's conversation messages", async () => {
    const id = await newConversation();
    await post(id, { body: 'secret', is_internal: true });
    const other = await h.tenant();
    const bKey = await other.key(['conversations:read', 'conversations:write']);
    const get = await h.request('GET', `/api/v2/conversations/${id}/messages`, { bearer: other.adminToken });
    expect(get.status).toBe(404);
    expect(get.body).toEqual({ detail: 'Conversation not found' });
    expect((await h.request('GET', `/api/v1/conversations/${id}/messages`, { apiKey: bKey })).status).toBe(
      404,
    );
    const write = await h.request('POST', `/api/v2/conversations/${id}/messages`, {
      bearer: other.adminToken,
      body: { body: 'intrusion' },
    });
    expect(write.status).toBe(404);
    const viaKey = await h.request('POST', `/api/v1/conversations/${id}/messages`, {
      apiKey: bKey,
      body: { body: 'x' },
    });
    expect(viaKey.status).toBe(404);
    expect(await countMessages(h, id)).toBe(1);
    expect(await allEventsFor(h, t.id, id)).toEqual(['conversation.created', 'conversation.note_added']);
    expect(await allEventsFor(h, other.id, id)).toEqual([]);
  });
});
