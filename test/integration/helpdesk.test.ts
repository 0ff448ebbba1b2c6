import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsFor } from '../support/events';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

/** Teams that route, saved replies and ticket fields (docs/helpdesk.md), on both databases. */
describe.skipIf(postgresUnavailable())('the help desk', () => {
  let h: Harness;
  let t: TestTenant;
  let admin: string;
  const members = ['tus_m1', 'tus_m2', 'tus_m3', 'tus_m4'];

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    admin = t.adminToken;
    for (const [i, id] of [...members, 'tus_off', 'tus_admin'].entries())
      await h.db
        .insertInto('tenant_users')
        .values({
          id,
          tenant_id: t.id,
          email: `${id}@acme.example`,
          name: id === 'tus_admin' ? 'Ana Admin' : `Agent ${i + 1}`,
          role: id === 'tus_admin' ? 'tenant_admin' : 'agent',
          updated_at: new Date(),
          disabled_at: id === 'tus_off' ? new Date() : null,
        })
        .execute();
    admin = await t.token('tenant_admin', 'tus_admin');
  });
  afterAll(() => h?.close());

  const team = async (body: Record<string, unknown>) => {
    const res = await h.request('POST', '/api/v2/teams', {
      bearer: admin,
      body: { name: 'Billing', ...body },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const conversation = async () => {
    const res = await h.request('POST', '/api/v2/conversations', { bearer: admin, body: { channel: 'api' } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const assign = (id: string, body: unknown) =>
    h.request('POST', `/api/v2/conversations/${id}/assign`, { bearer: admin, body });
  const ticket = async (body: Record<string, unknown> = {}) => {
    const res = await h.request('POST', '/api/v1/tickets', {
      bearer: admin,
      body: { subject: 'S', ...body },
    });
    return res;
  };
  const ticketCount = async () =>
    Number(
      (
        await h.db
          .selectFrom('tickets')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('tenant_id', '=', t.id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  describe('teams', () => {
    it('CRUD for tenant admins, reads for agents, 403 for API keys, each change audited', async () => {
      const id = await team({ routing: 'round_robin', member_ids: members.slice(0, 2) });
      const agent = await t.token('agent', 'tus_m1');
      expect((await h.request('GET', `/api/v2/teams/${id}`, { bearer: agent })).body).toMatchObject({
        id,
        name: 'Billing',
        routing: 'round_robin',
        member_ids: ['tus_m1', 'tus_m2'],
      });
      expect((await h.request('POST', '/api/v2/teams', { bearer: agent, body: { name: 'x' } })).status).toBe(
        403,
      );
      const key = await t.key(['tickets:read']);
      expect((await h.request('GET', '/api/v2/teams', { apiKey: key })).status).toBe(403);
      const patched = await h.request('PATCH', `/api/v2/teams/${id}`, {
        bearer: admin,
        body: { routing: 'balanced' },
      });
      expect(patched.body.routing).toBe('balanced');
      // members must be active users of the tenant
      const bad = await h.request('PATCH', `/api/v2/teams/${id}`, {
        bearer: admin,
        body: { member_ids: ['tus_m1', 'tus_off', 'tus_nobody'] },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.detail.map((d: any) => d.loc)).toEqual([
        ['body', 'member_ids', 1],
        ['body', 'member_ids', 2],
      ]);
      const other = await h.tenant();
      expect((await h.request('GET', `/api/v2/teams/${id}`, { bearer: other.adminToken })).status).toBe(404);
      expect((await h.request('DELETE', `/api/v2/teams/${id}`, { bearer: admin })).status).toBe(204);
      const log = await h.request('GET', `/api/v2/audit-log?target_id=${id}`, { bearer: admin });
      expect(log.body.entries.map((e: any) => e.action)).toEqual([
        'team.deleted',
        'team.updated',
        'team.created',
      ]);
    });

    it('round robin over four members for 40 assignments gives each 10, in turn, with routing_reason', async () => {
      const id = await team({ routing: 'round_robin', member_ids: members });
      const picked: string[] = [];
      for (let i = 0; i < 40; i++) {
        const cnv = await conversation();
        const res = await assign(cnv, { assignee_team_id: id });
        expect(res.status, res.text).toBe(200);
        picked.push(res.body.assignee_user_id);
        if (i === 0) {
          const [event] = await eventsFor(h, t.id, 'conversation.assigned', cnv);
          expect(event.routing_reason).toBe('round_robin');
          expect(event.conversation.assignee_user_id).toBe(res.body.assignee_user_id);
        }
      }
      expect(picked.slice(0, 5)).toEqual([...members, members[0]]);
      for (const m of members) expect(picked.filter((p) => p === m)).toHaveLength(10);
    });

    it('concurrent assignments stay in turn: the team row lock serialises the picks', async () => {
      const id = await team({ routing: 'round_robin', member_ids: members });
      const cnvs = await Promise.all(Array.from({ length: 8 }, () => conversation()));
      const answers = await Promise.all(cnvs.map((c) => assign(c, { assignee_team_id: id })));
      const picked = answers.map((a) => a.body.assignee_user_id).sort();
      expect(picked).toEqual([...members, ...members].sort());
    });

    it('balanced picks the member with the fewest open assignments; a disabled member is skipped', async () => {
      const id = await team({ routing: 'balanced', member_ids: ['tus_m4', 'tus_m1', 'tus_m2', 'tus_m3'] });
      // m4, with no open work at all, is disabled after joining: never picked
      const disable = (at: Date | null) =>
        h.db.updateTable('tenant_users').set({ disabled_at: at }).where('id', '=', 'tus_m4').execute();
      await disable(new Date());
      // open load: m1 has 3 open, m2 1 open (+2 resolved, which do not count), m3 2 open
      const load = { tus_m1: 3, tus_m2: 1, tus_m3: 2 };
      await h.db.deleteFrom('tickets').where('tenant_id', '=', t.id).execute();
      await h.db.deleteFrom('conversations').where('tenant_id', '=', t.id).execute();
      for (const [user, n] of Object.entries(load))
        for (let i = 0; i < n; i++) expect((await ticket({ assignee_id: user })).status).toBe(201);
      for (let i = 0; i < 2; i++)
        expect((await ticket({ assignee_id: 'tus_m2', status: 'pending' })).status).toBe(201);
      await h.db
        .updateTable('tickets')
        .set({ status: 'resolved' })
        .where('tenant_id', '=', t.id)
        .where('status', '=', 'pending')
        .execute();
      const first = await assign(await conversation(), { assignee_team_id: id });
      expect(first.body.assignee_user_id).toBe('tus_m2');
      // m2 now has 2 open, like m3: the tie goes to the next in turn after m2, which is m3
      const second = await assign(await conversation(), { assignee_team_id: id });
      expect(second.body.assignee_user_id).toBe('tus_m3');
      const [event] = await eventsFor(h, t.id, 'conversation.assigned', second.body.id);
      expect(event.routing_reason).toBe('balanced');
      await disable(null);
      expect((await assign(await conversation(), { assignee_team_id: id })).body.assignee_user_id).toBe(
        'tus_m4',
      );
    });

    it('a member who is no longer a user of the tenant is skipped by round robin', async () => {
      await h.db
        .insertInto('tenant_users')
        .values({
          id: 'tus_gone',
          tenant_id: t.id,
          email: 'gone@acme.example',
          name: 'Gone',
          role: 'agent',
          updated_at: new Date(),
        })
        .execute();
      const id = await team({ routing: 'round_robin', member_ids: ['tus_gone', 'tus_m1'] });
      await h.db.deleteFrom('tenant_users').where('id', '=', 'tus_gone').execute();
      for (let i = 0; i < 3; i++)
        expect((await assign(await conversation(), { assignee_team_id: id })).body.assignee_user_id).toBe(
          'tus_m1',
        );
    });

    it('tickets: PATCH assignee_team_id picks the assignee, the list filters by team, deleting the team nulls it', async () => {
      const id = await team({ routing: 'round_robin', member_ids: ['tus_m4'] });
      const created = await ticket();
      const patched = await h.request('PATCH', `/api/v1/tickets/${created.body.id}`, {
        bearer: admin,
        body: { assignee_team_id: id },
      });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body).toMatchObject({ assignee_team_id: id, assignee_id: 'tus_m4' });
      const listed = await h.request('GET', `/api/v1/tickets?assignee_team_id=${id}`, { bearer: admin });
      expect(listed.body.tickets.map((x: any) => x.id)).toEqual([created.body.id]);
      expect(listed.body.total).toBe(1);
      const unknown = await h.request('PATCH', `/api/v1/tickets/${created.body.id}`, {
        bearer: admin,
        body: { assignee_team_id: 'team_nope' },
      });
      expect(unknown.status).toBe(422);
      expect(unknown.body.detail[0].loc).toEqual(['body', 'assignee_team_id']);
      const cnv = await conversation();
      await assign(cnv, { assignee_team_id: id });
      expect((await h.request('DELETE', `/api/v2/teams/${id}`, { bearer: admin })).status).toBe(204);
      const after = await h.request('GET', `/api/v1/tickets/${created.body.id}`, { bearer: admin });
      expect(after.body).toMatchObject({ assignee_team_id: null, assignee_id: 'tus_m4' });
      const conv = await h.request('GET', `/api/v2/conversations/${cnv}`, { bearer: admin });
      expect(conv.body.assignee_team_id).toBeNull();
    });
  });

  describe('saved replies', () => {
    it('refuses an unknown placeholder at creation, naming it, and writes nothing', async () => {
      const res = await h.request('POST', '/api/v2/saved-replies', {
        bearer: admin,
        body: { title: 'Bad', body: 'Hi {{contact.nickname}}' },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'body']);
      expect(res.body.detail[0].msg).toContain('{{contact.nickname}}');
      const rows = await h.db
        .selectFrom('saved_replies')
        .select('id')
        .where('tenant_id', '=', t.id)
        .execute();
      expect(rows).toEqual([]);
    });

    it('renders its placeholders on a conversation message and a ticket reply; the events carry the text', async () => {
      const made = await h.request('POST', '/api/v2/saved-replies', {
        bearer: admin,
        body: {
          title: 'Thanks',
          body: 'Hi {{contact.first_name}}{{contact.last_name}}, re {{ticket.subject}}{{conversation.id}} - {{agent.name}}',
        },
      });
      expect(made.status, made.text).toBe(201);
      const tkt = await ticket({ subject: 'Printer', requester_name: 'Rui Costa' });
      const reply = await h.request('POST', `/api/v1/tickets/${tkt.body.id}/replies`, {
        bearer: admin,
        body: { saved_reply_id: made.body.id },
      });
      expect(reply.status, reply.text).toBe(201);
      expect(reply.body.body).toBe('Hi RuiCosta, re Printer - Ana Admin');
      const replied = await h.db
        .selectFrom('events')
        .select('payload')
        .where('tenant_id', '=', t.id)
        .where('event_type', '=', 'ticket.replied')
        .where(sql<string>`payload->'ticket'->>'id'`, '=', tkt.body.id)
        .executeTakeFirstOrThrow();
      expect((replied.payload as any).reply.body).toBe('Hi RuiCosta, re Printer - Ana Admin');
      const cnv = await conversation();
      const msg = await h.request('POST', `/api/v2/conversations/${cnv}/messages`, {
        bearer: admin,
        body: { saved_reply_id: made.body.id },
      });
      expect(msg.status, msg.text).toBe(201);
      // no contact: the contact placeholders render as empty text
      expect(msg.body.body).toBe(`Hi , re ${cnv} - Ana Admin`);
      const [sent] = await eventsFor(h, t.id, 'message.sent', cnv);
      expect(sent.message.body).toBe(`Hi , re ${cnv} - Ana Admin`);
    });

    it('a personal reply is seen and used by its author only', async () => {
      const made = await h.request('POST', '/api/v2/saved-replies', {
        bearer: admin,
        body: { title: 'Mine', body: 'Only mine', visibility: 'personal' },
      });
      expect(made.status).toBe(201);
      const agent = await t.token('agent', 'tus_m1');
      expect(
        (await h.request('GET', `/api/v2/saved-replies/${made.body.id}`, { bearer: agent })).status,
      ).toBe(404);
      const list = await h.request('GET', '/api/v2/saved-replies', { bearer: agent });
      expect(list.body.saved_replies.map((r: any) => r.id)).not.toContain(made.body.id);
      const cnv = await conversation();
      const refused = await h.request('POST', `/api/v2/conversations/${cnv}/messages`, {
        bearer: agent,
        body: { saved_reply_id: made.body.id },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(['body', 'saved_reply_id']);
    });
  });

  describe('ticket fields', () => {
    let plan: string;
    beforeAll(async () => {
      for (const body of [
        { key: 'plan', label: 'Plan', type: 'dropdown', options: ['free', 'pro'], required: true },
        { key: 'seats', label: 'Seats', type: 'number' },
        { key: 'renews_on', label: 'Renews on', type: 'date' },
        { key: 'vip', label: 'VIP', type: 'checkbox' },
        { key: 'areas', label: 'Areas', type: 'multiselect', options: ['billing', 'api', 'ui'] },
        { key: 'order_ref', label: 'Order', type: 'text' },
      ]) {
        const res = await h.request('POST', '/api/v2/ticket-fields', { bearer: admin, body });
        expect(res.status, res.text).toBe(201);
        if (body.key === 'plan') plan = res.body.id;
      }
    });

    it('key rules: lower-case letters, digits and _, unique in the tenant; options only for choices', async () => {
      const post = (body: unknown) => h.request('POST', '/api/v2/ticket-fields', { bearer: admin, body });
      expect((await post({ key: 'Plan', label: 'x', type: 'text' })).body.detail[0].loc).toEqual([
        'body',
        'key',
      ]);
      expect((await post({ key: 'plan', label: 'x', type: 'text' })).body.detail[0].loc).toEqual([
        'body',
        'key',
      ]);
      expect((await post({ key: 'tier', label: 'x', type: 'dropdown' })).body.detail[0].loc).toEqual([
        'body',
        'options',
      ]);
    });

    it('validates custom_fields with 422 at the key, writing nothing', async () => {
      const before = await ticketCount();
      const cases: [Record<string, unknown>, string, string][] = [
        [{ plan: 'pro', seats: 'ten' }, 'seats', 'wrong type'],
        [{ plan: 'gold' }, 'plan', 'unknown option'],
        [{ seats: 3 }, 'plan', 'missing required'],
        [{ plan: 'pro', colour: 'red' }, 'colour', 'unknown key'],
        [{ plan: 'pro', renews_on: '2026-02-30' }, 'renews_on', 'not a date'],
        [{ plan: 'pro', areas: ['billing', 'hr'] }, 'areas', 'unknown option of a multiselect'],
        [{ plan: 'pro', vip: 'yes' }, 'vip', 'not a boolean'],
      ];
      for (const [custom_fields, key, why] of cases) {
        const res = await ticket({ custom_fields });
        expect(res.status, why).toBe(422);
        expect(
          res.body.detail.map((d: any) => d.loc),
          why,
        ).toContainEqual(['body', 'custom_fields', key]);
      }
      expect(await ticketCount()).toBe(before);
      const ok = await ticket({
        custom_fields: { plan: 'pro', seats: 12, vip: true, areas: ['api', 'api'] },
      });
      expect(ok.status, ok.text).toBe(201);
      expect(ok.body.custom_fields).toEqual({ plan: 'pro', seats: 12, vip: true, areas: ['api'] });
      const patchBad = await h.request('PATCH', `/api/v1/tickets/${ok.body.id}`, {
        bearer: admin,
        body: { custom_fields: { plan: null } },
      });
      expect(patchBad.status).toBe(422);
      expect(patchBad.body.detail[0].loc).toEqual(['body', 'custom_fields', 'plan']);
      const patched = await h.request('PATCH', `/api/v1/tickets/${ok.body.id}`, {
        bearer: admin,
        body: { custom_fields: { seats: 14, vip: null } },
      });
      expect(patched.body.custom_fields).toEqual({ plan: 'pro', seats: 14, areas: ['api'] });
      const updated = await h.db
        .selectFrom('events')
        .select('payload')
        .where('event_type', '=', 'ticket.updated')
        .where(sql<string>`payload->'ticket'->>'id'`, '=', ok.body.id)
        .executeTakeFirstOrThrow();
      expect((updated.payload as any).ticket.custom_fields).toEqual({
        plan: 'pro',
        seats: 14,
        areas: ['api'],
      });
      const createdEvent = await h.db
        .selectFrom('events')
        .select('payload')
        .where('event_type', '=', 'ticket.created')
        .where(sql<string>`payload->'ticket'->>'id'`, '=', ok.body.id)
        .executeTakeFirstOrThrow();
      expect((createdEvent.payload as any).ticket.custom_fields.plan).toBe('pro');
    });

    it('a tickets export carries each ticket custom_fields, as JSON and as one CSV cell', async () => {
      const made = await ticket({
        subject: 'Exported',
        custom_fields: { plan: 'pro', areas: ['api', 'billing'] },
      });
      expect(made.status, made.text).toBe(201);
      // listing, creating and reading exports also need config:write
      const key = await t.key(['exports:read', 'exports:write', 'config:write']);
      const exported = async (format: 'json' | 'csv') => {
        const job = await h.request('POST', '/api/v1/tenant/exports', {
          apiKey: key,
          body: { resource: 'tickets', format },
        });
        expect(job.status, job.text).toBe(201);
        return h.request('GET', job.body.download_url, { apiKey: key });
      };
      const rows = (await exported('json')).body as Array<Record<string, any>>;
      expect(rows.find((r) => r.id === made.body.id)?.custom_fields).toEqual({
        plan: 'pro',
        areas: ['api', 'billing'],
      });
      const [header, ...lines] = (await exported('csv')).text.trim().split('\r\n');
      const column = (header ?? '').split(',').indexOf('custom_fields');
      expect(column).toBeGreaterThanOrEqual(0);
      const line = lines.find((l) => l.startsWith(`${made.body.id},`) || l.includes(`,${made.body.id},`));
      expect(line).toContain('"{""plan"":""pro"",""areas"":[""api"",""billing""]}"');
    });

    it('filters by custom_fields.<key>=<value>; an unknown key is 422; a deleted field is gone', async () => {
      const a = await ticket({ custom_fields: { plan: 'free', seats: 5, areas: ['ui', 'billing'] } });
      const b = await ticket({ custom_fields: { plan: 'pro', seats: 5.5, areas: ['ui'] } });
      const ids = async (q: string) =>
        (await h.request('GET', `/api/v1/tickets?${q}`, { bearer: admin })).body.tickets.map(
          (x: any) => x.id,
        );
      expect(await ids('custom_fields.plan=free')).toEqual([a.body.id]);
      expect(await ids('custom_fields.seats=5.5')).toEqual([b.body.id]);
      expect((await ids('custom_fields.areas=ui')).sort()).toEqual([a.body.id, b.body.id].sort());
      expect(await ids('custom_fields.areas=billing&custom_fields.seats=5')).toEqual([a.body.id]);
      const unknown = await h.request('GET', '/api/v1/tickets?custom_fields.colour=red', { bearer: admin });
      expect(unknown.status).toBe(422);
      expect(unknown.body.detail[0].loc).toEqual(['query', 'custom_fields.colour']);
      const other = await h.tenant();
      expect(
        (await h.request('DELETE', `/api/v2/ticket-fields/${plan}`, { bearer: other.adminToken })).status,
      ).toBe(404);
      expect((await h.request('DELETE', `/api/v2/ticket-fields/${plan}`, { bearer: admin })).status).toBe(
        204,
      );
      const read = await h.request('GET', `/api/v1/tickets/${a.body.id}`, { bearer: admin });
      expect(read.body.custom_fields).toEqual({ seats: 5, areas: ['ui', 'billing'] });
      // no longer required either
      expect((await ticket({ custom_fields: { seats: 1 } })).status).toBe(201);
    });
  });
});
