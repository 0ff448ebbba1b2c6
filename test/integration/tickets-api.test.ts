import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TICKET_STATUSES, TICKET_TRANSITIONS } from '../../functions/tickets/schemas';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';
import { addEndUsers, addTenantUsers } from '../support/people';

describe.skipIf(postgresUnavailable())('Tickets API', () => {
  let h: Harness;
  let t: TestTenant;
  let rw: string;
  let ro: string;
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    await addEndUsers(h, t.id, ['eu_42']);
    await addTenantUsers(h, t.id, ['agent_1']);
    rw = await t.key(['tickets:read', 'tickets:write']);
    ro = await t.key(['tickets:read']);
  });
  afterAll(() => h?.close());

  const events = (tenantId: string, type?: string) => {
    let q = h.db.selectFrom('events').selectAll().where('tenant_id', '=', tenantId);
    if (type) q = q.where('event_type', '=', type);
    return q.orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
  };
  const countTickets = async (tenantId: string) =>
    Number(
      (
        await h.db
          .selectFrom('tickets')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('tenant_id', '=', tenantId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const create = (body: unknown, apiKey = rw) => h.request('POST', '/api/v1/tickets', { apiKey, body });

  it('creates a ticket: 201, full record, defaults, exactly one ticket.created', async () => {
    const res = await create({
      subject: '  VPN down  ',
      description: 'Cannot connect since 9am',
      priority: 'high',
      type: 'incident',
      requester_id: 'eu_42',
      requester_name: 'Ada',
      requester_email: 'ada@example.com',
      tags: ['vpn', 'network', 'vpn'],
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/tickets/${res.body.id}`);
    expect(res.body).toMatchObject({
      subject: 'VPN down',
      description: 'Cannot connect since 9am',
      status: 'open',
      priority: 'high',
      type: 'incident',
      source: 'api',
      requester_id: 'eu_42',
      requester_name: 'Ada',
      requester_email: 'ada@example.com',
      assignee_id: null,
      tags: ['vpn', 'network'],
      call_id: null,
      reply_count: 0,
      resolved_at: null,
      closed_at: null,
    });
    expect(res.body.id).toMatch(/^tkt_/);
    expect(res.body.created_by).toMatch(/^api_key:key_/);
    expect(res.body.created_at).toBe(res.body.updated_at);
    const created = await events(t.id, 'ticket.created');
    expect(created).toHaveLength(1);
    const data = created[0]!.payload as any;
    expect(data.ticket).toMatchObject({
      id: res.body.id,
      subject: 'VPN down',
      status: 'open',
      priority: 'high',
    });
    for (const f of ['id', 'subject', 'status', 'priority']) expect(typeof data.ticket[f]).toBe('string');

    const got = await h.request('GET', `/api/v1/tickets/${res.body.id}`, { apiKey: ro });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('a dashboard session creates with source dashboard and created_by user:<sub>', async () => {
    const res = await h.request('POST', '/api/v1/tickets', {
      bearer: await t.token('agent', 'agent_7'),
      body: { subject: 'from the dashboard' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ source: 'dashboard', created_by: 'user:agent_7', priority: 'medium' });
  });

  it.each([
    [{}, ['body', 'subject'], 'missing'],
    [{ subject: '' }, ['body', 'subject'], 'string_too_short'],
    [{ subject: '   ' }, ['body', 'subject'], 'string_too_short'],
    [{ subject: 's'.repeat(256) }, ['body', 'subject'], 'string_too_long'],
    [{ subject: 42 }, ['body', 'subject'], 'string_type'],
    [{ subject: 'x', description: 'd'.repeat(20_001) }, ['body', 'description'], 'string_too_long'],
    [{ subject: 'x', priority: 'critical' }, ['body', 'priority'], 'enum'],
    [{ subject: 'x', status: 'resolved' }, ['body', 'status'], 'enum'],
    [{ subject: 'x', status: 'bogus' }, ['body', 'status'], 'enum'],
    [{ subject: 'x', type: 'bug' }, ['body', 'type'], 'enum'],
    [{ subject: 'x', source: 'fax' }, ['body', 'source'], 'enum'],
    [{ subject: 'x', requester_email: 'not-an-email' }, ['body', 'requester_email'], 'value_error'],
    [{ subject: 'x', tags: 'vpn' }, ['body', 'tags'], 'array_type'],
    [{ subject: 'x', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, ['body', 'tags'], 'too_long'],
    [{ subject: 'x', tags: ['t'.repeat(51)] }, ['body', 'tags', 0], 'string_too_long'],
    [{ subject: 'x', requester_id: 'r'.repeat(129) }, ['body', 'requester_id'], 'string_too_long'],
    [{ subject: 'x', id: 'tkt_mine' }, ['body', 'id'], 'extra_forbidden'],
    [{ subject: 'x', tenant_id: 'ten_other' }, ['body', 'tenant_id'], 'extra_forbidden'],
  ])('POST %j -> 422 at %j (%s), nothing written', async (body, loc, type) => {
    const before = await countTickets(t.id);
    const eventsBefore = (await events(t.id)).length;
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([expect.objectContaining({ loc, type, msg: expect.any(String) })]),
    );
    expect(await countTickets(t.id)).toBe(before);
    expect((await events(t.id)).length).toBe(eventsBefore);
  });

  it('malformed JSON and a non-object body are 422', async () => {
    const bad = await h.request('POST', '/api/v1/tickets', {
      apiKey: rw,
      rawBody: '{"subject":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe('json_invalid');
    const arr = await create(['subject']);
    expect(arr.status).toBe(422);
  });

  it('a call_id of another tenant (or unknown) is 422 at body.call_id', async () => {
    const res = await create({ subject: 'x', call_id: 'call_nope' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'call_id'], msg: 'Call not found', type: 'value_error' },
    ]);
  });

  it('scopes: tickets:read cannot write; no key is 401', async () => {
    const res = await create({ subject: 'x' }, ro);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'API key missing required scope: tickets:write' });
    const none = await h.request('GET', '/api/v1/tickets');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ detail: 'Missing authentication credentials' });
  });

  it('unknown id is 404 Ticket not found for every verb', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/v1/tickets/tkt_missing', undefined],
      ['PATCH', '/api/v1/tickets/tkt_missing', { priority: 'low' }],
      ['POST', '/api/v1/tickets/tkt_missing/replies', { body: 'hi' }],
      ['GET', '/api/v1/tickets/tkt_missing/replies', undefined],
    ] as const) {
      const res = await h.request(method, path, { apiKey: rw, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ detail: 'Ticket not found' });
    }
  });

  describe('PATCH', () => {
    it('changes fields: 200, one ticket.updated with changes {from,to}, updated_at moves', async () => {
      const created = (await create({ subject: 'printer', priority: 'low', tags: ['a'] })).body;
      const before = (await events(t.id, 'ticket.updated')).length;
      const res = await h.request('PATCH', `/api/v1/tickets/${created.id}`, {
        apiKey: rw,
        body: { priority: 'urgent', assignee_id: 'agent_1', tags: ['a', 'b'], subject: 'printer' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ priority: 'urgent', assignee_id: 'agent_1', tags: ['a', 'b'] });
      expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
      const updated = await events(t.id, 'ticket.updated');
      expect(updated).toHaveLength(before + 1);
      const data = updated.at(-1)!.payload as any;
      expect(data.ticket).toMatchObject({
        id: created.id,
        subject: 'printer',
        status: 'open',
        priority: 'urgent',
      });
      expect(data.changes).toEqual({
        priority: { from: 'low', to: 'urgent' },
        assignee_id: { from: null, to: 'agent_1' },
        tags: { from: ['a'], to: ['a', 'b'] },
      });
    });

    it('a PATCH that changes nothing emits nothing and keeps updated_at', async () => {
      const created = (await create({ subject: 'same', priority: 'low' })).body;
      const before = (await events(t.id)).length;
      for (const body of [{}, { priority: 'low' }, { subject: 'same', tags: [] }]) {
        const res = await h.request('PATCH', `/api/v1/tickets/${created.id}`, { apiKey: rw, body });
        expect(res.status).toBe(200);
        expect(res.body.updated_at).toBe(created.updated_at);
      }
      expect((await events(t.id)).length).toBe(before);
    });

    it('moving into resolved emits ticket.updated and ticket.resolved once; resolved -> closed does not re-resolve', async () => {
      const created = (await create({ subject: 'resolve me', status: 'open' })).body;
      const resolvedBefore = (await events(t.id, 'ticket.resolved')).length;
      const res = await h.request('PATCH', `/api/v1/tickets/${created.id}`, {
        apiKey: rw,
        body: { status: 'resolved' },
      });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('resolved');
      expect(res.body.resolved_at).not.toBeNull();
      const resolved = await events(t.id, 'ticket.resolved');
      expect(resolved).toHaveLength(resolvedBefore + 1);
      expect(resolved.at(-1)!.payload).toMatchObject({
        ticket: { id: created.id, status: 'resolved', subject: 'resolve me', priority: 'medium' },
        previous_status: 'open',
      });
      const closed = await h.request('PATCH', `/api/v1/tickets/${created.id}`, {
        apiKey: rw,
        body: { status: 'closed' },
      });
      expect(closed.status).toBe(200);
      expect(closed.body.closed_at).not.toBeNull();
      expect(await events(t.id, 'ticket.resolved')).toHaveLength(resolvedBefore + 1);
    });

    it('open -> closed directly counts as resolving (closed is the terminal side too)', async () => {
      const created = (await create({ subject: 'close me', status: 'pending' })).body;
      const before = (await events(t.id, 'ticket.resolved')).length;
      await h.request('PATCH', `/api/v1/tickets/${created.id}`, { apiKey: rw, body: { status: 'closed' } });
      const resolved = await events(t.id, 'ticket.resolved');
      expect(resolved).toHaveLength(before + 1);
      expect((resolved.at(-1)!.payload as any).previous_status).toBe('pending');
    });

    it('reopening resolved clears resolved_at and emits ticket.updated only', async () => {
      const created = (await create({ subject: 'reopen' })).body;
      await h.request('PATCH', `/api/v1/tickets/${created.id}`, { apiKey: rw, body: { status: 'resolved' } });
      const before = (await events(t.id, 'ticket.resolved')).length;
      const res = await h.request('PATCH', `/api/v1/tickets/${created.id}`, {
        apiKey: rw,
        body: { status: 'open' },
      });
      expect(res.status).toBe(200);
      expect(res.body.resolved_at).toBeNull();
      expect(await events(t.id, 'ticket.resolved')).toHaveLength(before);
    });

    it('every transition of the table: allowed ones succeed, the rest are 409 and write nothing', async () => {
      for (const from of TICKET_STATUSES) {
        for (const to of TICKET_STATUSES) {
          if (from === to) continue;
          const ticket = (await create({ subject: `${from}->${to}` })).body;
          // walk to `from` through allowed steps
          const path: Record<string, string[]> = {
            new: [],
            open: ['open'],
            pending: ['pending'],
            on_hold: ['on_hold'],
            resolved: ['resolved'],
            closed: ['closed'],
          };
          for (const step of path[from]!)
            expect(
              (
                await h.request('PATCH', `/api/v1/tickets/${ticket.id}`, {
                  apiKey: rw,
                  body: { status: step },
                })
              ).status,
            ).toBe(200);
          const before = (await events(t.id)).length;
          const res = await h.request('PATCH', `/api/v1/tickets/${ticket.id}`, {
            apiKey: rw,
            body: { status: to },
          });
          if (TICKET_TRANSITIONS[from].includes(to)) {
            expect(res.status, `${from}->${to}`).toBe(200);
          } else {
            expect(res.status, `${from}->${to}`).toBe(409);
            expect(res.body).toEqual({ detail: `Invalid status transition: ${from} -> ${to}` });
            expect((await events(t.id)).length).toBe(before);
          }
        }
      }
    });

    it.each([
      [{ status: 'done' }, ['body', 'status'], 'enum'],
      [{ priority: 3 }, ['body', 'priority'], 'enum'],
      [{ subject: '' }, ['body', 'subject'], 'string_too_short'],
      [{ subject: 's'.repeat(256) }, ['body', 'subject'], 'string_too_long'],
      [{ unknown_field: 1 }, ['body', 'unknown_field'], 'extra_forbidden'],
      [{ created_at: '2020-01-01T00:00:00Z' }, ['body', 'created_at'], 'extra_forbidden'],
    ])('PATCH %j -> 422 at %j, ticket unchanged', async (body, loc, type) => {
      const created = (await create({ subject: 'guarded' })).body;
      const res = await h.request('PATCH', `/api/v1/tickets/${created.id}`, { apiKey: rw, body });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
      expect((await h.request('GET', `/api/v1/tickets/${created.id}`, { apiKey: rw })).body).toEqual(created);
    });
  });

  describe('replies', () => {
    it('POST reply: 201, ticket.replied with ticket and reply, reply_count grows; list is paginated', async () => {
      const created = (await create({ subject: 'needs answer' })).body;
      const before = (await events(t.id, 'ticket.replied')).length;
      const r1 = await h.request('POST', `/api/v1/tickets/${created.id}/replies`, {
        apiKey: rw,
        body: { body: 'We are on it' },
      });
      expect(r1.status).toBe(201);
      expect(r1.body).toMatchObject({
        ticket_id: created.id,
        body: 'We are on it',
        author_type: 'api',
        is_public: true,
      });
      expect(r1.body.id).toMatch(/^trp_/);
      const r2 = await h.request('POST', `/api/v1/tickets/${created.id}/replies`, {
        bearer: await t.token('agent', 'agent_9'),
        body: { body: 'internal note', is_public: false },
      });
      expect(r2.body).toMatchObject({ author_type: 'agent', author_id: 'user:agent_9', is_public: false });
      const replied = await events(t.id, 'ticket.replied');
      expect(replied).toHaveLength(before + 2);
      expect(replied[before]!.payload).toMatchObject({
        ticket: { id: created.id, subject: 'needs answer', status: 'open', priority: 'medium' },
        reply: { id: r1.body.id, body: 'We are on it', author_type: 'api', is_public: true },
      });
      expect((await h.request('GET', `/api/v1/tickets/${created.id}`, { apiKey: ro })).body.reply_count).toBe(
        2,
      );

      const page = await h.request('GET', `/api/v1/tickets/${created.id}/replies?limit=1&offset=1`, {
        apiKey: ro,
      });
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
      expect(page.body.replies.map((r: any) => r.id)).toEqual([r2.body.id]);
    });

    it('bad reply bodies are 422; replies to closed tickets are 409; nothing written', async () => {
      const created = (await create({ subject: 'r' })).body;
      for (const body of [
        {},
        { body: '' },
        { body: 'x'.repeat(20_001) },
        { body: 'x', extra: 1 },
        { body: 5 },
      ]) {
        const res = await h.request('POST', `/api/v1/tickets/${created.id}/replies`, { apiKey: rw, body });
        expect(res.status).toBe(422);
      }
      await h.request('PATCH', `/api/v1/tickets/${created.id}`, { apiKey: rw, body: { status: 'closed' } });
      const before = (await events(t.id, 'ticket.replied')).length;
      const res = await h.request('POST', `/api/v1/tickets/${created.id}/replies`, {
        apiKey: rw,
        body: { body: 'late' },
      });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ detail: 'Ticket is closed' });
      expect(await events(t.id, 'ticket.replied')).toHaveLength(before);
      const list = await h.request('GET', `/api/v1/tickets/${created.id}/replies`, { apiKey: rw });
      expect(list.body.total).toBe(0);
    });
  });

  it("tenant isolation: tenant B gets 404 on tenant A's ticket for every verb, and changes nothing", async () => {
    const a = (await create({ subject: 'secret of A' })).body;
    const b = await h.tenant();
    const bKey = await b.key(['tickets:read', 'tickets:write']);
    for (const [method, path, body] of [
      ['GET', `/api/v1/tickets/${a.id}`, undefined],
      ['PATCH', `/api/v1/tickets/${a.id}`, { status: 'closed' }],
      ['POST', `/api/v1/tickets/${a.id}/replies`, { body: 'hi' }],
      ['GET', `/api/v1/tickets/${a.id}/replies`, undefined],
    ] as const) {
      const res = await h.request(method, path, { apiKey: bKey, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ detail: 'Ticket not found' });
    }
    const list = await h.request('GET', '/api/v1/tickets', { apiKey: bKey });
    expect(list.body).toEqual({ tickets: [], total: 0, limit: 20, offset: 0, next_cursor: null });
    expect(await events(b.id)).toHaveLength(0);
    expect((await h.request('GET', `/api/v1/tickets/${a.id}`, { apiKey: rw })).body).toEqual(a);
  });
});
