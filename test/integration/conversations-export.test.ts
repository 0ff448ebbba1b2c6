import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('conversation export (transcript)', () => {
  let h: Harness;
  let t: TestTenant;
  let key: string;
  let cid: string;
  beforeAll(async () => {
    h = await startHarness({ PUBLIC_BASE_URL: 'https://api.example.com/' });
    t = await h.tenant();
    key = await t.key(['conversations:read', 'conversations:write', 'conversations:export']);
    const conv = await h.request('POST', '/api/v1/conversations', {
      apiKey: key,
      body: { subject: 'Broken login', channel: 'email' },
    });
    cid = conv.body.id;
    for (const body of [
      { body: 'Hello, we are looking into it' },
      { body: 'internal: check the SSO config', is_internal: true },
      { body: 'Fixed now' },
    ])
      await h.request('POST', `/api/v1/conversations/${cid}/messages`, { apiKey: key, body });
  }, 120_000);
  afterAll(() => h?.close(), 60_000);

  const exportIt = (body?: unknown, apiKey = key, id = cid) =>
    h.request('POST', `/api/v1/conversations/${id}/export`, { apiKey, body });

  it('201 with the record; JSON transcript excludes internal notes by default; download is an attachment', async () => {
    const res = await exportIt();
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^exp_/),
      conversation_id: cid,
      format: 'json',
      status: 'completed',
      include_internal: false,
      message_count: 2,
      download_url: `https://api.example.com/api/v1/conversations/${cid}/exports/${res.body.id}/download`,
      created_at: expect.any(String),
    });
    const record = await h.request('GET', `/api/v1/conversations/${cid}/exports/${res.body.id}`, {
      apiKey: key,
    });
    expect(record.status).toBe(200);
    expect(record.body).toEqual(res.body);
    const dl = await h.request('GET', `/api/v1/conversations/${cid}/exports/${res.body.id}/download`, {
      apiKey: key,
    });
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toContain('application/json');
    expect(dl.headers.get('content-disposition')).toBe(
      `attachment; filename="conversation-${cid}-${res.body.id}.json"`,
    );
    expect(dl.body.conversation).toMatchObject({ id: cid, subject: 'Broken login' });
    expect(dl.body.messages.map((m: { body: string }) => m.body)).toEqual([
      'Hello, we are looking into it',
      'Fixed now',
    ]);
    expect(dl.text).not.toContain('SSO config');
  });

  it('text format with include_internal flags the note', async () => {
    const res = await exportIt({ format: 'text', include_internal: true });
    expect(res.status).toBe(201);
    expect(res.body.message_count).toBe(3);
    const dl = await h.request('GET', `/api/v1/conversations/${cid}/exports/${res.body.id}/download`, {
      apiKey: key,
    });
    expect(dl.headers.get('content-type')).toContain('text/plain');
    expect(dl.headers.get('content-disposition')).toContain('.txt"');
    expect(dl.text).toContain(`Conversation ${cid}`);
    expect(dl.text).toContain('Subject: Broken login');
    expect(dl.text).toMatch(/\[internal note\]\ninternal: check the SSO config/);
    expect(dl.text.indexOf('Hello, we are')).toBeLessThan(dl.text.indexOf('Fixed now'));
  });

  it('needs conversations:export, :write and :read (spec 403 strings); nothing is written on refusal', async () => {
    const before = await h.db
      .selectFrom('conversation_exports')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const noExport = await t.key(['conversations:read', 'conversations:write']);
    const r1 = await exportIt(undefined, noExport);
    expect(r1.status).toBe(403);
    expect(r1.body).toEqual({ detail: 'Insufficient permissions: requires conversations:export' });
    const noWrite = await t.key(['conversations:read', 'conversations:export']);
    const r2 = await exportIt(undefined, noWrite);
    expect(r2.status).toBe(403);
    expect(r2.body).toEqual({ detail: 'API key missing required scope: conversations:write' });
    const noRead = await t.key(['conversations:write', 'conversations:export']);
    const r3 = await exportIt(undefined, noRead);
    expect(r3.status).toBe(403);
    expect(r3.body).toEqual({ detail: 'Insufficient permissions: requires conversations:read' });
    const after = await h.db
      .selectFrom('conversation_exports')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('reading an export needs conversations:read only', async () => {
    const res = await exportIt();
    const readOnly = await t.key(['conversations:read']);
    expect(
      (await h.request('GET', `/api/v1/conversations/${cid}/exports/${res.body.id}`, { apiKey: readOnly }))
        .status,
    ).toBe(200);
    const noRead = await t.key(['conversations:write']);
    const denied = await h.request('GET', `/api/v1/conversations/${cid}/exports/${res.body.id}/download`, {
      apiKey: noRead,
    });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ detail: 'API key missing required scope: conversations:read' });
  });

  it.each([
    [{ format: 'pdf' }, ['body', 'format']],
    [{ include_internal: 'yes' }, ['body', 'include_internal']],
    [{ foo: 1 }, ['body', 'foo']],
  ])('refuses %j with 422; nothing is written', async (body, loc) => {
    const before = await h.db
      .selectFrom('conversation_exports')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const res = await exportIt(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
    const after = await h.db
      .selectFrom('conversation_exports')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('unknown conversation or export: 404 with the spec shape', async () => {
    const missing = await exportIt(undefined, key, 'cnv_0000000000000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Conversation not found' });
    const noExport = await h.request(
      'GET',
      `/api/v1/conversations/${cid}/exports/exp_0000000000000000000000`,
      { apiKey: key },
    );
    expect(noExport.status).toBe(404);
    expect(noExport.body).toEqual({ detail: 'Export not found' });
    const bad = await h.request('GET', `/api/v1/conversations/${cid}/exports/garbage/download`, {
      apiKey: key,
    });
    expect(bad.status).toBe(404);
  });

  it('an export of one conversation is not reachable under another conversation id', async () => {
    const res = await exportIt();
    const second = await h.request('POST', '/api/v1/conversations', { apiKey: key, body: {} });
    const wrong = await h.request('GET', `/api/v1/conversations/${second.body.id}/exports/${res.body.id}`, {
      apiKey: key,
    });
    expect(wrong.status).toBe(404);
    expect(wrong.body).toEqual({ detail: 'Export not found' });
  });

  it('tenant isolation: tenant B can neither export nor read nor download tenant A exports', async () => {
    const res = await exportIt();
    const other = await h.tenant();
    const bKey = await other.key(['conversations:read', 'conversations:write', 'conversations:export']);
    const ex = await exportIt(undefined, bKey);
    expect(ex.status).toBe(404);
    expect(ex.body).toEqual({ detail: 'Conversation not found' });
    for (const suffix of ['', '/download']) {
      const r = await h.request('GET', `/api/v1/conversations/${cid}/exports/${res.body.id}${suffix}`, {
        apiKey: bKey,
      });
      expect(r.status).toBe(404);
      expect(r.text).not.toContain('Broken login');
      const s = await h.request('GET', `/api/v2/conversations/${cid}/exports/${res.body.id}${suffix}`, {
        bearer: other.adminToken,
      });
      expect(s.status).toBe(404);
    }
    const bRows = await h.db
      .selectFrom('conversation_exports')
      .selectAll()
      .where('tenant_id', '=', other.id)
      .execute();
    expect(bRows).toHaveLength(0);
  });

  it('dashboard sessions export on v2 with a v2 download_url', async () => {
    const res = await h.request('POST', `/api/v2/conversations/${cid}/export`, {
      bearer: t.adminToken,
      body: { format: 'text' },
    });
    expect(res.status).toBe(201);
    expect(res.body.download_url).toBe(
      `https://api.example.com/api/v2/conversations/${cid}/exports/${res.body.id}/download`,
    );
  });

  describe('a call (the spec: "exports a call or conversation")', () => {
    const INTERNAL = 'test-internal-token';
    const internal = (path: string, body: unknown) =>
      h.request('POST', `/api/internal/calls${path}`, { bearer: INTERNAL, body });
    let callId: string;
    beforeAll(async () => {
      const started = await internal('', {
        tenant_id: t.id,
        caller_phone: '+14155550123',
        telephony_call_sid: 'CA-export-1',
        started_at: '2026-11-20T09:00:00Z',
      });
      expect(started.status, started.text).toBe(201);
      callId = started.body.id;
      const escalated = await internal(`/${callId}/escalations`, {
        tenant_id: t.id,
        status: 'transferred',
        reason: 'user_requested',
        route: 'telephony_number',
        destination: '+1 (212) 555-0199',
        escalated_at: '2026-11-20T09:02:00Z',
      });
      expect(escalated.status, escalated.text).toBe(201);
      const done = await internal(`/${callId}/complete`, {
        tenant_id: t.id,
        outcome: 'escalated',
        ended_at: '2026-11-20T09:03:05Z',
        summary: 'Caller could not sign in; handed to the on-call agent.',
        recording_url: 'recordings/CA-export-1.wav',
      });
      expect(done.status, done.text).toBe(200);
    });

    it('201 under the call id; the record names the call; JSON is the call as GET /calls/{id} returns it', async () => {
      const res = await exportIt(undefined, key, callId);
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^exp_/),
        conversation_id: null,
        call_id: callId,
        format: 'json',
        status: 'completed',
        include_internal: false,
        message_count: 0,
        download_url: `https://api.example.com/api/v1/conversations/${callId}/exports/${res.body.id}/download`,
        created_at: expect.any(String),
      });
      const record = await h.request('GET', `/api/v1/conversations/${callId}/exports/${res.body.id}`, {
        apiKey: key,
      });
      expect(record.status).toBe(200);
      expect(record.body).toEqual(res.body);
      const dl = await h.request('GET', `/api/v1/conversations/${callId}/exports/${res.body.id}/download`, {
        apiKey: key,
      });
      expect(dl.status).toBe(200);
      expect(dl.headers.get('content-disposition')).toBe(
        `attachment; filename="call-${callId}-${res.body.id}.json"`,
      );
      const detail = await h.request('GET', `/api/v1/calls/${callId}`, {
        apiKey: await t.key(['calls:read']),
      });
      expect(detail.status).toBe(200);
      expect(dl.body.call).toEqual(detail.body);
      expect(dl.body.call.escalations).toHaveLength(1);
      expect(dl.body.exported_at).toBe(res.body.created_at);
    });

    it('text: header, summary and the escalation line with the destination masked as stored', async () => {
      const res = await exportIt({ format: 'text' }, key, callId);
      expect(res.status).toBe(201);
      const dl = await h.request('GET', `/api/v1/conversations/${callId}/exports/${res.body.id}/download`, {
        apiKey: key,
      });
      expect(dl.headers.get('content-type')).toContain('text/plain');
      expect(dl.text).toContain(`Call ${callId}\n`);
      expect(dl.text).toContain('Outcome: escalated');
      expect(dl.text).toContain('Duration: 185 s');
      expect(dl.text).toContain('Summary:\nCaller could not sign in; handed to the on-call agent.\n');
      expect(dl.text).toContain(
        '[2026-11-20T09:02:00.000Z] transferred: user_requested via telephony_number to *******0199',
      );
      expect(dl.text).not.toContain('555-0199');
    });

    it("a call's export is not found under a conversation, nor a conversation's under the call; other tenants see neither", async () => {
      const ofCall = await exportIt(undefined, key, callId);
      const ofConversation = await exportIt();
      const crossed = [
        `/api/v1/conversations/${cid}/exports/${ofCall.body.id}`,
        `/api/v1/conversations/${callId}/exports/${ofConversation.body.id}`,
      ];
      for (const path of crossed) {
        const r = await h.request('GET', path, { apiKey: key });
        expect(r.status).toBe(404);
        expect(r.body).toEqual({ detail: 'Export not found' });
      }
      const other = await h.tenant();
      const bKey = await other.key(['conversations:read', 'conversations:write', 'conversations:export']);
      const ex = await exportIt(undefined, bKey, callId);
      expect(ex.status).toBe(404);
      expect(ex.body).toEqual({ detail: 'Conversation not found' });
      const read = await h.request('GET', `/api/v1/conversations/${callId}/exports/${ofCall.body.id}`, {
        apiKey: bKey,
      });
      expect(read.status).toBe(404);
    });

    it('a call named by the voice agent (no call_ prefix) exports too; the export goes with the call', async () => {
      const started = await internal('', { tenant_id: t.id, id: 'agent-named-42', channel: 'web' });
      expect(started.status, started.text).toBe(201);
      const res = await exportIt({ format: 'text' }, key, 'agent-named-42');
      expect(res.status, res.text).toBe(201);
      expect(res.body.call_id).toBe('agent-named-42');
      await h.db.deleteFrom('calls').where('id', '=', 'agent-named-42').execute();
      const gone = await h.db
        .selectFrom('conversation_exports')
        .select('id')
        .where('id', '=', res.body.id)
        .execute();
      expect(gone).toHaveLength(0);
    });
  });
});
