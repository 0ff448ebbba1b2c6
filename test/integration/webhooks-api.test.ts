import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../shared/events/catalog';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

const VALID = `Valid events: ${EVENT_TYPES.join(', ')}`;

describe.skipIf(postgresUnavailable())('webhook subscriptions API', () => {
  let h: Harness;
  let a: TestTenant;
  let b: TestTenant;
  let keyA: string;
  let keyB: string;
  beforeAll(async () => {
    h = await startHarness({ WEBHOOK_SSRF_ALLOW: 'localhost' });
    a = await h.tenant({ name: 'A' });
    b = await h.tenant({ name: 'B' });
    keyA = await a.key(['webhooks:read', 'webhooks:write', 'webhooks:delete']);
    keyB = await b.key(['webhooks:read', 'webhooks:write', 'webhooks:delete']);
  }, 120_000);
  afterAll(() => h?.close(), 60_000);

  const create = (body: unknown, apiKey = keyA) => h.request('POST', '/api/v1/webhooks', { apiKey, body });

  it('creates: 201 with the record and a generated secret; a supplied secret is ignored', async () => {
    const res = await create({
      url: 'https://localhost:9/hook',
      events: ['ticket.created', 'ticket.created', 'call.started'],
      secret: 'mine',
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      ['created_at', 'description', 'events', 'id', 'is_active', 'secret', 'updated_at', 'url'].sort(),
    );
    expect(res.body).toMatchObject({
      url: 'https://localhost:9/hook',
      events: ['ticket.created', 'call.started'],
      is_active: true,
    });
    expect(res.body.id).toMatch(/^whk_/);
    expect(res.body.secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    expect(res.body.secret).not.toBe('mine');

    // encrypted at rest
    const row = await h.db
      .selectFrom('webhooks')
      .select('secret_encrypted')
      .where('id', '=', res.body.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_encrypted).not.toContain(res.body.secret);
    expect(row.secret_encrypted).toMatch(/^v1\./);

    // listed without the secret, no pagination fields
    const list = await h.request('GET', '/api/v1/webhooks', { apiKey: keyA });
    expect(list.status).toBe(200);
    expect(Object.keys(list.body)).toEqual(['webhooks']);
    const listed = list.body.webhooks.find((w: any) => w.id === res.body.id);
    expect(Object.keys(listed).sort()).toEqual([
      'created_at',
      'description',
      'events',
      'id',
      'is_active',
      'url',
    ]);
    expect(list.text).not.toContain(res.body.secret);
  });

  it('accepts * for every event', async () => {
    const res = await create({ url: 'https://localhost/all', events: ['*'] });
    expect(res.status).toBe(201);
    expect(res.body.events).toEqual(['*']);
  });

  it.each([
    [{ events: ['ticket.created'] }, ['body', 'url']],
    [{ url: 'https://localhost/x' }, ['body', 'events']],
    [{ url: 'https://localhost/x', events: [] }, ['body', 'events']],
    [{ url: 'https://localhost/x', events: 'ticket.created' }, ['body', 'events']],
    [{ url: 42, events: ['ticket.created'] }, ['body', 'url']],
  ])('refuses a malformed body %j with 422 at %j', async (body, loc) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
  });

  it.each([
    'http://localhost/hook',
    'ftp://example.com/x',
    'localhost/hook',
    ' https://localhost/x',
    // the spec's "must start with `https://`", to the letter (the console checks the same)
    'HTTPS://localhost/hook',
  ])('refuses the non-https url %j with 400', async (url) => {
    const res = await create({ url, events: ['ticket.created'] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Webhook URL must start with https://' });
  });

  it('refuses an unknown event with the spec string, naming the catalog', async () => {
    const res = await create({ url: 'https://localhost/x', events: ['ticket.created', 'ticket.exploded'] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: `Invalid event type: ticket.exploded. ${VALID}` });
    const star = await create({ url: 'https://localhost/x', events: ['tickets.*'] });
    expect(star.body.detail).toBe(`Invalid event type: tickets.*. ${VALID}`);
  });

  it('checks https before event names, and event names before DNS', async () => {
    expect((await create({ url: 'http://10.0.0.1/', events: ['nope'] })).body.detail).toBe(
      'Webhook URL must start with https://',
    );
    expect((await create({ url: 'https://10.0.0.1/', events: ['nope'] })).body.detail).toMatch(
      /^Invalid event type: nope\./,
    );
  });

  it.each([
    'https://127.0.0.1/hook',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.1/',
    'https://192.168.0.10/',
    'https://100.64.0.1/',
    'https://0x7f000001/',
    'https://2130706433/',
    'https://[fd00::1]/',
  ])('refuses the private/internal destination %s with 400', async (url) => {
    const res = await create({ url, events: ['ticket.created'] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Webhook URL host resolves to a private or reserved address' });
  });

  it('refuses a host that does not resolve with 400', async () => {
    const res = await create({ url: 'https://does-not-exist.invalid/hook', events: ['ticket.created'] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Webhook URL host could not be resolved' });
  });

  it('refuses a name that resolves to a private address without the allow list', {
    timeout: 120_000,
  }, async () => {
    const h2 = await startHarness();
    try {
      const t = await h2.tenant();
      const key = await t.key(['webhooks:write']);
      const res = await h2.request('POST', '/api/v1/webhooks', {
        apiKey: key,
        body: { url: 'https://localhost/hook', events: ['*'] },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Webhook URL host resolves to a private or reserved address' });
    } finally {
      await h2.close();
    }
  });

  it('deletes with webhooks:write + webhooks:delete (204), then 404 Webhook not found', async () => {
    const created = await create({ url: 'https://localhost/del', events: ['*'] });
    const writeOnly = await a.key(['webhooks:write']);
    const refused = await h.request('DELETE', `/api/v1/webhooks/${created.body.id}`, { apiKey: writeOnly });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Insufficient permissions: requires webhooks:delete' });

    const del = await h.request('DELETE', `/api/v1/webhooks/${created.body.id}`, { apiKey: keyA });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const again = await h.request('DELETE', `/api/v1/webhooks/${created.body.id}`, { apiKey: keyA });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: 'Webhook not found' });
    const unknown = await h.request('DELETE', '/api/v1/webhooks/whk_nope', { apiKey: keyA });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Webhook not found' });
    const list = await h.request('GET', '/api/v1/webhooks', { apiKey: keyA });
    expect(list.body.webhooks.map((w: any) => w.id)).not.toContain(created.body.id);
  });

  it('keeps tenants apart: B cannot list, read deliveries of, redeliver, recover or delete A webhooks', async () => {
    const created = await create({ url: 'https://localhost/a-only', events: ['*'] });
    const id = created.body.id;
    const listB = await h.request('GET', '/api/v1/webhooks', { apiKey: keyB });
    expect(listB.status).toBe(200);
    expect(listB.body.webhooks).toEqual([]);
    for (const [method, path, body] of [
      ['GET', `/api/v1/webhooks/${id}/deliveries`, undefined],
      ['DELETE', `/api/v1/webhooks/${id}`, undefined],
      ['POST', `/api/v1/webhooks/${id}/deliveries/dlv_x/redeliver`, undefined],
      ['POST', `/api/v1/webhooks/${id}/recover`, { since: '2026-01-01T00:00:00Z' }],
    ] as const) {
      const res = await h.request(method, path, { apiKey: keyB, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ detail: 'Webhook not found' });
    }
    const patch = await h.request('PATCH', `/api/v2/webhooks/${id}`, {
      bearer: b.adminToken,
      body: { is_active: false },
    });
    expect(patch.status).toBe(404);
    // still there for A
    expect((await h.request('GET', `/api/v1/webhooks/${id}/deliveries`, { apiKey: keyA })).status).toBe(200);
  });

  it('delivery log: limit default 50, 1..200, 422 outside', async () => {
    const created = await create({ url: 'https://localhost/log', events: ['*'] });
    const path = `/api/v1/webhooks/${created.body.id}/deliveries`;
    const ok = await h.request('GET', path, { apiKey: keyA });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ deliveries: [], next_cursor: null });
    for (const limit of ['0', '201', '-1', 'abc', '1.5']) {
      const res = await h.request('GET', `${path}?limit=${limit}`, { apiKey: keyA });
      expect(res.status, limit).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'limit']);
    }
    for (const limit of ['1', '200'])
      expect((await h.request('GET', `${path}?limit=${limit}`, { apiKey: keyA })).status).toBe(200);
    const readOnly = await a.key(['webhooks:read']);
    expect((await h.request('GET', path, { apiKey: readOnly })).status).toBe(200);
    const denied = await h.request('POST', '/api/v1/webhooks', {
      apiKey: readOnly,
      body: { url: 'https://localhost/x', events: ['*'] },
    });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ detail: 'API key missing required scope: webhooks:write' });
  });

  it('GET /api/v1/webhooks/{id}: the list fields and updated_at, never the secret; webhooks:read; 404 otherwise', async () => {
    const created = await create({ url: 'https://localhost/one', events: ['ticket.created'] });
    const id = created.body.id;
    const readOnly = await a.key(['webhooks:read']);
    const res = await h.request('GET', `/api/v1/webhooks/${id}`, { apiKey: readOnly });
    expect(res.status).toBe(200);
    const listed = (await h.request('GET', '/api/v1/webhooks', { apiKey: keyA })).body.webhooks.find(
      (w: { id: string }) => w.id === id,
    );
    const { secret: _secret, ...asCreated } = created.body;
    // the single read adds the endpoint's health, rate limit and auto_recover to the record
    const { health, rate_limit, auto_recover, ...record } = res.body;
    expect(record).toEqual(asCreated);
    expect(record).toEqual({ ...listed, updated_at: created.body.updated_at });
    expect(health.state).toBe('healthy');
    expect(rate_limit).toBeNull();
    expect(auto_recover).toBe(true);
    expect(Object.keys(record).sort()).toEqual([
      'created_at',
      'description',
      'events',
      'id',
      'is_active',
      'updated_at',
      'url',
    ]);
    expect(res.text).not.toContain(created.body.secret);
    const noScope = await h.request('GET', `/api/v1/webhooks/${id}`, {
      apiKey: await a.key(['tickets:read']),
    });
    expect(noScope.status).toBe(403);
    expect(noScope.body).toEqual({ detail: 'API key missing required scope: webhooks:read' });
    for (const [path, apiKey] of [
      [`/api/v1/webhooks/${id}`, keyB],
      ['/api/v1/webhooks/whk_nope', keyA],
    ] as const) {
      const missing = await h.request('GET', path, { apiKey });
      expect(missing.status, path).toBe(404);
      expect(missing.body).toEqual({ detail: 'Webhook not found' });
    }
    await h.request('DELETE', `/api/v1/webhooks/${id}`, { apiKey: keyA });
    expect((await h.request('GET', `/api/v1/webhooks/${id}`, { apiKey: keyA })).status).toBe(404);
  });

  it('delivery log pages past its newest with ?before=<delivery id>, most recent first', async () => {
    const created = await create({ url: 'https://localhost/pages', events: ['*'] });
    const hookId = created.body.id as string;
    // 7 deliveries, two of them in the same instant (the id breaks the tie)
    const base = Date.parse('2026-03-01T00:00:00Z');
    const times = [0, 1, 2, 3, 3, 5, 6].map((s) => new Date(base + s * 1000));
    const ids = times.map((_, i) => `dlv_page${String(i).padStart(2, '0')}`);
    await h.db
      .insertInto('webhook_deliveries')
      .values(
        ids.map((id, i) => ({
          id,
          tenant_id: a.id,
          webhook_id: hookId,
          event_type: 'ticket.created',
          payload: JSON.stringify({}),
          event_created_at: times[i]!,
          status: 'delivered' as const,
          created_at: times[i]!,
        })),
      )
      .execute();
    const path = `/api/v1/webhooks/${hookId}/deliveries`;
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const res = await h.request('GET', `${path}?limit=3${before ? `&before=${before}` : ''}`, {
        apiKey: keyA,
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['deliveries', 'next_cursor']); // no total or offset
      const page = res.body.deliveries.map((d: { id: string }) => d.id);
      if (page.length === 0) break;
      seen.push(...page);
      before = page.at(-1);
    }
    expect(seen).toEqual([...ids].reverse());
    // a cursor that is not one of this webhook's deliveries is bad input, not an empty page
    const other = await create({ url: 'https://localhost/other', events: ['*'] });
    for (const cursor of ['dlv_nope', ids[0]]) {
      const url = cursor === ids[0] ? `/api/v1/webhooks/${other.body.id}/deliveries` : path;
      const res = await h.request('GET', `${url}?before=${cursor}`, { apiKey: keyA });
      expect(res.status, cursor).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['query', 'before'], type: 'value_error' });
    }
    expect((await h.request('GET', `${path}?before=`, { apiKey: keyA })).status).toBe(422);
  });

  it('dashboard v2: PATCH is_active/url/events with the same validation; API keys refused', async () => {
    const created = await create({ url: 'https://localhost/p', events: ['ticket.created'] });
    const path = `/api/v2/webhooks/${created.body.id}`;
    const res = await h.request('PATCH', path, {
      bearer: a.adminToken,
      body: { is_active: false, events: ['call.started', '*'], url: 'https://localhost/p2' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      is_active: false,
      events: ['call.started', '*'],
      url: 'https://localhost/p2',
    });
    expect(res.body.secret).toBeUndefined();
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(res.body.created_at));

    expect(
      (await h.request('PATCH', path, { bearer: a.adminToken, body: { url: 'http://localhost/' } })).body,
    ).toEqual({
      detail: 'Webhook URL must start with https://',
    });
    expect(
      (await h.request('PATCH', path, { bearer: a.adminToken, body: { events: ['x.y'] } })).body,
    ).toEqual({
      detail: `Invalid event type: x.y. ${VALID}`,
    });
    expect(
      (await h.request('PATCH', path, { bearer: a.adminToken, body: { url: 'https://10.0.0.1/' } })).status,
    ).toBe(400);
    expect((await h.request('PATCH', path, { bearer: a.adminToken, body: {} })).status).toBe(422);
    expect((await h.request('PATCH', path, { bearer: a.adminToken, body: { secret: 'x' } })).status).toBe(
      422,
    );
    const agent = await a.token('agent');
    expect((await h.request('PATCH', path, { bearer: agent, body: { is_active: true } })).status).toBe(403);
    const key = await h.request('PATCH', path, { apiKey: keyA, body: { is_active: true } });
    expect(key.status).toBe(403);
    expect(
      (
        await h.request('PATCH', '/api/v2/webhooks/whk_nope', {
          bearer: a.adminToken,
          body: { is_active: true },
        })
      ).body,
    ).toEqual({
      detail: 'Webhook not found',
    });

    const types = await h.request('GET', '/api/v2/webhooks/event-types', { bearer: agent });
    expect(types.status).toBe(200);
    expect(types.body.event_types).toEqual([...EVENT_TYPES]);
    expect(types.body.wildcard).toBe('*');
    expect((await h.request('GET', '/api/v2/webhooks/event-types', { apiKey: keyA })).status).toBe(403);
  });

  it('writes audit entries for create, update and delete', async () => {
    const created = await create({ url: 'https://localhost/audit', events: ['*'] });
    await h.request('PATCH', `/api/v2/webhooks/${created.body.id}`, {
      bearer: a.adminToken,
      body: { is_active: false },
    });
    await h.request('DELETE', `/api/v1/webhooks/${created.body.id}`, { apiKey: keyA });
    const rows = await h.db
      .selectFrom('audit_log')
      .select(['action', 'metadata'])
      .where('target_id', '=', created.body.id)
      .orderBy('created_at')
      .execute();
    expect(rows.map((r) => r.action)).toEqual(['webhook.created', 'webhook.updated', 'webhook.deleted']);
    expect(JSON.stringify(rows)).not.toContain(created.body.secret);
  });
});
