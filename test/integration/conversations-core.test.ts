import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEventsFor, eventsFor } from '../support/events';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';
import { addTeams, addTenantUsers } from '../support/people';

/** Events of `type` whose data.conversation.id is `conversationId`. */

async function insertContact(h: Harness, tenantId: string, id: string, companyId: string | null = null) {
  await sql`INSERT INTO contacts (id, tenant_id, email, company_id) VALUES (${id}, ${tenantId}, ${`${id}@example.com`}, ${companyId})`.execute(
    h.db,
  );
}

describe.skipIf(postgresUnavailable())('conversations: create, read, list, update, assign', () => {
  let h: Harness;
  let t: TestTenant;
  let other: TestTenant;
  let agent: string;
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    await addTenantUsers(h, t.id, ['user_42', 'user_1', 'user_9']);
    await addTeams(h, t.id, ['team_7', 'team_2', 'team_x', 'team_1']);
    other = await h.tenant();
    agent = await t.token('agent', 'user_agent1');
  }, 120_000);
  afterAll(() => h?.close(), 60_000);

  const create = (body: unknown = {}, bearer = agent, base = '/api/v2/conversations') =>
    h.request('POST', base, { bearer, body });
  const patch = (id: string, body: unknown, bearer = agent) =>
    h.request('PATCH', `/api/v2/conversations/${id}`, { bearer, body });
  const newConversation = async (extra: Record<string, unknown> = {}) => {
    const res = await create({ subject: 'Printer on fire', ...extra });
    expect(res.status).toBe(201);
    return res.body as { id: string; status: string; updated_at: string; [k: string]: unknown };
  };

  it('creates a conversation (201, defaults) and emits exactly one conversation.created', async () => {
    const res = await create({ subject: 'Hello', channel: 'email', tags: ['vip', 'vip', 'billing'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^cnv_/),
      tenant_id: t.id,
      contact_id: null,
      subject: 'Hello',
      status: 'open',
      channel: 'email',
      priority: 'medium',
      assignee_user_id: null,
      assignee_team_id: null,
      tags: ['vip', 'billing'],
    });
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'assignee_team_id',
        'assignee_user_id',
        'channel',
        'contact_id',
        'created_at',
        'id',
        'priority',
        'sla',
        'status',
        'subject',
        'tags',
        'tenant_id',
        'updated_at',
      ].sort(),
    );
    const events = await eventsFor(h, t.id, 'conversation.created', res.body.id);
    expect(events).toHaveLength(1);
    expect(events[0].conversation).toMatchObject({
      id: res.body.id,
      tenant_id: t.id,
      status: 'open',
      channel: 'email',
    });
    expect(await allEventsFor(h, t.id, res.body.id)).toEqual(['conversation.created']);
  });

  it('works with an API key on v1 (conversations:write / read) and refuses v2 to keys', async () => {
    const key = await t.key(['conversations:read', 'conversations:write']);
    const res = await h.request('POST', '/api/v1/conversations', {
      apiKey: key,
      body: { subject: 'via key' },
    });
    expect(res.status).toBe(201);
    expect((await h.request('GET', `/api/v1/conversations/${res.body.id}`, { apiKey: key })).status).toBe(
      200,
    );
    const readOnly = await t.key(['conversations:read']);
    const denied = await h.request('POST', '/api/v1/conversations', { apiKey: readOnly, body: {} });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ detail: 'API key missing required scope: conversations:write' });
    const v2 = await h.request('GET', '/api/v2/conversations', { apiKey: key });
    expect(v2.status).toBe(403);
  });

  it('create with a contact counts it on the contact and its company, in the same transaction', async () => {
    await sql`INSERT INTO companies (id, tenant_id, name) VALUES ('cmp_core1', ${t.id}, 'Acme')`.execute(
      h.db,
    );
    await insertContact(h, t.id, 'ctc_core1', 'cmp_core1');
    const res = await create({ contact_id: 'ctc_core1' });
    expect(res.status).toBe(201);
    expect(res.body.contact_id).toBe('ctc_core1');
    await create({ contact_id: 'ctc_core1' });
    const contact = await sql<{
      n: number;
    }>`SELECT conversation_count AS n FROM contacts WHERE id = 'ctc_core1'`.execute(h.db);
    const company = await sql<{
      n: number;
    }>`SELECT conversation_count AS n FROM companies WHERE id = 'cmp_core1'`.execute(h.db);
    expect(Number(contact.rows[0]!.n)).toBe(2);
    expect(Number(company.rows[0]!.n)).toBe(2);
  });

  it("refuses another tenant's, an unknown or a deleted contact with 422 and writes nothing", async () => {
    await insertContact(h, other.id, 'ctc_other1');
    await insertContact(h, t.id, 'ctc_deleted1');
    await sql`UPDATE contacts SET deleted_at = now() WHERE id = 'ctc_deleted1'`.execute(h.db);
    const before = await h.db
      .selectFrom('conversations')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const beforeEvents = await h.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    for (const contact_id of ['ctc_other1', 'ctc_nope', 'ctc_deleted1']) {
      const res = await create({ contact_id });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [{ loc: ['body', 'contact_id'], msg: 'Contact not found', type: 'value_error' }],
      });
    }
    const after = await h.db
      .selectFrom('conversations')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const afterEvents = await h.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect(Number(afterEvents.n)).toBe(Number(beforeEvents.n));
    const otherContact = await sql<{
      n: number;
    }>`SELECT conversation_count AS n FROM contacts WHERE id = 'ctc_other1'`.execute(h.db);
    expect(Number(otherContact.rows[0]!.n)).toBe(0);
  });

  it.each([
    [{ channel: 'fax' }, ['body', 'channel'], 'enum'],
    [{ priority: 'extreme' }, ['body', 'priority'], 'enum'],
    [{ subject: 's'.repeat(501) }, ['body', 'subject'], 'string_too_long'],
    [{ tags: 'vip' }, ['body', 'tags'], 'array_type'],
    [{ tags: [''] }, ['body', 'tags', 0], 'string_too_short'],
    [{ tenant_id: 'ten_x' }, ['body', 'tenant_id'], 'extra_forbidden'],
    [{ status: 'resolved' }, ['body', 'status'], 'extra_forbidden'],
  ])('create refuses %j with 422 at %j', async (body, loc, type) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
  });

  it('malformed JSON is a 422 json_invalid', async () => {
    const res = await h.request('POST', '/api/v2/conversations', {
      bearer: agent,
      rawBody: '{"subject":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].type).toBe('json_invalid');
  });

  it('get: 404 with the spec shape for unknown and malformed ids', async () => {
    for (const id of ['cnv_0000000000000000000000', 'nope', 'msg_123']) {
      const res = await h.request('GET', `/api/v2/conversations/${id}`, { bearer: agent });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Conversation not found' });
    }
  });

  // ---- status rules: each row its own test ----

  const transitions: [string[], string, string | null][] = [
    [[], 'resolved', 'conversation.resolved'],
    [[], 'closed', 'conversation.resolved'],
    [['waiting'], 'resolved', 'conversation.resolved'],
    [['waiting'], 'closed', 'conversation.resolved'],
    [['resolved'], 'open', 'conversation.reopened'],
    [['closed'], 'open', 'conversation.reopened'],
    [['resolved'], 'waiting', 'conversation.reopened'],
    [[], 'waiting', null],
    [['waiting'], 'open', null],
    [['resolved'], 'closed', null],
    [['closed'], 'resolved', null],
    [[], 'open', null],
    [['waiting'], 'waiting', null],
    [['resolved'], 'resolved', null],
  ];
  it.each(transitions)(
    'status via %j then -> %s emits %s (exactly once or none)',
    async (path, to, expected) => {
      const conv = await newConversation();
      let previous = 'open';
      for (const s of path) {
        expect((await patch(conv.id, { status: s })).status).toBe(200);
        previous = s;
      }
      const before = await allEventsFor(h, t.id, conv.id);
      const res = await patch(conv.id, { status: to });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(to);
      const after = await allEventsFor(h, t.id, conv.id);
      const added = after.slice(before.length);
      if (expected === null) {
        expect(after.length).toBe(before.length);
      } else {
        expect(added).toEqual([expected]);
        const events = await eventsFor(h, t.id, expected, conv.id);
        const last = events[events.length - 1];
        expect(last.previous_status).toBe(previous);
        expect(last.conversation).toMatchObject({ id: conv.id, status: to });
      }
    },
  );

  it('priority, tag and subject edits emit nothing; a no-op PATCH keeps updated_at', async () => {
    const conv = await newConversation();
    const res = await patch(conv.id, { priority: 'urgent', tags: ['a', 'b'], subject: 'New subject' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      priority: 'urgent',
      tags: ['a', 'b'],
      subject: 'New subject',
      status: 'open',
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(conv.updated_at));
    const same = await patch(conv.id, { priority: 'urgent', status: 'open' });
    expect(same.status).toBe(200);
    expect(same.body.updated_at).toBe(res.body.updated_at);
    expect(await allEventsFor(h, t.id, conv.id)).toEqual(['conversation.created']);
  });

  it.each([
    [{}, ['body'], 'value_error'],
    [{ status: 'pending' }, ['body', 'status'], 'enum'],
    [{ priority: 'p1' }, ['body', 'priority'], 'enum'],
    [{ assignee_user_id: 'u' }, ['body', 'assignee_user_id'], 'extra_forbidden'],
    [{ tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, ['body', 'tags'], 'too_long'],
  ])('PATCH refuses %j with 422 at %j and changes nothing', async (body, loc, type) => {
    const conv = await newConversation();
    const res = await patch(conv.id, body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    const now = await h.request('GET', `/api/v2/conversations/${conv.id}`, { bearer: agent });
    expect(now.body).toEqual(conv);
  });

  it('a PATCH with a valid status and an invalid field changes nothing and emits nothing', async () => {
    const conv = await newConversation();
    const res = await patch(conv.id, { status: 'resolved', priority: 'nope' });
    expect(res.status).toBe(422);
    expect((await h.request('GET', `/api/v2/conversations/${conv.id}`, { bearer: agent })).body.status).toBe(
      'open',
    );
    expect(await eventsFor(h, t.id, 'conversation.resolved', conv.id)).toHaveLength(0);
  });

  // ---- assignment ----

  it('first assignment emits one conversation.assigned with manual_assignment', async () => {
    const conv = await newConversation();
    const res = await h.request('POST', `/api/v2/conversations/${conv.id}/assign`, {
      bearer: agent,
      body: { assignee_user_id: 'user_42', assignee_team_id: 'team_7' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ assignee_user_id: 'user_42', assignee_team_id: 'team_7' });
    const events = await eventsFor(h, t.id, 'conversation.assigned', conv.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      routing_reason: 'manual_assignment',
      conversation: { id: conv.id, assignee_user_id: 'user_42', assignee_team_id: 'team_7' },
    });
  });

  it('a change of assignee defaults to manual_reassignment; team-only keeps the user', async () => {
    const conv = await newConversation();
    const assign = (body: unknown) =>
      h.request('POST', `/api/v2/conversations/${conv.id}/assign`, { bearer: agent, body });
    expect((await assign({ assignee_user_id: 'user_1' })).status).toBe(200);
    const res = await assign({ assignee_team_id: 'team_2' });
    expect(res.body).toMatchObject({ assignee_user_id: 'user_1', assignee_team_id: 'team_2' });
    const events = await eventsFor(h, t.id, 'conversation.assigned', conv.id);
    expect(events.map((e) => e.routing_reason)).toEqual(['manual_assignment', 'manual_reassignment']);
  });

  it.each(['auto_assignment', 'auto_reassignment', 'balanced', 'round_robin'])(
    'routing_reason %s is carried top-level',
    async (reason) => {
      const conv = await newConversation();
      const res = await h.request('POST', `/api/v2/conversations/${conv.id}/assign`, {
        bearer: agent,
        body: { assignee_team_id: 'team_x', routing_reason: reason },
      });
      expect(res.status).toBe(200);
      const events = await eventsFor(h, t.id, 'conversation.assigned', conv.id);
      expect(events).toHaveLength(1);
      expect(events[0].routing_reason).toBe(reason);
    },
  );

  it('assigning to the current assignee changes nothing and emits nothing', async () => {
    const conv = await newConversation();
    const assign = () =>
      h.request('POST', `/api/v2/conversations/${conv.id}/assign`, {
        bearer: agent,
        body: { assignee_user_id: 'user_9' },
      });
    expect((await assign()).status).toBe(200);
    expect((await assign()).status).toBe(200);
    expect(await eventsFor(h, t.id, 'conversation.assigned', conv.id)).toHaveLength(1);
  });

  it('null clears an assignment, as documented; clearing what is already clear emits nothing', async () => {
    const conv = await newConversation();
    const assign = (body: unknown) =>
      h.request('POST', `/api/v2/conversations/${conv.id}/assign`, { bearer: agent, body });
    expect((await assign({ assignee_user_id: 'user_1', assignee_team_id: 'team_1' })).status).toBe(200);
    const cleared = await assign({ assignee_user_id: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ assignee_user_id: null, assignee_team_id: 'team_1' });
    const both = await assign({ assignee_user_id: null, assignee_team_id: null });
    expect(both.body).toMatchObject({ assignee_user_id: null, assignee_team_id: null });
    const read = await h.request('GET', `/api/v2/conversations/${conv.id}`, { bearer: agent });
    expect(read.body).toMatchObject({ assignee_user_id: null, assignee_team_id: null });
    expect((await assign({ assignee_team_id: null })).status).toBe(200);
    expect(await eventsFor(h, t.id, 'conversation.assigned', conv.id)).toHaveLength(3);
  });

  it.each([
    [{}, ['body']],
    [{ assignee_user_id: 'u', routing_reason: 'because' }, ['body', 'routing_reason']],
    [{ assignee_user_id: '' }, ['body', 'assignee_user_id']],
    [{ assignee_user_id: 5 }, ['body', 'assignee_user_id']],
  ])('assign refuses %j with 422 and emits nothing', async (body, loc) => {
    const conv = await newConversation();
    const res = await h.request('POST', `/api/v2/conversations/${conv.id}/assign`, { bearer: agent, body });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
    expect(await eventsFor(h, t.id, 'conversation.assigned', conv.id)).toHaveLength(0);
  });

  // ---- tenant isolation ----

  it('tenant B cannot see, list, patch or assign tenant A conversations (404, nothing changes)', async () => {
    const conv = await newConversation();
    const b = await other.token('tenant_admin');
    const bKey = await other.key(['conversations:read', 'conversations:write']);
    const attempts: [string, string, unknown][] = [
      ['GET', `/api/v2/conversations/${conv.id}`, undefined],
      ['PATCH', `/api/v2/conversations/${conv.id}`, { status: 'resolved' }],
      ['POST', `/api/v2/conversations/${conv.id}/assign`, { assignee_user_id: 'user_b' }],
    ];
    for (const [method, path, body] of attempts) {
      const viaSession = await h.request(method, path, { bearer: b, body });
      expect(viaSession.status).toBe(404);
      expect(viaSession.body).toEqual({ detail: 'Conversation not found' });
      const viaKey = await h.request(method, path.replace('/v2/', '/v1/'), { apiKey: bKey, body });
      expect(viaKey.status).toBe(404);
    }
    const list = await h.request('GET', '/api/v2/conversations?limit=100', { bearer: b });
    expect(list.body.conversations.map((c: { id: string }) => c.id)).not.toContain(conv.id);
    const still = await h.request('GET', `/api/v2/conversations/${conv.id}`, { bearer: agent });
    expect(still.body).toEqual(conv);
    expect(await allEventsFor(h, t.id, conv.id)).toEqual(['conversation.created']);
    expect(await allEventsFor(h, other.id, conv.id)).toEqual([]);
  });
});

describe.skipIf(postgresUnavailable())('conversations: list filters, pagination, updated_since, sort', () => {
  let h: Harness;
  let t: TestTenant;
  let token: string;
  const ids: string[] = [];
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    token = t.adminToken;
    await addTenantUsers(h, t.id, ['user_list']);
    await addTeams(h, t.id, ['team_list']);
    await insertContact(h, t.id, 'ctc_list1');
    const specs = [
      { channel: 'email', contact_id: 'ctc_list1' },
      { channel: 'widget' },
      { channel: 'email' },
      { channel: 'whatsapp', contact_id: 'ctc_list1' },
      { channel: 'api' },
    ];
    for (const body of specs) {
      const res = await h.request('POST', '/api/v2/conversations', { bearer: token, body });
      ids.push(res.body.id);
    }
    // known, distinct timestamps: created_at ascending in creation order, updated_at in another order
    const base = Date.parse('2026-11-01T00:00:00.000Z');
    const updatedOrder = [3, 0, 4, 1, 2];
    for (const [i, id] of ids.entries()) {
      await h.db
        .updateTable('conversations')
        .set({
          created_at: new Date(base + i * 60_000),
          updated_at: new Date(base + 3_600_000 + updatedOrder[i]! * 60_000),
        })
        .where('id', '=', id)
        .execute();
    }
    await h.request('POST', `/api/v2/conversations/${ids[1]}/assign`, {
      bearer: token,
      body: { assignee_user_id: 'user_list', assignee_team_id: 'team_list' },
    });
    await h.db
      .updateTable('conversations')
      .set({ updated_at: new Date(base + 3_600_000 + 60_000), status: 'waiting' })
      .where('id', '=', ids[1]!)
      .execute();
  }, 120_000);
  afterAll(() => h?.close(), 60_000);

  const list = (qs = '') => h.request('GET', `/api/v2/conversations${qs}`, { bearer: token });
  const idsOf = (res: { body: { conversations: { id: string }[] } }) =>
    res.body.conversations.map((c) => c.id);

  it('default: newest first, envelope {conversations, total, limit, offset}, default limit 20', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'conversations',
      'limit',
      'next_cursor',
      'offset',
      'total',
    ]);
    expect(res.body).toMatchObject({ total: 5, limit: 20, offset: 0 });
    expect(idsOf(res)).toEqual([...ids].reverse());
  });

  it('paginates: total counts all matches, pages do not overlap', async () => {
    const p1 = await list('?limit=2&offset=0');
    const p2 = await list('?limit=2&offset=2');
    const p3 = await list('?limit=2&offset=4');
    expect([p1.body.total, p2.body.total, p3.body.total]).toEqual([5, 5, 5]);
    expect([...idsOf(p1), ...idsOf(p2), ...idsOf(p3)]).toEqual([...ids].reverse());
    expect((await list('?offset=99')).body.conversations).toEqual([]);
  });

  it.each([
    '?limit=0',
    '?limit=101',
    '?offset=-1',
    '?limit=abc',
    '?status=pending',
    '?channel=fax',
    '?sort=name',
    '?updated_since=yesterday',
  ])('%s is a 422', async (qs) => {
    const res = await list(qs);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: expect.arrayContaining(['query']),
      msg: expect.any(String),
      type: expect.any(String),
    });
  });

  it('limit 100 is accepted', async () => {
    expect((await list('?limit=100')).status).toBe(200);
  });

  it('filters: status, channel, contact, assignee user and team', async () => {
    expect(idsOf(await list('?status=waiting'))).toEqual([ids[1]]);
    expect((await list('?status=open')).body.total).toBe(4);
    expect(idsOf(await list('?channel=email&sort=created_at'))).toEqual([ids[0], ids[2]]);
    expect(idsOf(await list('?contact_id=ctc_list1&sort=created_at'))).toEqual([ids[0], ids[3]]);
    expect(idsOf(await list('?assignee_user_id=user_list'))).toEqual([ids[1]]);
    expect(idsOf(await list('?assignee_team_id=team_list'))).toEqual([ids[1]]);
    expect((await list('?assignee_user_id=nobody')).body).toMatchObject({ conversations: [], total: 0 });
    expect(idsOf(await list('?channel=email&contact_id=ctc_list1'))).toEqual([ids[0]]);
  });

  it('sort=updated_at is ascending by updated_at then id', async () => {
    // setup: updated_at slots are ids[0]=3, ids[1]=1 (forced), ids[2]=4, ids[3]=1, ids[4]=2 minutes
    const res = await list('?sort=updated_at');
    const rows = res.body.conversations as { id: string; updated_at: string }[];
    const expected = [...rows].sort(
      (a, b) => a.updated_at.localeCompare(b.updated_at) || a.id.localeCompare(b.id),
    );
    expect(rows.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    // ids[1] and ids[3] share updated_at: the smaller id comes first
    const tied = rows.filter((r) => r.updated_at === '2026-11-01T01:01:00.000Z').map((r) => r.id);
    expect(tied).toEqual([ids[1]!, ids[3]!].sort());
    expect(rows.map((r) => r.updated_at)).toEqual([
      '2026-11-01T01:01:00.000Z',
      '2026-11-01T01:01:00.000Z',
      '2026-11-01T01:02:00.000Z',
      '2026-11-01T01:03:00.000Z',
      '2026-11-01T01:04:00.000Z',
    ]);
    expect(rows.map((r) => r.id).slice(2)).toEqual([ids[4], ids[0], ids[2]]);
  });

  it('updated_since is inclusive at the exact boundary and excludes one millisecond later', async () => {
    const at = await list('?sort=updated_at&updated_since=2026-11-01T01:02:00.000Z');
    expect(at.body.total).toBe(3);
    expect(at.body.conversations.map((c: { updated_at: string }) => c.updated_at)).toEqual([
      '2026-11-01T01:02:00.000Z',
      '2026-11-01T01:03:00.000Z',
      '2026-11-01T01:04:00.000Z',
    ]);
    const after = await list('?sort=updated_at&updated_since=2026-11-01T01:02:00.001Z');
    expect(after.body.conversations.map((c: { updated_at: string }) => c.updated_at)).toEqual([
      '2026-11-01T01:03:00.000Z',
      '2026-11-01T01:04:00.000Z',
    ]);
    const before = await list('?sort=updated_at&updated_since=2026-11-01T01:01:59.999Z');
    expect(before.body.total).toBe(3);
    const tiedBoundary = await list('?sort=updated_at&updated_since=2026-11-01T01:01:00.000Z');
    expect(idsOf(tiedBoundary).slice(0, 2)).toEqual([ids[1]!, ids[3]!].sort());
    const offset = await list('?sort=updated_at&updated_since=2026-11-01T02:02:00%2B01:00');
    expect(offset.body.total).toBe(3);
    expect((await list('?updated_since=2026-11-01T01:04:00.001Z')).body).toMatchObject({
      conversations: [],
      total: 0,
    });
    expect((await list('?updated_since=2026-01-01T00:00:00Z')).body.total).toBe(5);
  });

  it('updated_since + sort=updated_at pages through with offset', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 5; offset += 2) {
      const res = await list(`?sort=updated_at&updated_since=2026-11-01T00:00:00Z&limit=2&offset=${offset}`);
      seen.push(...idsOf(res));
    }
    expect(new Set(seen).size).toBe(5);
  });

  it('another tenant lists none of them', async () => {
    const other = await h.tenant();
    const res = await h.request('GET', '/api/v2/conversations', { bearer: other.adminToken });
    expect(res.body).toMatchObject({ conversations: [], total: 0 });
    const filtered = await h.request('GET', '/api/v2/conversations?contact_id=ctc_list1', {
      bearer: other.adminToken,
    });
    expect(filtered.body.total).toBe(0);
  });
});
