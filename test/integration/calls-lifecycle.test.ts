import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';
import { addEndUsers } from '../support/people';

const INTERNAL = 'test-internal-token';

describe.skipIf(postgresUnavailable())('Call lifecycle, calls API and voice-widget token', () => {
  let h: Harness;
  let t: TestTenant;
  let reader: string;
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    await addEndUsers(h, t.id, ['eu_9']);
    reader = await t.key(['calls:read']);
  });
  afterAll(() => h?.close());

  const internal = (path: string, body: unknown) =>
    h.request('POST', `/api/internal/calls${path}`, { bearer: INTERNAL, body });
  const startCall = async (body: Record<string, unknown> = {}) => {
    const res = await internal('', { tenant_id: t.id, caller_phone: '+14155550123', ...body });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const events = (tenantId: string, type?: string) => {
    let q = h.db.selectFrom('events').selectAll().where('tenant_id', '=', tenantId);
    if (type) q = q.where('event_type', '=', type);
    return q.orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
  };
  const eventsForCall = async (type: string, callId: string) =>
    (await events(t.id, type)).filter((e) => (e.payload as any).call.id === callId);

  describe('call persisted -> call.started', () => {
    it('201 with the call; exactly one call.started with the required fields', async () => {
      const call = await startCall({
        telephony_call_sid: 'CA-started-1',
        media_room_id: 'room-1',
        started_at: '2026-11-20T10:00:00Z',
      });
      expect(call).toMatchObject({
        tenant_id: t.id,
        status: 'in_progress',
        channel: 'phone',
        direction: 'inbound',
        caller_phone: '+14155550123',
        telephony_call_sid: 'CA-started-1',
        media_room_id: 'room-1',
        started_at: '2026-11-20T10:00:00.000Z',
        outcome: null,
        completed_at: null,
      });
      expect(call.id).toMatch(/^call_/);
      const started = await eventsForCall('call.started', call.id);
      expect(started).toHaveLength(1);
      expect(started[0]!.payload).toEqual({
        call: {
          id: call.id,
          tenant_id: t.id,
          started_at: '2026-11-20T10:00:00.000Z',
          direction: 'inbound',
          channel: 'phone',
          caller_phone: '+14155550123',
          telephony_call_sid: 'CA-started-1',
          media_room_id: 'room-1',
        },
      });
    });

    it('a repeated report (same id, or same carrier sid) is 200 with the stored call and no second event', async () => {
      const first = await internal('', { tenant_id: t.id, id: 'call_agent_named_1', channel: 'web' });
      expect(first.status).toBe(201);
      expect(first.body.id).toBe('call_agent_named_1');
      const again = await internal('', { tenant_id: t.id, id: 'call_agent_named_1', channel: 'web' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await eventsForCall('call.started', 'call_agent_named_1')).toHaveLength(1);

      const bySid = await startCall({ telephony_call_sid: 'CA-dup' });
      const retry = await internal('', { tenant_id: t.id, telephony_call_sid: 'CA-dup' });
      expect(retry.status).toBe(200);
      expect(retry.body.id).toBe(bySid.id);
      expect(await eventsForCall('call.started', bySid.id)).toHaveLength(1);
    });

    it("another tenant's call id is a 409, not a takeover", async () => {
      const other = await h.tenant();
      const res = await internal('', { tenant_id: other.id, id: 'call_agent_named_1' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ detail: 'A call with this id already exists' });
      expect(await events(other.id)).toHaveLength(0);
    });

    it('unknown tenant is 404 Tenant not found; bad bodies are 422; nothing written', async () => {
      const unknown = await internal('', { tenant_id: 'ten_nope' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ detail: 'Tenant not found' });
      for (const [body, loc] of [
        [{}, ['body', 'tenant_id']],
        [{ tenant_id: t.id, direction: 'sideways' }, ['body', 'direction']],
        [{ tenant_id: t.id, channel: 'carrier-pigeon' }, ['body', 'channel']],
        [{ tenant_id: t.id, caller_phone: 'call me maybe' }, ['body', 'caller_phone']],
        [{ tenant_id: t.id, started_at: 'yesterday' }, ['body', 'started_at']],
        [{ tenant_id: t.id, telephony_call_sid: 'x'.repeat(129) }, ['body', 'telephony_call_sid']],
        [{ tenant_id: t.id, id: 'bad id!' }, ['body', 'id']],
        [{ tenant_id: t.id, outcome: 'hung_up' }, ['body', 'outcome']],
      ] as const) {
        const res = await internal('', body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
      }
    });

    it('the internal surface refuses API keys and wrong tokens', async () => {
      const key = await t.key(['calls:read', 'calls:write']);
      const withKey = await h.request('POST', '/api/internal/calls', {
        apiKey: key,
        body: { tenant_id: t.id },
      });
      expect(withKey.status).toBe(403);
      expect(withKey.body).toEqual({ detail: 'API keys are not permitted for this endpoint' });
      const wrong = await h.request('POST', '/api/internal/calls', {
        bearer: 'nope',
        body: { tenant_id: t.id },
      });
      expect(wrong.status).toBe(401);
    });
  });

  describe('escalations -> call.escalated', () => {
    it('transferred on a telephony call: 201 and one call.escalated with every required field, masked', async () => {
      const call = await startCall({ telephony_call_sid: 'CA-esc-1' });
      const res = await internal(`/${call.id}/escalations`, {
        tenant_id: t.id,
        status: 'transferred',
        reason: 'user_requested',
        route: 'telephony_number',
        destination: '+1 (212) 555-0199',
        escalated_at: '2026-11-20T10:05:00Z',
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        call_id: call.id,
        result: 'transferred',
        destination: '*******0199',
        emitted: true,
        failure: null,
      });
      const esc = await eventsForCall('call.escalated', call.id);
      expect(esc).toHaveLength(1);
      expect(esc[0]!.payload).toEqual({
        call: {
          id: call.id,
          tenant_id: t.id,
          escalated_at: '2026-11-20T10:05:00.000Z',
          reason: 'user_requested',
          escalation_id: res.body.id,
          status: 'bridged',
          route: 'telephony_number',
          destination: '*******0199',
        },
      });
      expect(JSON.stringify(esc[0]!.payload)).not.toContain('555-0199');
      const detail = await h.request('GET', `/api/v1/calls/${call.id}`, { apiKey: reader });
      expect(detail.body.escalated_at).toBe('2026-11-20T10:05:00.000Z');
      expect(detail.body.escalations).toHaveLength(1);
      expect(detail.body.escalations[0].destination).toBe('*******0199');
    });

    it.each([
      ['sip:support@pbx.example.com', 'sip_trunk', 'sip:[REDACTED]'],
      ['sips:+14155550000@carrier.example;transport=tls', 'sip_trunk', 'sip:[REDACTED]'],
      ['tel:+442071838750', 'telephony_number', '********8750'],
      ['+49 30 901820', 'telephony_number', '******1820'],
    ])('destination %s via %s is emitted as %s', async (destination, route, masked) => {
      const call = await startCall({ channel: 'sip' });
      const res = await internal(`/${call.id}/escalations`, {
        tenant_id: t.id,
        status: 'transferred',
        reason: 'low_confidence',
        route,
        destination,
      });
      expect(res.status).toBe(201);
      const [ev] = await eventsForCall('call.escalated', call.id);
      expect((ev!.payload as any).call.destination).toBe(masked);
      expect((ev!.payload as any).call.route).toBe(route);
      const stored = await h.db
        .selectFrom('call_escalations')
        .select('destination')
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      expect(stored.destination).toBe(masked);
    });

    it('failed escalations (max retries, no target) and non-telephony calls emit nothing but are recorded', async () => {
      const call = await startCall({ telephony_call_sid: 'CA-esc-fail' });
      for (const failure of ['max_retries', 'no_target']) {
        const res = await internal(`/${call.id}/escalations`, {
          tenant_id: t.id,
          status: 'failed',
          reason: 'repeated_failure',
          failure,
        });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ result: 'failed', failure, emitted: false });
      }
      const web = await startCall({ channel: 'web', caller_phone: null });
      const res = await internal(`/${web.id}/escalations`, {
        tenant_id: t.id,
        status: 'transferred',
        reason: 'user_requested',
        route: 'sip_trunk',
        destination: 'sip:desk@pbx',
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ result: 'transferred', failure: 'not_telephony', emitted: false });
      expect(await eventsForCall('call.escalated', call.id)).toHaveLength(0);
      expect(await eventsForCall('call.escalated', web.id)).toHaveLength(0);
      const rows = await h.db
        .selectFrom('call_escalations')
        .select('id')
        .where('call_id', 'in', [call.id, web.id])
        .execute();
      expect(rows).toHaveLength(3);
    });

    it('a retried escalation_id is recorded and emitted once', async () => {
      const call = await startCall();
      const body = {
        tenant_id: t.id,
        status: 'transferred',
        reason: 'out_of_scope',
        route: 'telephony_number',
        destination: '+15551234567',
        escalation_id: 'esc_agent_1',
      };
      expect((await internal(`/${call.id}/escalations`, body)).status).toBe(201);
      const again = await internal(`/${call.id}/escalations`, body);
      expect(again.status).toBe(200);
      expect(again.body.id).toBe('esc_agent_1');
      expect(await eventsForCall('call.escalated', call.id)).toHaveLength(1);
    });

    it('bad escalation bodies are 422 and write nothing', async () => {
      const call = await startCall();
      for (const [body, loc] of [
        [{ tenant_id: t.id, status: 'transferred', reason: 'user_requested' }, ['body', 'route']],
        [
          { tenant_id: t.id, status: 'transferred', reason: 'user_requested', route: 'sip_trunk' },
          ['body', 'destination'],
        ],
        [{ tenant_id: t.id, status: 'bridged', reason: 'user_requested' }, ['body', 'status']],
        [{ tenant_id: t.id, status: 'failed', reason: 'bored' }, ['body', 'reason']],
        [
          {
            tenant_id: t.id,
            status: 'transferred',
            reason: 'user_requested',
            route: 'pigeon',
            destination: '+15551234567',
          },
          ['body', 'route'],
        ],
        [
          {
            tenant_id: t.id,
            status: 'transferred',
            reason: 'user_requested',
            route: 'sip_trunk',
            destination: 'desk 4',
          },
          ['body', 'destination'],
        ],
        [{ tenant_id: t.id, status: 'failed', reason: 'system_error', extra: true }, ['body', 'extra']],
      ] as const) {
        const res = await internal(`/${call.id}/escalations`, body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
      }
      const rows = await h.db
        .selectFrom('call_escalations')
        .select('id')
        .where('call_id', '=', call.id)
        .execute();
      expect(rows).toHaveLength(0);
    });
  });

  describe('completion -> call.completed', () => {
    it('exactly one call.completed with the required fields; a repeated report is the same 200 and no event', async () => {
      const call = await startCall({ telephony_call_sid: 'CA-done-1', started_at: '2026-11-20T09:00:00Z' });
      const body = {
        tenant_id: t.id,
        outcome: 'status_checked',
        ended_at: '2026-11-20T09:03:05Z',
        recording_url: 'recordings/ten/CA-done-1.wav',
        detected_language: 'en-US',
        summary: 'Caller checked ticket status',
      };
      const first = await internal(`/${call.id}/complete`, body);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        status: 'completed',
        outcome: 'status_checked',
        ended_at: '2026-11-20T09:03:05.000Z',
        duration_seconds: 185,
        recording_url: 'recordings/ten/CA-done-1.wav',
        detected_language: 'en-US',
        ticket_id: null,
      });
      const second = await internal(`/${call.id}/complete`, { ...body, outcome: 'hung_up' });
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      const done = await eventsForCall('call.completed', call.id);
      expect(done).toHaveLength(1);
      expect(done[0]!.payload).toEqual({
        call: {
          id: call.id,
          tenant_id: t.id,
          started_at: '2026-11-20T09:00:00.000Z',
          ended_at: '2026-11-20T09:03:05.000Z',
          duration_seconds: 185,
          outcome: 'status_checked',
          recording_url: 'recordings/ten/CA-done-1.wav',
          ticket_id: null,
          detected_language: 'en-US',
          caller_phone: '+14155550123',
          telephony_call_sid: 'CA-done-1',
        },
      });
    });

    it('concurrent completion reports emit exactly one call.completed', async () => {
      const call = await startCall();
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          internal(`/${call.id}/complete`, { tenant_id: t.id, outcome: 'hung_up' }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(new Set(results.map((r) => r.text)).size).toBe(1);
      expect(await eventsForCall('call.completed', call.id)).toHaveLength(1);
    });

    it('an escalated call still completes once (call.escalated first, then call.completed)', async () => {
      const call = await startCall({ telephony_call_sid: 'CA-esc-done' });
      await internal(`/${call.id}/escalations`, {
        tenant_id: t.id,
        status: 'transferred',
        reason: 'auth_failure',
        route: 'sip_trunk',
        destination: 'sip:tier2@pbx',
      });
      const res = await internal(`/${call.id}/complete`, { tenant_id: t.id, outcome: 'escalated' });
      expect(res.status).toBe(200);
      const all = (await events(t.id)).filter((e) => (e.payload as any).call?.id === call.id);
      expect(all.map((e) => e.event_type)).toEqual(['call.started', 'call.escalated', 'call.completed']);
      const late = await internal(`/${call.id}/escalations`, {
        tenant_id: t.id,
        status: 'failed',
        reason: 'system_error',
      });
      expect(late.status).toBe(409);
      expect(late.body).toEqual({ detail: 'Call already completed' });
    });

    it('outcome ticket_created without ticket_id creates a linked ticket (ticket.created) from the call', async () => {
      const call = await startCall({ caller_phone: '+15550001111' });
      const res = await internal(`/${call.id}/complete`, {
        tenant_id: t.id,
        outcome: 'ticket_created',
        summary: 'Laptop will not boot',
        ticket: { subject: 'Laptop will not boot', priority: 'high', requester_id: 'eu_9' },
      });
      expect(res.status).toBe(200);
      expect(res.body.ticket_id).toMatch(/^tkt_/);
      const key = await t.key(['tickets:read']);
      const ticket = await h.request('GET', `/api/v1/tickets/${res.body.ticket_id}`, { apiKey: key });
      expect(ticket.body).toMatchObject({
        subject: 'Laptop will not boot',
        description: 'Laptop will not boot',
        priority: 'high',
        source: 'phone',
        call_id: call.id,
        requester_id: 'eu_9',
        created_by: 'internal:voice_agent',
      });
      const created = (await events(t.id, 'ticket.created')).filter(
        (e) => (e.payload as any).ticket.id === res.body.ticket_id,
      );
      expect(created).toHaveLength(1);
      const [done] = await eventsForCall('call.completed', call.id);
      expect((done!.payload as any).call.ticket_id).toBe(res.body.ticket_id);
      // a repeat creates no second ticket
      await internal(`/${call.id}/complete`, { tenant_id: t.id, outcome: 'ticket_created' });
      expect(
        Number(
          (
            await h.db
              .selectFrom('tickets')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('call_id', '=', call.id)
              .executeTakeFirstOrThrow()
          ).n,
        ),
      ).toBe(1);
    });

    it('outcome ticket_created with an existing ticket_id links it; an unknown or foreign one is 404 and nothing changes', async () => {
      const key = await t.key(['tickets:write', 'tickets:read']);
      const ticket = (await h.request('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'pre' } }))
        .body;
      const call = await startCall();
      const other = await h.tenant();
      const foreign = (
        await h.request('POST', '/api/v1/tickets', {
          apiKey: await other.key(['tickets:write']),
          body: { subject: 'B' },
        })
      ).body;
      const bad = await internal(`/${call.id}/complete`, {
        tenant_id: t.id,
        outcome: 'ticket_created',
        ticket_id: foreign.id,
      });
      expect(bad.status).toBe(404);
      expect(bad.body).toEqual({ detail: 'Ticket not found' });
      expect((await h.request('GET', `/api/v1/calls/${call.id}`, { apiKey: reader })).body.status).toBe(
        'in_progress',
      );
      expect(await eventsForCall('call.completed', call.id)).toHaveLength(0);

      const ok = await internal(`/${call.id}/complete`, {
        tenant_id: t.id,
        outcome: 'ticket_created',
        ticket_id: ticket.id,
      });
      expect(ok.status).toBe(200);
      expect(ok.body.ticket_id).toBe(ticket.id);
      expect((await h.request('GET', `/api/v1/tickets/${ticket.id}`, { apiKey: key })).body.call_id).toBe(
        call.id,
      );
    });

    it('bad completion bodies are 422 (and ended_at before start), nothing written', async () => {
      const call = await startCall({ started_at: '2026-11-20T09:00:00Z' });
      for (const [body, loc] of [
        [{ tenant_id: t.id }, ['body', 'outcome']],
        [{ tenant_id: t.id, outcome: 'success' }, ['body', 'outcome']],
        [{ tenant_id: t.id, outcome: 'hung_up', duration_seconds: -1 }, ['body', 'duration_seconds']],
        [{ tenant_id: t.id, outcome: 'hung_up', duration_seconds: '10' }, ['body', 'duration_seconds']],
        [
          { tenant_id: t.id, outcome: 'hung_up', detected_language: 'english!' },
          ['body', 'detected_language'],
        ],
        [{ tenant_id: t.id, outcome: 'hung_up', recording_url: 'x'.repeat(2049) }, ['body', 'recording_url']],
        [{ tenant_id: t.id, outcome: 'hung_up', ended_at: '2026-11-20T08:59:59Z' }, ['body', 'ended_at']],
        [{ tenant_id: t.id, outcome: 'hung_up', status: 'done' }, ['body', 'status']],
      ] as const) {
        const res = await internal(`/${call.id}/complete`, body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
      }
      expect(await eventsForCall('call.completed', call.id)).toHaveLength(0);
    });
  });

  it("tenant isolation: B cannot read, escalate or complete A's call", async () => {
    const call = await startCall({ telephony_call_sid: 'CA-iso' });
    const b = await h.tenant();
    const bKey = await b.key(['calls:read']);
    const read = await h.request('GET', `/api/v1/calls/${call.id}`, { apiKey: bKey });
    expect(read.status).toBe(404);
    expect(read.body).toEqual({ detail: 'Call not found' });
    const esc = await internal(`/${call.id}/escalations`, {
      tenant_id: b.id,
      status: 'transferred',
      reason: 'user_requested',
      route: 'telephony_number',
      destination: '+15551234567',
    });
    expect(esc.status).toBe(404);
    expect(esc.body).toEqual({ detail: 'Call not found' });
    const done = await internal(`/${call.id}/complete`, { tenant_id: b.id, outcome: 'hung_up' });
    expect(done.status).toBe(404);
    expect((await h.request('GET', '/api/v1/calls', { apiKey: bKey })).body.total).toBe(0);
    expect(await events(b.id)).toHaveLength(0);
    expect((await h.request('GET', `/api/v1/calls/${call.id}`, { apiKey: reader })).body.status).toBe(
      'in_progress',
    );
  });

  describe('voice-widget token', () => {
    it('needs config:write and calls:write, with the spec details', async () => {
      const onlyConfig = await t.key(['config:write']);
      const r1 = await h.request('POST', '/api/v1/voice-widget/token', { apiKey: onlyConfig });
      expect(r1.status).toBe(403);
      expect(r1.body).toEqual({ detail: 'Insufficient permissions: requires calls:write' });
      const onlyCalls = await t.key(['calls:write']);
      const r2 = await h.request('POST', '/api/v1/voice-widget/token', { apiKey: onlyCalls });
      expect(r2.status).toBe(403);
      expect(r2.body).toEqual({ detail: 'API key missing required scope: config:write' });
    });

    it('returns a short-lived HS256 token for the tenant', async () => {
      const key = await t.key(['config:write', 'calls:write']);
      const before = Math.floor(Date.now() / 1000);
      const res = await h.request('POST', '/api/v1/voice-widget/token', { apiKey: key });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ token_type: 'Bearer', tenant_id: t.id, expires_in: 300 });
      expect(res.body.session_id).toMatch(/^vws_/);
      expect(decodeProtectedHeader(res.body.token).alg).toBe('HS256');
      const { payload } = await jwtVerify(
        res.body.token,
        new TextEncoder().encode(h.config.VOICE_WIDGET_SECRET),
        {
          audience: 'voice-widget',
          issuer: 'support-platform',
        },
      );
      expect(payload).toMatchObject({ tenant_id: t.id, sid: res.body.session_id, sub: res.body.session_id });
      expect(payload.exp! - payload.iat!).toBe(300);
      expect(payload.iat!).toBeGreaterThanOrEqual(before);
      expect(new Date(res.body.expires_at).getTime()).toBe(payload.exp! * 1000);

      const custom = await h.request('POST', '/api/v1/voice-widget/token', {
        apiKey: key,
        body: { ttl_seconds: 60, locale: 'de-DE', visitor_id: 'v1' },
      });
      expect(custom.status).toBe(201);
      const claims = decodeJwt(custom.body.token);
      expect(claims.exp! - claims.iat!).toBe(60);
      expect(claims).toMatchObject({ locale: 'de-DE', visitor_id: 'v1' });
      for (const body of [
        { ttl_seconds: 901 },
        { ttl_seconds: 10 },
        { ttl_seconds: 'long' },
        { tenant_id: 'x' },
      ]) {
        const bad = await h.request('POST', '/api/v1/voice-widget/token', { apiKey: key, body });
        expect(bad.status, JSON.stringify(body)).toBe(422);
      }
    });
  });
});
