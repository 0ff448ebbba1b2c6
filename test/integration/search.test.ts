import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';
import { addTenantUsers } from '../support/people';

/**
 * GET /api/v1/tickets/search and GET /api/v2/search (docs/search.md): matching, phrases, prefixes,
 * negation, OR, every filter, highlights, order, cursors stable under writes, tenant isolation.
 */
describe.skipIf(postgresUnavailable())('search', () => {
  let h: Harness;
  let t: TestTenant;
  let other: TestTenant;
  let key: string;
  const ids: Record<string, string> = {};

  const createTicket = async (tenant: TestTenant, name: string, body: Record<string, unknown>) => {
    const res = await h.request('POST', '/api/v1/tickets', { bearer: tenant.adminToken, body });
    if (res.status !== 201) throw new Error(res.text);
    ids[name] = res.body.id;
    return res.body.id as string;
  };
  const at = (name: string, when: string) =>
    h.db
      .updateTable('tickets')
      .set({ created_at: when, updated_at: when })
      .where('id', '=', ids[name]!)
      .execute();

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    other = await h.tenant();
    key = await t.key(['tickets:read']);
    await createTicket(t, 'fire', {
      subject: 'Printer on fire',
      description: 'Smoke from the printer on floor 3, error E-451.',
      priority: 'urgent',
      tags: ['hardware'],
    });
    await createTicket(t, 'jam', {
      subject: 'Paper jam',
      description: 'The printer in room 12 jams on every page.',
      priority: 'low',
      tags: ['hardware', 'paper'],
    });
    await createTicket(t, 'vpn', {
      subject: 'VPN drops',
      description: 'Disconnects every hour.',
      priority: 'high',
    });
    await createTicket(t, 'printing', {
      subject: 'Printing slow',
      description: 'Queue takes minutes.',
      status: 'pending',
    });
    await createTicket(other, 'foreign', {
      subject: 'Printer on fire',
      description: 'Another tenant, same words.',
    });
    const reply = await h.request('POST', `/api/v1/tickets/${ids.vpn}/replies`, {
      bearer: t.adminToken,
      body: { body: 'Replacing the router firmware fixed it.', is_public: true },
    });
    expect(reply.status).toBe(201);
    await at('fire', '2026-01-01T00:00:00.000Z');
    await at('jam', '2026-01-02T00:00:00.000Z');
    await at('vpn', '2026-01-03T00:00:00.000Z');
    await at('printing', '2026-01-04T00:00:00.000Z');
  }, 60_000);
  afterAll(() => h?.close(), 60_000);

  const search = (query: string, extra = '', apiKey = key) =>
    h.request('GET', `/api/v1/tickets/search?query=${encodeURIComponent(query)}${extra}`, { apiKey });
  const found = (body: any) =>
    body.hits.map((hit: any) => Object.keys(ids).find((k) => ids[k] === hit.record.id) ?? hit.record.id);

  it('free words must all match, over subject, description and replies', async () => {
    expect(found((await search('printer')).body).sort()).toEqual(['fire', 'jam']);
    expect(found((await search('printer smoke')).body)).toEqual(['fire']);
    expect(found((await search('firmware')).body)).toEqual(['vpn']);
    expect(found((await search('nothingmatches')).body)).toEqual([]);
  });

  it('phrases keep their word order; prefixes match the start of a word', async () => {
    expect(found((await search('"on fire"')).body)).toEqual(['fire']);
    expect(found((await search('"fire on"')).body)).toEqual([]);
    expect(found((await search('print*')).body).sort()).toEqual(['fire', 'jam', 'printing']);
    expect(found((await search('e-451')).body)).toEqual(['fire']);
  });

  it('negation and OR', async () => {
    expect(found((await search('printer -smoke')).body)).toEqual(['jam']);
    expect(found((await search('vpn OR jam')).body).sort()).toEqual(['jam', 'vpn']);
    expect(found((await search('printer -tag:paper')).body)).toEqual(['fire']);
    expect(found((await search('status:pending OR priority:urgent', '&sort=created_at')).body)).toEqual([
      'printing',
      'fire',
    ]);
  });

  it('every ticket filter means what the list filter means', async () => {
    expect(found((await search('status:pending')).body)).toEqual(['printing']);
    expect(found((await search('status:open,pending', '&sort=created_at')).body)).toEqual([
      'printing',
      'vpn',
      'jam',
      'fire',
    ]);
    expect(found((await search('priority:urgent')).body)).toEqual(['fire']);
    expect(found((await search('type:question', '&sort=created_at')).body).length).toBe(4);
    expect(found((await search('tag:paper')).body)).toEqual(['jam']);
    expect(found((await search('assignee:none', '&sort=created_at')).body).length).toBe(4);
    expect(found((await search('requester:usr_nobody')).body)).toEqual([]);
    expect(found((await search('created>=2026-01-03', '&sort=created_at')).body)).toEqual([
      'printing',
      'vpn',
    ]);
    expect(found((await search('created<2026-01-02')).body)).toEqual(['fire']);
    expect(found((await search('created:2026-01-02')).body)).toEqual(['jam']);
    expect(found((await search('updated<=2026-01-01')).body)).toEqual(['fire']);
    // relative times count back from now: every fixture is older than 7 days
    expect(found((await search('created>7d')).body)).toEqual([]);
    expect(found((await search('created<7d', '&sort=created_at')).body).length).toBe(4);
    // past the years a column holds: the same condition at the range's edge, not a refused parameter
    expect(found((await search('created>9999-12-31')).body)).toEqual([]);
    expect(found((await search('created<=9999-12-31', '&sort=created_at')).body).length).toBe(4);
    expect(found((await search('created:0000-01-01')).body)).toEqual([]);
    expect(found((await search('created>999999d', '&sort=created_at')).body).length).toBe(4);
  });

  it('relevance first (a subject match outranks a description match), then recency; sort= recency alone', async () => {
    const ranked = await search('printer');
    expect(found(ranked.body)).toEqual(['fire', 'jam']);
    const recent = await search('printer', '&sort=created_at');
    expect(found(recent.body)).toEqual(['jam', 'fire']);
  });

  it('highlights are plain text with UTF-16 offsets into the fragment', async () => {
    const res = await search('printer');
    const fire = res.body.hits.find((hit: any) => hit.record.id === ids.fire);
    const subject = fire.highlights.find((x: any) => x.field === 'subject');
    expect(subject).toEqual({ field: 'subject', fragment: 'Printer on fire', matches: [[0, 7]] });
    const description = fire.highlights.find((x: any) => x.field === 'description');
    for (const [s, e] of description.matches)
      expect(description.fragment.slice(s, e).toLowerCase()).toBe('printer');
    const vpn = (await search('firmware')).body.hits[0];
    expect(vpn.highlights).toEqual([
      { field: 'reply', fragment: 'Replacing the router firmware fixed it.', matches: [[21, 29]] },
    ]);
  });

  it('another tenant never appears, not even when its words match', async () => {
    const res = await search('"printer on fire"');
    expect(found(res.body)).toEqual(['fire']);
    const theirs = await h.request('GET', `/api/v2/search?query=printer`, { bearer: other.adminToken });
    expect(found(theirs.body)).toEqual(['foreign']);
  });

  it('cursor pages stay stable while tickets are written between them', async () => {
    const first = await search('print*', '&limit=2');
    expect(first.status).toBe(200);
    expect(first.body.hits).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    // a new matching ticket between the pages: it does not push an old hit onto the next page again
    await createTicket(t, 'late', { subject: 'Printer toner', description: 'Low toner.' });
    const second = await search('print*', `&limit=2&cursor=${first.body.next_cursor}`);
    expect(second.status).toBe(200);
    const seen = [...found(first.body), ...found(second.body)];
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((n) => n !== 'late').sort()).toEqual(['fire', 'jam', 'printing']);
    expect(second.body.next_cursor).toBeNull();
    await h.db.deleteFrom('tickets').where('id', '=', ids.late!).execute();
  });

  it('a cursor of another query is refused at ["query", "cursor"]', async () => {
    const first = await search('print*', '&limit=1');
    const res = await search('printer', `&limit=1&cursor=${first.body.next_cursor}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', 'cursor']);
    const junk = await search('printer', '&cursor=bm90LWEtY3Vyc29y');
    expect(junk.status).toBe(422);
    expect(junk.body.detail[0].loc).toEqual(['query', 'cursor']);
  });

  it.each([
    ['"unterminated', 'unterminated phrase at position 0'],
    ['printer OR', "'OR' needs a term after it at position 8"],
    ['OR printer', "'OR' needs a term before it at position 0"],
    [
      'colour:red',
      "unknown filter 'colour' (one of status, priority, type, tag, assignee, requester, team, channel, custom_fields, created, updated) at position 0",
    ],
    [
      'printer status:opne',
      "'opne' is not a status (one of new, open, pending, on_hold, resolved, closed) at position 8",
    ],
    [
      'created>yesterday',
      "'yesterday' is not a date (YYYY-MM-DD), a date-time or a relative time (7d, 24h, 30m) at position 0",
    ],
    ['created>2026-02-31', "'2026-02-31' is not a date at position 0"],
    ['status>open', "'status' takes ':' only (comparisons are for created and updated) at position 6"],
    ['-printer', 'a query needs at least one term that is not excluded with - at position 0'],
    ['channel:email', "'channel' is not a filter of a ticket at position 0"],
    ['assignee:me', "'assignee:me' needs a dashboard session (an API key is no one) at position 0"],
    ['pri*nt', "'*' goes at the end of a word at position 0"],
    ['printer pr*', "'pr*': a prefix needs at least 3 letters or digits before '*' at position 8"],
    ['printer status:', "'status' needs a value at position 15"],
  ])('%s -> 422 naming what and where', async (query, msg) => {
    const res = await search(query);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['query', 'query'], msg, type: 'query_syntax' }] });
  });

  it('custom_fields.<key>:<value> filters as the list filter does: equality by the field type, each tenant its own', async () => {
    // a tenant of its own: its tickets stay out of the other cases' counts
    const ct = await h.tenant();
    const ctKey = await ct.key(['tickets:read']);
    const fields = [
      { key: 'plan', label: 'Plan', type: 'dropdown', options: ['gold', 'silver'] },
      { key: 'seats', label: 'Seats', type: 'number' },
      { key: 'vip', label: 'VIP', type: 'checkbox' },
      { key: 'areas', label: 'Areas', type: 'multiselect', options: ['billing', 'api'] },
    ];
    for (const tenant of [ct, other])
      for (const body of fields) {
        const res = await h.request('POST', '/api/v2/ticket-fields', { bearer: tenant.adminToken, body });
        expect(res.status, res.text).toBe(201);
      }
    const gold = await createTicket(ct, 'cf_gold', {
      subject: 'Printer offline',
      custom_fields: { plan: 'gold', seats: 10, vip: true, areas: ['billing', 'api'] },
    });
    const silver = await createTicket(ct, 'cf_silver', {
      subject: 'Printer offline too',
      custom_fields: { plan: 'silver', seats: 2.5, vip: false, areas: ['api'] },
    });
    const none = await createTicket(ct, 'cf_none', { subject: 'Printer without fields' });
    // another tenant's ticket with the same key and value never appears
    await createTicket(other, 'cf_foreign', { subject: 'Printer offline', custom_fields: { plan: 'gold' } });
    const idsOf = async (query: string) => {
      const res = await search(query, '&sort=created_at', ctKey);
      expect(res.status, res.text).toBe(200);
      return res.body.hits.map((hit: any) => hit.record.id).sort();
    };
    expect(await idsOf('custom_fields.plan:gold')).toEqual([gold]);
    expect(await idsOf('printer custom_fields.plan:silver')).toEqual([silver]);
    expect(await idsOf('printer -custom_fields.plan:gold')).toEqual([none, silver].sort());
    expect(await idsOf('custom_fields.plan:gold OR custom_fields.plan:silver')).toEqual(
      [gold, silver].sort(),
    );
    expect(await idsOf('custom_fields.seats:10')).toEqual([gold]);
    expect(await idsOf('custom_fields.seats:2.50')).toEqual([silver]);
    expect(await idsOf('custom_fields.vip:false')).toEqual([silver]);
    expect(await idsOf('custom_fields.areas:api')).toEqual([gold, silver].sort());
    expect(await idsOf('custom_fields.areas:billing')).toEqual([gold]);
    // the list filter answers the same
    const list = await h.request('GET', '/api/v1/tickets?custom_fields.areas=api', { apiKey: ctKey });
    expect(list.body.tickets.map((r: any) => r.id).sort()).toEqual([gold, silver].sort());
    // over several types, a custom field leaves out the types without one
    const v2 = await h.request('GET', '/api/v2/search?query=printer%20custom_fields.plan:gold', {
      bearer: ct.adminToken,
    });
    expect(v2.body.hits.map((hit: any) => [hit.type, hit.record.id])).toEqual([['ticket', gold]]);
    for (const [query, msg] of [
      ['custom_fields.colour:red', "unknown ticket field 'colour' at position 0"],
      [
        'printer custom_fields.plan:bronze',
        "'bronze' is not a value of the dropdown field 'plan' at position 8",
      ],
      ['custom_fields.seats:ten', "'ten' is not a value of the number field 'seats' at position 0"],
      ['custom_fields.vip:yes', "'yes' is not a value of the checkbox field 'vip' at position 0"],
    ]) {
      const res = await search(query!, '', ctKey);
      expect(res.status, query).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['query', 'query'], msg, type: 'query_syntax' }] });
    }
  });

  it('the key needs tickets:read; /api/v2/search refuses API keys', async () => {
    const noScope = await t.key(['calls:read']);
    expect((await search('printer', '', noScope)).status).toBe(403);
    expect((await h.request('GET', '/api/v2/search?query=printer', { apiKey: key })).status).toBe(403);
  });

  describe('/api/v2/search over several types', () => {
    let conversationId: string;
    let contactId: string;
    let companyId: string;
    let userId: string;
    let agentToken: string;
    beforeAll(async () => {
      const company = await h.request('POST', '/api/v2/companies', {
        bearer: t.adminToken,
        body: { name: 'Printer Works Ltd', domain: 'printerworks.example' },
      });
      expect(company.status).toBe(201);
      companyId = company.body.id;
      const contact = await h.request('POST', '/api/v2/contacts', {
        bearer: t.adminToken,
        body: {
          first_name: 'Ana',
          last_name: 'Silva',
          email: 'ana.silva@printerworks.example',
          phone: '+351912345678',
        },
      });
      expect(contact.status).toBe(201);
      contactId = contact.body.id;
      const conv = await h.request('POST', '/api/v2/conversations', {
        bearer: t.adminToken,
        body: { contact_id: contactId, channel: 'email', subject: 'Invoice question' },
      });
      expect(conv.status).toBe(201);
      conversationId = conv.body.id;
      const msg = await h.request('POST', `/api/v2/conversations/${conversationId}/messages`, {
        bearer: t.adminToken,
        body: { body: 'Our printer invoice is wrong.' },
      });
      expect(msg.status).toBe(201);
      userId = 'usr_search_agent';
      await addTenantUsers(h, t.id, [userId]);
      agentToken = await t.token('agent', userId);
      const assign = await h.request('POST', `/api/v2/conversations/${conversationId}/assign`, {
        bearer: t.adminToken,
        body: { assignee_user_id: userId },
      });
      expect(assign.status).toBe(200);
    }, 60_000);

    const v2 = (query: string, extra = '', bearer?: string) =>
      h.request('GET', `/api/v2/search?query=${encodeURIComponent(query)}${extra}`, {
        bearer: bearer ?? t.adminToken,
      });
    const typed = (body: any) => body.hits.map((hit: any) => `${hit.type}:${hit.record.id}`);

    it('one query finds every type it matches; types= narrows', async () => {
      const res = await v2('printer*');
      expect(res.status).toBe(200);
      const hits = typed(res.body);
      expect(hits).toContain(`conversation:${conversationId}`);
      expect(hits).toContain(`contact:${contactId}`);
      expect(hits).toContain(`company:${companyId}`);
      expect(hits).toContain(`ticket:${ids.fire}`);
      const onlyPeople = await v2('printer*', '&types=contact,company');
      expect(new Set(onlyPeople.body.hits.map((x: any) => x.type))).toEqual(new Set(['contact', 'company']));
    });

    it('contacts match by name, e-mail parts and phone digits', async () => {
      expect(typed((await v2('silva', '&types=contact')).body)).toEqual([`contact:${contactId}`]);
      const phone = (await v2('912345678', '&types=contact')).body.hits;
      expect(phone.map((x: any) => x.record.id)).toEqual([contactId]);
      expect(phone[0].highlights).toEqual([
        { field: 'phone', fragment: '+351912345678', matches: [[4, 13]] },
      ]);
      const email = (await v2('printerworks', '&types=contact')).body.hits[0].highlights;
      expect(email).toEqual([
        { field: 'email', fragment: 'ana.silva@printerworks.example', matches: [[10, 22]] },
      ]);
    });

    it('filters apply to the types that have them; assignee:me is the session user', async () => {
      expect(typed((await v2('channel:email')).body)).toEqual([`conversation:${conversationId}`]);
      expect(typed((await v2('invoice assignee:me', '', agentToken)).body)).toEqual([
        `conversation:${conversationId}`,
      ]);
      expect(typed((await v2('invoice assignee:none')).body)).toEqual([]);
      const bad = await v2('channel:fax');
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].msg).toBe(
        "'fax' is not a channel (one of email, widget, whatsapp, phone, api) at position 0",
      );
    });

    it('a soft-deleted contact is not found', async () => {
      const del = await h.request('DELETE', `/api/v2/contacts/${contactId}`, { bearer: t.adminToken });
      expect([200, 204]).toContain(del.status);
      expect(typed((await v2('silva', '&types=contact')).body)).toEqual([]);
    });
  });
});
