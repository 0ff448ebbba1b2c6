import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

/** Listing, pagination, filters, updated_since and sort=updated_at on GET /api/v1/tickets and /api/v1/calls. */
describe.skipIf(postgresUnavailable())('Ticket and call lists', () => {
  let h: Harness;
  let t: TestTenant;
  let key: string;
  const T0 = Date.parse('2026-11-01T00:00:00.000Z');
  const at = (minutes: number) => new Date(T0 + minutes * 60_000);
  const ids: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    key = await t.key(['tickets:read', 'calls:read']);
    // 25 tickets, created one minute apart; updated in the reverse order
    const statuses = ['new', 'open', 'pending', 'resolved', 'closed'];
    const priorities = ['low', 'medium', 'high', 'urgent'];
    for (let i = 0; i < 25; i++) {
      const id = `tkt_list${String(i).padStart(3, '0')}`;
      ids.push(id);
      await h.db
        .insertInto('tickets')
        .values({
          id,
          tenant_id: t.id,
          subject: `ticket ${i}`,
          status: statuses[i % 5]!,
          priority: priorities[i % 4]!,
          requester_id: i % 2 === 0 ? 'eu_even' : 'eu_odd',
          assignee_id: i < 5 ? 'agent_a' : null,
          tags: i % 3 === 0 ? ['vip', 'network'] : ['network'],
          created_by: 'test',
          created_at: at(i),
          updated_at: at(100 - i),
        })
        .execute();
    }
    for (let i = 0; i < 6; i++) {
      await h.db
        .insertInto('calls')
        .values({
          id: `call_list${i}`,
          tenant_id: t.id,
          channel: i < 4 ? 'phone' : 'web',
          direction: i % 2 === 0 ? 'inbound' : 'outbound',
          caller_phone: i < 3 ? '+15550000001' : '+15550000002',
          started_at: at(i * 10),
          outcome: i < 2 ? 'hung_up' : i < 4 ? 'ticket_created' : null,
          completed_at: i < 4 ? at(i * 10 + 5) : null,
          created_at: at(i * 10),
          updated_at: at(200 - i),
        })
        .execute();
    }
  });
  afterAll(() => h?.close());

  const list = (query = '') => h.request('GET', `/api/v1/tickets${query}`, { apiKey: key });
  const listIds = async (query = '') => {
    const res = await list(query);
    expect(res.status, res.text).toBe(200);
    return res.body.tickets.map((x: any) => x.id) as string[];
  };
  const newestFirst = () => [...ids].reverse();

  it('default: newest first, limit 20, offset 0, exact total', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['limit', 'next_cursor', 'offset', 'tickets', 'total']);
    expect(res.body).toMatchObject({ total: 25, limit: 20, offset: 0 });
    expect(res.body.tickets.map((x: any) => x.id)).toEqual(newestFirst().slice(0, 20));
  });

  it('pages walk the whole set without gaps or repeats; limits 1 and 100 are accepted', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 25; offset += 7) seen.push(...(await listIds(`?limit=7&offset=${offset}`)));
    expect(seen).toEqual(newestFirst());
    expect(await listIds('?limit=1')).toEqual([ids[24]]);
    expect((await listIds('?limit=100')).length).toBe(25);
    const beyond = await list('?offset=25');
    expect(beyond.body).toMatchObject({ tickets: [], total: 25, offset: 25 });
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=-1', 'limit'],
    ['?limit=abc', 'limit'],
    ['?limit=1.5', 'limit'],
    ['?offset=-1', 'offset'],
    ['?offset=x', 'offset'],
    ['?status=done', 'status'],
    ['?priority=critical', 'priority'],
    ['?created_after=yesterday', 'created_after'],
    ['?updated_since=2026-11-01', 'updated_since'],
    ['?sort=subject', 'sort'],
  ])('%s -> 422 at query.%s', async (query, field) => {
    const res = await list(query);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: expect.arrayContaining(['query', field]), msg: expect.any(String) }),
      ]),
    );
  });

  it('filters: status (one or a list), priority, requester, assignee, tag, created range', async () => {
    expect((await list('?status=open')).body.total).toBe(5);
    expect((await list('?status=open,pending')).body.total).toBe(10);
    expect((await list('?priority=urgent')).body.total).toBe(6);
    const even = await list('?requester_id=eu_even&limit=100');
    expect(even.body.total).toBe(13);
    expect(even.body.tickets.every((x: any) => x.requester_id === 'eu_even')).toBe(true);
    expect(await listIds('?assignee_id=agent_a')).toEqual(newestFirst().slice(20));
    expect((await list('?tag=vip')).body.total).toBe(9);
    expect((await list('?tag=network')).body.total).toBe(25);
    expect((await list('?tag=none')).body.total).toBe(0);
    // created_after inclusive, created_before exclusive
    expect(await listIds(`?created_after=${at(20).toISOString()}`)).toEqual(newestFirst().slice(0, 5));
    expect(await listIds(`?created_before=${at(2).toISOString()}`)).toEqual([ids[1], ids[0]]);
    expect(
      await listIds(`?created_after=${at(3).toISOString()}&created_before=${at(5).toISOString()}`),
    ).toEqual([ids[4], ids[3]]);
    // offsets with an explicit timezone are the same instant
    expect(await listIds('?created_after=2026-11-01T01:20:00%2B01:00')).toEqual(newestFirst().slice(0, 5));
    const combined = await list('?status=new&requester_id=eu_even&tag=vip');
    // i % 5 == 0, even, i % 3 == 0 -> 0
    expect(combined.body.tickets.map((x: any) => x.id)).toEqual([ids[0]]);
  });

  it('updated_since is inclusive; sort=updated_at is ascending by updated_at then id', async () => {
    // ticket i has updated_at = at(100 - i): ticket 24 is the oldest change
    const since = at(90); // tickets 0..10
    const res = await list(`?updated_since=${since.toISOString()}&sort=updated_at&limit=100`);
    expect(res.body.total).toBe(11);
    expect(res.body.tickets.map((x: any) => x.id)).toEqual(ids.slice(0, 11).reverse());
    expect(res.body.tickets[0].updated_at).toBe(since.toISOString());
    const justAfter = new Date(since.getTime() + 1).toISOString();
    expect((await list(`?updated_since=${justAfter}`)).body.total).toBe(10);
    // mirroring: walk pages ordered by updated_at; ties are broken by id
    await h.db
      .updateTable('tickets')
      .set({ updated_at: at(500) })
      .where('id', 'in', [ids[7]!, ids[3]!])
      .execute();
    const tail = await listIds(`?sort=updated_at&updated_since=${at(500).toISOString()}`);
    expect(tail).toEqual([ids[3], ids[7]]);
    const all = await listIds('?sort=updated_at&limit=100');
    expect(all.slice(-2)).toEqual([ids[3], ids[7]]);
    expect(all[0]).toBe(ids[24]);
  });

  it('the unfiltered total (trigger-kept counter) follows inserts, bulk inserts and deletes', async () => {
    const other = await h.tenant();
    const k = await other.key(['tickets:read', 'tickets:write']);
    const total = async () => (await h.request('GET', '/api/v1/tickets', { apiKey: k })).body.total;
    expect(await total()).toBe(0);
    await h.request('POST', '/api/v1/tickets', { apiKey: k, body: { subject: 'one' } });
    expect(await total()).toBe(1);
    await h.db
      .insertInto('tickets')
      .values(
        [1, 2, 3].map((i) => ({
          id: `tkt_bulk${i}`,
          tenant_id: other.id,
          subject: `b${i}`,
          created_by: 'test',
        })),
      )
      .execute();
    expect(await total()).toBe(4);
    await h.db.deleteFrom('tickets').where('id', 'in', ['tkt_bulk1', 'tkt_bulk2']).execute();
    expect(await total()).toBe(2);
    // the filtered total is an exact count and agrees
    expect((await h.request('GET', '/api/v1/tickets?status=open', { apiKey: k })).body.total).toBe(2);
  });

  describe('calls', () => {
    const calls = async (query = '') => {
      const res = await h.request('GET', `/api/v1/calls${query}`, { apiKey: key });
      return res;
    };
    const callIds = async (query = '') => (await calls(query)).body.calls.map((c: any) => c.id);

    it('default envelope: newest started first, 20, 0, total', async () => {
      const res = await calls();
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['calls', 'limit', 'next_cursor', 'offset', 'total']);
      expect(res.body).toMatchObject({ total: 6, limit: 20, offset: 0 });
      expect(res.body.calls.map((c: any) => c.id)).toEqual([5, 4, 3, 2, 1, 0].map((i) => `call_list${i}`));
      expect(await callIds('?limit=2&offset=2')).toEqual(['call_list3', 'call_list2']);
    });

    it('filters: outcome, direction, channel, status, caller phone, started range', async () => {
      expect((await calls('?outcome=hung_up')).body.total).toBe(2);
      expect((await calls('?outcome=hung_up,ticket_created')).body.total).toBe(4);
      expect((await calls('?direction=outbound')).body.total).toBe(3);
      expect((await calls('?channel=web')).body.total).toBe(2);
      expect((await calls('?status=in_progress')).body.total).toBe(2);
      expect((await calls('?status=completed')).body.total).toBe(4);
      expect(await callIds('?caller_phone=%2B15550000001')).toEqual([
        'call_list2',
        'call_list1',
        'call_list0',
      ]);
      expect(
        await callIds(`?started_after=${at(20).toISOString()}&started_before=${at(40).toISOString()}`),
      ).toEqual(['call_list3', 'call_list2']);
    });

    it('updated_since inclusive and sort=updated_at ascending', async () => {
      // call i: updated_at = at(200 - i)
      expect(await callIds(`?updated_since=${at(198).toISOString()}&sort=updated_at`)).toEqual([
        'call_list2',
        'call_list1',
        'call_list0',
      ]);
    });

    it.each([
      '?limit=0',
      '?limit=101',
      '?limit=ten',
      '?offset=-5',
      '?outcome=great',
      '?direction=up',
      '?status=ringing',
      '?started_after=now',
      '?sort=-updated_at',
    ])('%s -> 422', async (query) => {
      const res = await calls(query);
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toEqual(
        expect.objectContaining({ loc: expect.arrayContaining(['query']), type: expect.any(String) }),
      );
    });

    it('scope: tickets:read only is refused on calls; unknown call is 404', async () => {
      const ticketsOnly = await t.key(['tickets:read']);
      const res = await h.request('GET', '/api/v1/calls', { apiKey: ticketsOnly });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'API key missing required scope: calls:read' });
      const missing = await calls('/call_missing');
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ detail: 'Call not found' });
    });
  });
});
