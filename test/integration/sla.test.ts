import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedRuntime } from '../../scripts/embedded';
import { createPostgresHandle } from '../../shared/db/adapters/pg';
import { loadConfig } from '../../shared/env';
import { createNodeLogger } from '../../shared/log/logger.node.js';
import {
  type Harness,
  postgresUnavailable,
  startHarness,
  TEST_DB,
  TEST_SECRETS,
  type TestTenant,
} from '../support/harness';

const MIN = 60_000;

describe.skipIf(postgresUnavailable())('SLA policies on tickets and conversations', () => {
  let h: Harness;
  let t: TestTenant;
  let agent: string;
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    agent = await t.token('agent');
  });
  afterAll(() => h?.close());

  const admin = (method: string, path: string, body?: unknown) =>
    h.request(method, path, { bearer: t.adminToken, ...(body === undefined ? {} : { body }) });
  const ticketEvents = async (ticketId: string) => {
    const rows = await h.db
      .selectFrom('events')
      .selectAll()
      .where('tenant_id', '=', t.id)
      .where('event_type', '=', 'ticket.updated')
      .where(sql<string>`payload->'ticket'->>'id'`, '=', ticketId)
      .orderBy('created_at')
      .execute();
    return rows.map((r) => ({
      created_at: new Date(r.created_at).toISOString(),
      data: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as any,
    }));
  };
  const until = async (check: () => Promise<boolean>, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('business hours and policies: admin writes, any session reads, bad input 422, other tenants 404, audited', async () => {
    const hours = await admin('POST', '/api/v2/business-hours', {
      name: 'Berlin',
      timezone: 'Europe/Berlin',
      intervals: [{ day: 1, start: '09:00', end: '17:00' }],
      holidays: [{ date: '2026-12-25', name: 'Christmas' }],
    });
    expect(hours.status, hours.text).toBe(201);
    expect(hours.body).toMatchObject({ id: expect.stringMatching(/^bhr_/), timezone: 'Europe/Berlin' });
    expect(
      (await h.request('GET', `/api/v2/business-hours/${hours.body.id}`, { bearer: agent })).status,
    ).toBe(200);
    const denied = await h.request('POST', '/api/v2/business-hours', {
      bearer: agent,
      body: { name: 'x', timezone: 'UTC', intervals: [] },
    });
    expect(denied.status).toBe(403);
    const badZone = await admin('POST', '/api/v2/business-hours', {
      name: 'x',
      timezone: 'Mars/Base',
      intervals: [],
    });
    expect(badZone.status).toBe(422);
    expect(badZone.body.detail[0].loc).toEqual(['body', 'timezone']);
    const badTime = await admin('POST', '/api/v2/business-hours', {
      name: 'x',
      timezone: 'UTC',
      intervals: [{ day: 8, start: '25:00', end: '17:00' }],
    });
    expect(badTime.status).toBe(422);

    const policy = await admin('POST', '/api/v2/sla-policies', {
      name: 'Berlin hours',
      business_hours_id: hours.body.id,
      conditions: { tags: ['never-used'] },
      first_response_minutes: 60,
    });
    expect(policy.status, policy.text).toBe(201);
    expect(policy.body).toMatchObject({ position: 0, resolution_minutes: null });
    const unknownHours = await admin('POST', '/api/v2/sla-policies', {
      name: 'x',
      business_hours_id: 'bhr_nope',
    });
    expect(unknownHours.status).toBe(422);
    expect(unknownHours.body.detail[0].loc).toEqual(['body', 'business_hours_id']);
    expect(
      (await admin('POST', '/api/v2/sla-policies', { name: 'x', first_response_minutes: 525_601 })).status,
    ).toBe(422);
    // hours in use cannot go
    expect((await admin('DELETE', `/api/v2/business-hours/${hours.body.id}`)).status).toBe(409);

    const other = await h.tenant({ name: 'Other' });
    const theirs = (p: string) => h.request('GET', p, { bearer: other.adminToken });
    expect((await theirs(`/api/v2/business-hours/${hours.body.id}`)).status).toBe(404);
    expect((await theirs(`/api/v2/sla-policies/${policy.body.id}`)).status).toBe(404);
    expect(
      (await h.request('DELETE', `/api/v2/sla-policies/${policy.body.id}`, { bearer: other.adminToken }))
        .status,
    ).toBe(404);

    const patched = await admin('PATCH', `/api/v2/sla-policies/${policy.body.id}`, { position: 50 });
    expect(patched.body.position).toBe(50);
    expect((await admin('DELETE', `/api/v2/sla-policies/${policy.body.id}`)).status).toBe(204);
    expect((await admin('DELETE', `/api/v2/business-hours/${hours.body.id}`)).status).toBe(204);
    const log = await admin('GET', '/api/v2/audit-log?limit=200');
    const actions = log.body.entries.map((e: any) => e.action);
    for (const a of [
      'business_hours.created',
      'business_hours.deleted',
      'sla_policy.created',
      'sla_policy.updated',
      'sla_policy.deleted',
    ])
      expect(actions).toContain(a);
  });

  it('tickets: chosen at creation, first response, re-chosen on priority change, resolve and reopen', async () => {
    const urgent = await admin('POST', '/api/v2/sla-policies', {
      name: 'Urgent',
      position: 10,
      conditions: { priorities: ['urgent'] },
      first_response_minutes: 60,
      resolution_minutes: 240,
    });
    const high = await admin('POST', '/api/v2/sla-policies', {
      name: 'High',
      position: 11,
      conditions: { priorities: ['high'] },
      first_response_minutes: 120,
      resolution_minutes: 480,
    });
    const created = await h.request('POST', '/api/v1/tickets', {
      bearer: agent,
      body: { subject: 'SLA', priority: 'urgent' },
    });
    expect(created.status, created.text).toBe(201);
    const c0 = Date.parse(created.body.created_at);
    expect(created.body.sla).toEqual({
      policy_id: urgent.body.id,
      first_response_due_at: new Date(c0 + 60 * MIN).toISOString(),
      first_response_at: null,
      first_response_breached: false,
      resolution_due_at: new Date(c0 + 240 * MIN).toISOString(),
      resolution_breached: false,
    });
    const id = created.body.id;
    const get = async () => (await h.request('GET', `/api/v1/tickets/${id}`, { bearer: agent })).body;

    // an internal note is not a first response; a public reply is
    await h.request('POST', `/api/v1/tickets/${id}/replies`, {
      bearer: agent,
      body: { body: 'note', is_public: false },
    });
    expect((await get()).sla.first_response_at).toBeNull();
    const reply = await h.request('POST', `/api/v1/tickets/${id}/replies`, {
      bearer: agent,
      body: { body: 'hi' },
    });
    expect((await get()).sla.first_response_at).toBe(reply.body.created_at);

    // priority high: the other policy, its targets counted from creation
    await h.request('PATCH', `/api/v1/tickets/${id}`, { bearer: agent, body: { priority: 'high' } });
    const afterChange = (await get()).sla;
    expect(afterChange).toMatchObject({
      policy_id: high.body.id,
      first_response_due_at: new Date(c0 + 120 * MIN).toISOString(),
      first_response_at: reply.body.created_at,
      resolution_due_at: new Date(c0 + 480 * MIN).toISOString(),
    });
    // priority low: no policy applies
    await h.request('PATCH', `/api/v1/tickets/${id}`, { bearer: agent, body: { priority: 'low' } });
    expect((await get()).sla).toBeNull();
    await h.request('PATCH', `/api/v1/tickets/${id}`, { bearer: agent, body: { priority: 'urgent' } });

    // resolved: no due time left in the queue; reopened: the resolution clock starts again
    await h.request('PATCH', `/api/v1/tickets/${id}`, { bearer: agent, body: { status: 'resolved' } });
    const queue = await h.request('GET', '/api/v1/tickets?sort=sla_due_at&limit=100', { bearer: agent });
    expect(queue.body.tickets.map((x: any) => x.id)).not.toContain(id);
    const reopened = await h.request('PATCH', `/api/v1/tickets/${id}`, {
      bearer: agent,
      body: { status: 'open' },
    });
    const r0 = Date.parse(reopened.body.updated_at);
    expect(reopened.body.sla.resolution_due_at).toBe(new Date(r0 + 240 * MIN).toISOString());
    const queued = await h.request('GET', '/api/v1/tickets?sort=sla_due_at&limit=100', { bearer: agent });
    expect(queued.body.tickets.map((x: any) => x.id)).toContain(id);

    await admin('DELETE', `/api/v2/sla-policies/${urgent.body.id}`);
    await admin('DELETE', `/api/v2/sla-policies/${high.body.id}`);
  });

  it('a breach is recorded by the scheduled check with no request touching the ticket, once, with ticket.updated carrying sla', async () => {
    const zero = await admin('POST', '/api/v2/sla-policies', {
      name: 'Immediate',
      position: 20,
      conditions: { tags: ['immediate'] },
      first_response_minutes: 0,
    });
    const created = await h.request('POST', '/api/v1/tickets', {
      bearer: agent,
      body: { subject: 'Breach me', tags: ['immediate'] },
    });
    const id = created.body.id;
    expect(created.body.sla.first_response_due_at).toBe(created.body.created_at);
    // nothing touches the ticket: the in-process check records the breach
    await until(async () => (await ticketEvents(id)).length > 0);
    await h.runtime.slaChecker.runOnce();
    const events = await ticketEvents(id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data.changes).toEqual({ 'sla.first_response_breached': { from: false, to: true } });
    expect(events[0]!.data.ticket.sla).toMatchObject({
      policy_id: zero.body.id,
      first_response_breached: true,
    });
    expect(events[0]!.created_at).toBe(created.body.created_at);
    const read = await h.request('GET', `/api/v1/tickets/${id}`, { bearer: agent });
    expect(read.body.sla.first_response_breached).toBe(true);

    // the lists: breached, and by due time
    const breached = await h.request('GET', '/api/v1/tickets?sla_breached=true', { bearer: agent });
    expect(breached.body.tickets.map((x: any) => x.id)).toContain(id);
    expect(breached.body.total).toBe(breached.body.tickets.length);
    const fine = await h.request('GET', '/api/v1/tickets?sla_breached=false&limit=100', { bearer: agent });
    expect(fine.body.tickets.map((x: any) => x.id)).not.toContain(id);
    const before = await h.request(
      'GET',
      `/api/v1/tickets?sla_due_before=${encodeURIComponent(new Date(Date.now() + MIN).toISOString())}`,
      {
        bearer: agent,
      },
    );
    expect(before.body.tickets.map((x: any) => x.id)).toContain(id);
    expect((await h.request('GET', '/api/v1/tickets?sla_breached=maybe', { bearer: agent })).status).toBe(
      422,
    );
    await admin('DELETE', `/api/v2/sla-policies/${zero.body.id}`);
  });

  it('a breach recorded late (after an outage) is dated when it fell due', async () => {
    const policy = await admin('POST', '/api/v2/sla-policies', {
      name: 'Late',
      position: 30,
      conditions: { tags: ['late'] },
      first_response_minutes: 600,
    });
    const created = await h.request('POST', '/api/v1/tickets', {
      bearer: agent,
      body: { subject: 'Late', tags: ['late'] },
    });
    const id = created.body.id;
    // as if the due time had passed while no process ran: three hours ago
    const due = new Date(Date.now() - 3 * 3_600_000);
    await h.db
      .updateTable('tickets')
      .set({ sla_first_response_due_at: due, sla_due_at: due, sla_check_at: due })
      .where('id', '=', id)
      .execute();
    await h.runtime.slaChecker.runOnce();
    const events = await ticketEvents(id);
    expect(events).toHaveLength(1);
    expect(events[0]!.created_at).toBe(due.toISOString());
    expect(events[0]!.data.ticket.sla.first_response_due_at).toBe(due.toISOString());
    await admin('DELETE', `/api/v2/sla-policies/${policy.body.id}`);
  });

  it('sort=sla_due_at pages by cursor, soonest first', async () => {
    const policy = await admin('POST', '/api/v2/sla-policies', {
      name: 'Queue',
      position: 40,
      conditions: { tags: ['queue'] },
      first_response_minutes: 1000,
    });
    for (let i = 0; i < 5; i++)
      await h.request('POST', '/api/v1/tickets', {
        bearer: agent,
        body: { subject: `q${i}`, tags: ['queue'] },
      });
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const res: any = await h.request(
        'GET',
        `/api/v1/tickets?sort=sla_due_at&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        {
          bearer: agent,
        },
      );
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.tickets.map((x: any) => x.sla.first_response_due_at ?? x.sla.resolution_due_at));
      cursor = res.body.next_cursor;
    }
    expect(seen.length).toBeGreaterThanOrEqual(5);
    expect([...seen].sort()).toEqual(seen);
    await admin('DELETE', `/api/v2/sla-policies/${policy.body.id}`);
  });

  it('conversations: chosen by channel, first response is an outbound message that is not internal', async () => {
    const policy = await admin('POST', '/api/v2/sla-policies', {
      name: 'Email',
      position: 50,
      conditions: { channels: ['email'] },
      first_response_minutes: 30,
      resolution_minutes: 600,
    });
    const created = await h.request('POST', '/api/v2/conversations', {
      bearer: agent,
      body: { channel: 'email' },
    });
    expect(created.status, created.text).toBe(201);
    const c0 = Date.parse(created.body.created_at);
    expect(created.body.sla).toMatchObject({
      policy_id: policy.body.id,
      first_response_due_at: new Date(c0 + 30 * MIN).toISOString(),
    });
    const id = created.body.id;
    const get = async () => (await h.request('GET', `/api/v2/conversations/${id}`, { bearer: agent })).body;
    await h.request('POST', `/api/v2/conversations/${id}/messages`, {
      bearer: agent,
      body: { body: 'n', is_internal: true },
    });
    expect((await get()).sla.first_response_at).toBeNull();
    const msg = await h.request('POST', `/api/v2/conversations/${id}/messages`, {
      bearer: agent,
      body: { body: 'hello' },
    });
    expect((await get()).sla.first_response_at).toBe(msg.body.created_at);
    const api = await h.request('POST', '/api/v2/conversations', { bearer: agent, body: { channel: 'api' } });
    expect(api.body.sla).toBeNull();
    const list = await h.request('GET', '/api/v2/conversations?sla_breached=false&sort=sla_due_at', {
      bearer: agent,
    });
    expect(list.status, list.text).toBe(200);
    expect(list.body.conversations.map((x: any) => x.id)).toContain(id);
    expect(list.body.conversations.map((x: any) => x.id)).not.toContain(api.body.id);
    await admin('DELETE', `/api/v2/sla-policies/${policy.body.id}`);
  });

  it.skipIf(TEST_DB !== 'postgres')('two processes on one database record each breach once', async () => {
    const config = loadConfig({ APP_ENV: 'test', ...TEST_SECRETS });
    const handle = createPostgresHandle(h.databaseUrl!, { max: 3 });
    const second = await createEmbeddedRuntime({
      config,
      handle,
      logger: createNodeLogger({ level: 'error', destination: { write: () => {} } }),
    });
    try {
      const policy = await admin('POST', '/api/v2/sla-policies', {
        name: 'Race',
        position: 60,
        conditions: { tags: ['race'] },
        first_response_minutes: 0,
      });
      const ids: string[] = [];
      for (let i = 0; i < 10; i++)
        ids.push(
          (
            await h.request('POST', '/api/v1/tickets', {
              bearer: agent,
              body: { subject: `r${i}`, tags: ['race'] },
            })
          ).body.id,
        );
      await until(async () => {
        for (const id of ids) if ((await ticketEvents(id)).length === 0) return false;
        return true;
      });
      await Promise.all([h.runtime.slaChecker.runOnce(), second.slaChecker.runOnce()]);
      for (const id of ids) expect(await ticketEvents(id)).toHaveLength(1);
      await admin('DELETE', `/api/v2/sla-policies/${policy.body.id}`);
    } finally {
      await second.close();
      await handle.close();
    }
  });
});
