import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvent } from '../../shared/events/emit';
import { FOLD_ABOVE, recorderFor } from '../../shared/usage/meter';
import { periodOf, previousPeriod } from '../../shared/usage/plans';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('usage metering, summary, details, report', () => {
  let h: Harness;
  let t: TestTenant;
  let key: string;
  let other: TestTenant;
  const internal = () => ({ bearer: h.config.INTERNAL_API_TOKEN });

  beforeAll(async () => {
    // a burst of one tenant's requests: its database share stays out of the count
    h = await startHarness({ TENANT_DB_SHARE: '0' });
    t = await h.tenant({ plan: 'starter' });
    other = await h.tenant();
    key = await t.key(['usage:read', 'billing:read', 'users:read']); // 1 metered request (dashboard POST)
    for (let i = 0; i < 3; i++)
      expect((await h.request('GET', '/api/v1/billing/plan', { apiKey: key })).status).toBe(200);
    for (const id of ['a_1', 'b_2'])
      expect((await h.request('GET', `/api/v1/requesters/${id}`, { apiKey: key })).status).toBe(404);
    // a refused request (403 at the gate) is not metered
    expect((await h.request('GET', '/api/v1/tickets', { apiKey: key })).status).toBe(403);

    const db = h.db;
    await emitEvent(db, t.id, 'call.completed', {
      call: {
        id: 'call_1',
        tenant_id: t.id,
        started_at: '',
        ended_at: '',
        duration_seconds: 61,
        outcome: 'hung_up',
      },
    });
    await emitEvent(db, t.id, 'call.completed', {
      call: {
        id: 'call_2',
        tenant_id: t.id,
        started_at: '',
        ended_at: '',
        duration_seconds: 120,
        outcome: 'hung_up',
      },
    });
    await emitEvent(db, t.id, 'call.completed', {
      call: {
        id: 'call_3',
        tenant_id: t.id,
        started_at: '',
        ended_at: '',
        duration_seconds: 0,
        outcome: 'error',
      },
    });
    await emitEvent(db, t.id, 'conversation.created', { conversation: { id: 'cnv_1' } });
    await emitEvent(db, other.id, 'conversation.created', { conversation: { id: 'cnv_2' } });
    // inactive: it only holds the two deliveries below; live, the events above could fan out to it and
    // add a third, failed delivery while the test reads (it did, with three test workers)
    await sql`INSERT INTO webhooks (id, tenant_id, url, events, secret_encrypted, is_active)
      VALUES ('whk_u1', ${t.id}, 'https://example.com/h', ARRAY['*'], 'x', false)`.execute(db);
    for (const [id, status] of [
      ['dlv_u1', 'delivered'],
      ['dlv_u2', 'failed'],
    ])
      await sql`INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_id, event_type, payload, event_created_at, status)
        VALUES (${id}, ${t.id}, 'whk_u1', ${id}, 'ticket.created', '{}'::jsonb, now(), ${status})`.execute(
        db,
      );
    await h.runtime.drain();
  }, 120_000);
  afterAll(() => h?.close());

  it('summary: figures equal what was done, against the plan quota', async () => {
    const res = await h.request('GET', '/api/v1/usage/summary', { apiKey: key });
    expect(res.status).toBe(200);
    const p = periodOf(new Date());
    expect(res.body).toMatchObject({
      tenant_id: t.id,
      plan: 'starter',
      period: p.period,
      period_start: p.start.toISOString(),
      period_end: p.end.toISOString(),
      // 1 key creation + 3 plan reads + 2 requester 404s (the gate's 403 is not metered)
      totals: { api_requests: 6, call_minutes: 4, conversations: 1, webhook_deliveries: 2 },
      quotas: {
        api_requests: 100_000,
        call_minutes: 1_000,
        conversations: 5_000,
        webhook_deliveries: 100_000,
      },
      remaining: {
        api_requests: 99_994,
        call_minutes: 996,
        conversations: 4_999,
        webhook_deliveries: 99_998,
      },
    });
    expect(res.body.percent_used.call_minutes).toBe(0.4);
  });

  it('the other tenant sees only its own usage', async () => {
    const k = await other.key(['usage:read']);
    await h.runtime.drain();
    const res = await h.request('GET', '/api/v1/usage/summary', { apiKey: k });
    expect(res.body.totals).toEqual({
      api_requests: 1,
      call_minutes: 0,
      conversations: 1,
      webhook_deliveries: 0,
    });
  });

  it('details without group_by: events, route patterns (no ids), total/limit/offset', async () => {
    await h.runtime.drain();
    const res = await h.request('GET', '/api/v1/usage/details?kind=api_requests&limit=200', { apiKey: key });
    expect(res.status).toBe(200);
    // 6 above + the summary read
    expect(res.body.total).toBe(7);
    expect(res.body.limit).toBe(200);
    expect(res.body.offset).toBe(0);
    expect(res.body.groups).toBeUndefined();
    const endpoints = res.body.events.map((e: any) => `${e.method} ${e.endpoint} ${e.status}`).sort();
    expect(endpoints).toEqual(
      [
        'GET /api/v1/billing/plan 200',
        'GET /api/v1/billing/plan 200',
        'GET /api/v1/billing/plan 200',
        'GET /api/v1/requesters/:id 404',
        'GET /api/v1/requesters/:id 404',
        'GET /api/v1/usage/summary 200',
        'POST /api/v1/api-keys 201',
      ].sort(),
    );
    const all = await h.request('GET', '/api/v1/usage/details', { apiKey: key });
    expect(all.body.limit).toBe(50);
    // 7 requests + summary/details reads since + 3 call rows + 1 conversation + 2 deliveries
    const kinds = all.body.events.map((e: any) => e.kind);
    expect(kinds.filter((k: string) => k === 'call_minutes')).toHaveLength(3);
    expect(kinds.filter((k: string) => k === 'webhook_deliveries')).toHaveLength(2);
    const call = all.body.events.find((e: any) => e.reference === 'call_1');
    expect(call).toMatchObject({ kind: 'call_minutes', quantity: 2 });
  });

  it('details with group_by: groups instead of events', async () => {
    await h.runtime.drain();
    const byKind = await h.request('GET', '/api/v1/usage/details?group_by=kind', { apiKey: key });
    expect(byKind.status).toBe(200);
    expect(byKind.body.events).toBeUndefined();
    const get = (k: string) => byKind.body.groups.find((g: any) => g.key === k);
    expect(get('call_minutes')).toEqual({ key: 'call_minutes', kind: 'call_minutes', count: 3, quantity: 4 });
    expect(get('conversations')).toEqual({
      key: 'conversations',
      kind: 'conversations',
      count: 1,
      quantity: 1,
    });
    expect(get('webhook_deliveries')).toMatchObject({ count: 2, quantity: 2 });
    expect(byKind.body.total).toBe(4);

    const byEndpoint = await h.request('GET', '/api/v1/usage/details?group_by=endpoint&kind=api_requests', {
      apiKey: key,
    });
    const plan = byEndpoint.body.groups.find((g: any) => g.key === 'GET /api/v1/billing/plan');
    expect(plan).toEqual({ key: 'GET /api/v1/billing/plan', kind: 'api_requests', count: 3, quantity: 3 });

    const byKey = await h.request('GET', '/api/v1/usage/details?group_by=api_key&kind=api_requests', {
      apiKey: key,
    });
    const dashboard = byKey.body.groups.find((g: any) => g.key === 'user:user_admin');
    expect(dashboard).toMatchObject({ count: 1 });

    const paged = await h.request('GET', '/api/v1/usage/details?group_by=kind&limit=1&offset=1', {
      apiKey: key,
    });
    expect(paged.body.groups).toHaveLength(1);
    expect(paged.body).toMatchObject({ total: 4, limit: 1, offset: 1 });
  });

  it.each([
    ['limit=0', ['query', 'limit']],
    ['limit=201', ['query', 'limit']],
    ['offset=-1', ['query', 'offset']],
    ['group_by=month', ['query', 'group_by']],
    ['kind=sms', ['query', 'kind']],
    ['period=2026-13', ['query', 'period']],
  ])('details refuses %s with 422', async (qs, loc) => {
    const res = await h.request('GET', `/api/v1/usage/details?${qs}`, { apiKey: key });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
  });

  it('a malformed period is one issue, not also the range one', async () => {
    const res = await h.request('GET', '/api/v1/usage/summary?period=2026-13', { apiKey: key });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['query', 'period'], msg: 'period must be YYYY-MM' }),
    ]);
  });

  it('a burst of requests is counted exactly, whether or not its rows were folded', async () => {
    const busy = await h.tenant({ plan: 'pro' });
    const busyKey = await busy.key(['usage:read', 'billing:read']);
    const burst = 150; // above FOLD_ABOVE (shared/usage/meter.ts)
    const statuses = await Promise.all(
      Array.from({ length: burst }, () => h.request('GET', '/api/v1/billing/plan', { apiKey: busyKey })),
    );
    expect(statuses.every((r) => r.status === 200)).toBe(true);
    const summary = await h.request('GET', '/api/v1/usage/summary', { apiKey: busyKey });
    expect(summary.body.totals.api_requests).toBe(burst + 1); // + the key's creation (dashboard)
    const grouped = await h.request('GET', '/api/v1/usage/details?group_by=endpoint&kind=api_requests', {
      apiKey: busyKey,
    });
    const plan = grouped.body.groups.find((g: any) => g.key === 'GET /api/v1/billing/plan');
    expect(plan).toEqual({
      key: 'GET /api/v1/billing/plan',
      kind: 'api_requests',
      count: burst,
      quantity: burst,
    });
    const events = await h.request('GET', '/api/v1/usage/details?kind=api_requests&limit=200', {
      apiKey: busyKey,
    });
    const planRows = events.body.events.filter((e: any) => e.endpoint === '/api/v1/billing/plan');
    expect(planRows.reduce((n: number, e: any) => n + e.quantity, 0)).toBe(burst);
  });

  it('more than FOLD_ABOVE requests in one flush are written as few rows with exact quantities', async () => {
    const busy = await h.tenant();
    const recorder = recorderFor(h.db);
    const at = Date.now();
    const request = (status: number) => ({
      tenant_id: busy.id,
      method: 'GET',
      endpoint: '/api/v1/tickets/:ticket_id',
      status,
      api_key_id: 'key_x',
      actor: 'api_key:key_x',
      quantity: 1,
      at,
    });
    for (let i = 0; i < FOLD_ABOVE + 50; i++)
      recorder.record(request(i % 3 === 0 ? 404 : 200), h.runtime.services.defer, 0);
    await recorder.settle();
    const rows = await h.db
      .selectFrom('usage_records')
      .select(['status', 'quantity'])
      .where('tenant_id', '=', busy.id)
      .orderBy('status')
      .execute();
    expect(rows).toEqual([
      { status: 200, quantity: 100 },
      { status: 404, quantity: 50 },
    ]);
    // below the threshold every request keeps its own row
    for (let i = 0; i < 3; i++) recorder.record(request(201), h.runtime.services.defer, 0);
    await recorder.settle();
    const created = await h.db
      .selectFrom('usage_records')
      .select('quantity')
      .where('tenant_id', '=', busy.id)
      .where('status', '=', 201)
      .execute();
    expect(created).toEqual([{ quantity: 1 }, { quantity: 1 }, { quantity: 1 }]);
  });

  it('a request no route answered is metered as endpoint "unmatched" (the route pattern the access log names null)', async () => {
    const lone = await h.tenant();
    const unrouted = await h.request('GET', '/api/v1/no-such-resource', { bearer: lone.adminToken });
    expect(unrouted.status).toBe(404);
    await h.runtime.drain();
    const rows = await h.db
      .selectFrom('usage_records')
      .select(['method', 'endpoint', 'status'])
      .where('tenant_id', '=', lone.id)
      .where('status', '=', 404)
      .execute();
    expect(rows).toEqual([{ method: 'GET', endpoint: 'unmatched', status: 404 }]);
  });

  it('limit=200 is accepted', async () => {
    expect((await h.request('GET', '/api/v1/usage/details?limit=200', { apiKey: key })).status).toBe(200);
  });

  it('usage.reported: exactly one per tenant per period, a second run emits nothing', async () => {
    const last = previousPeriod(periodOf(new Date()));
    const inLast = new Date(last.start.getTime() + 86_400_000);
    await h.db
      .insertInto('usage_records')
      .values([
        {
          id: 'use_r1',
          tenant_id: t.id,
          method: 'GET',
          endpoint: '/x',
          status: 200,
          api_key_id: null,
          actor: 'x',
          created_at: inLast,
        },
        {
          id: 'use_r2',
          tenant_id: t.id,
          method: 'GET',
          endpoint: '/x',
          status: 200,
          api_key_id: null,
          actor: 'x',
          created_at: inLast,
        },
      ])
      .execute();
    // tenants created now did not exist in the previous period: report a period they lived through
    await h.db.updateTable('tenants').set({ created_at: last.start }).where('id', '=', t.id).execute();

    const first = await h.request('POST', '/api/internal/usage/report', {
      ...internal(),
      body: { period: last.period },
    });
    expect(first.status).toBe(200);
    expect(first.body.period).toBe(last.period);
    expect(first.body.reported).toContain(t.id);
    expect(first.body.reported).not.toContain(other.id);

    const second = await h.request('POST', '/api/internal/usage/report', {
      ...internal(),
      body: { period: last.period },
    });
    expect(second.status).toBe(200);
    expect(second.body.reported).toEqual([]);

    const events = await h.db
      .selectFrom('events')
      .select(['payload'])
      .where('tenant_id', '=', t.id)
      .where('event_type', '=', 'usage.reported')
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({
      usage: {
        tenant_id: t.id,
        period: last.period,
        plan: 'starter',
        totals: { api_requests: 2, call_minutes: 0, conversations: 0, webhook_deliveries: 0 },
      },
    });
  });

  it('report: the current period is refused, the default is the previous month, API keys are refused', async () => {
    const current = periodOf(new Date());
    const res = await h.request('POST', '/api/internal/usage/report', {
      ...internal(),
      body: { period: current.period },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: `Period ${current.period} has not ended yet` });
    const dflt = await h.request('POST', '/api/internal/usage/report', internal());
    expect(dflt.status).toBe(200);
    expect(dflt.body.period).toBe(previousPeriod(current).period);
    const withKey = await h.request('POST', '/api/internal/usage/report', { apiKey: key, body: {} });
    expect(withKey.status).toBe(403);
    expect(withKey.body).toEqual({ detail: 'API keys are not permitted for this endpoint' });
  });
});
