import { Agent, request as httpRequest } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../shared/http/input';
import { answerClientErrors } from '../../shared/runtime/client-errors.node.js';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';
import { addEndUsers, addTenantUsers } from '../support/people';

// Issue 18: hostile input gets a 4xx in the spec's shapes, never a 500, and writes nothing
// (decisions in docs/input.md). Each class is sent through the real app on PGlite and Postgres.

const NUL = 'a\u0000b';
const LONE = 'a\ud800b';
/** `{"a":{"a":…"leaf"…}}` as text: JSON.stringify itself overflows the stack at this depth. */
const deepJson = (depth: number) => `${'{"a":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`;

describe.skipIf(postgresUnavailable())('hostile input', () => {
  let h: Harness;
  let t: TestTenant;
  let other: TestTenant;
  let rw: string;

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    other = await h.tenant({ name: 'Other' });
    rw = await t.key(['tickets:read', 'tickets:write', 'webhooks:read', 'webhooks:write']);
  });
  afterAll(async () => {
    await h?.close();
  });

  const count = async (
    table: 'tickets' | 'contacts' | 'api_keys' | 'tenant_settings' | 'conversations' | 'export_jobs',
  ) =>
    Number(
      (
        await h.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  describe('NUL and lone surrogates: 422 at the field, in the validation shape, nothing written', () => {
    it.each([
      ['NUL', NUL, 'string_nul'],
      ['lone surrogate', LONE, 'string_unicode'],
    ])('%s in a body string', async (_, text, type) => {
      const before = await count('tickets');
      const res = await h.request('POST', '/api/v1/tickets', { apiKey: rw, body: { subject: text } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['body', 'subject'], msg: expect.any(String), type }] });
      expect(await count('tickets')).toBe(before);
    });

    it('in an object key and deep inside an array', async () => {
      const res = await h.request('POST', '/api/v2/contacts', {
        bearer: t.adminToken,
        body: { email: 'k@example.com', custom_attrs: { [`k${NUL}`]: 1, list: ['ok', ['x', LONE]] } },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['body', 'custom_attrs', `k${NUL}`], msg: expect.any(String), type: 'string_nul' },
        { loc: ['body', 'custom_attrs', 'list', 1, 1], msg: expect.any(String), type: 'string_unicode' },
      ]);
    });

    // these answered 422 with a string detail (Postgres refused the text, errors.ts mapped it)
    it.each([
      ['PATCH', '/api/v1/config/general', { company_name: LONE }, ['body', 'company_name']],
      ['PATCH', '/api/v1/config/branding', { primary_color: LONE }, ['body', 'primary_color']],
      ['PATCH', '/api/v1/tenant', { name: LONE }, ['body', 'name']],
      ['POST', '/api/v1/api-keys', { name: LONE, scopes: ['tickets:read'] }, ['body', 'name']],
    ])('%s %s: a lone surrogate is the validation shape', async (method, path, body, loc) => {
      const keys = await count('api_keys');
      const settings = await count('tenant_settings');
      const res = await h.request(method, path, { bearer: t.adminToken, body });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([{ loc, msg: expect.any(String), type: 'string_unicode' }]);
      expect(await count('api_keys')).toBe(keys);
      expect(await count('tenant_settings')).toBe(settings);
    });

    it('PATCH a ticket with a lone surrogate: 422, the ticket unchanged', async () => {
      const created = await h.request('POST', '/api/v1/tickets', { apiKey: rw, body: { subject: 'fine' } });
      const res = await h.request('PATCH', `/api/v1/tickets/${created.body.id}`, {
        apiKey: rw,
        body: { subject: LONE, tags: [NUL] },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
        ['body', 'subject'],
        ['body', 'tags', 0],
      ]);
      const now = await h.request('GET', `/api/v1/tickets/${created.body.id}`, { apiKey: rw });
      expect(now.body.subject).toBe('fine');
    });

    it('emoji, RTL and zero-width text are ordinary text (surrogate pairs are fine)', async () => {
      const subject = '🚀 مرحبا \u200b\u202e done';
      const res = await h.request('POST', '/api/v1/tickets', { apiKey: rw, body: { subject } });
      expect(res.status).toBe(201);
      expect(res.body.subject).toBe(subject);
    });

    it.each([
      ['/api/v1/tickets/%00', ['path', 'ticket_id']],
      ['/api/v1/webhooks/a%00b/deliveries', ['path', 'id']],
    ])('NUL in a path id (%s) is 422 at the path parameter', async (path, loc) => {
      const res = await h.request('GET', path, { apiKey: rw });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([{ loc, msg: expect.any(String), type: 'string_nul' }]);
    });

    it('NUL in a path id of a route without a body (tenants by id, super admin)', async () => {
      const res = await h.request('GET', '/api/v1/tenants/%00', { bearer: await h.superToken() });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['path', 'tenant_id']);
    });

    it('an absurdly long path id is 422 at the parameter; a well-formed unknown id is 404', async () => {
      const long = await h.request('GET', `/api/v1/tickets/${'x'.repeat(5000)}`, { apiKey: rw });
      expect(long.status).toBe(422);
      expect(long.body.detail[0]).toMatchObject({ loc: ['path', 'ticket_id'], type: 'string_too_long' });
      const unknown = await h.request('GET', '/api/v1/webhooks/whk_doesnotexist/deliveries', { apiKey: rw });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ detail: 'Webhook not found' });
    });

    it('a path segment named like an Object.prototype member is an ordinary unknown name (404)', async () => {
      for (const file of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
        const res = await h.request('GET', `/docs/assets/${file}`);
        expect(res.status, file).toBe(404);
      }
    });

    it.each([
      [`/api/v1/help-center/${'TENANT'}/articles?q=%00`, undefined],
      ['/api/v2/contacts?q=a%00', 'admin'],
      ['/api/v1/tickets?requester_id=%00', 'key'],
    ])('NUL in a query parameter (%s) is 422 at the parameter', async (path, who) => {
      const res = await h.request('GET', path.replace('TENANT', t.id), {
        ...(who === 'admin' ? { bearer: t.adminToken } : who === 'key' ? { apiKey: rw } : {}),
      });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['query', expect.any(String)], msg: expect.any(String), type: 'string_nul' },
      ]);
    });
  });

  describe('deep JSON', () => {
    it(`a document nested 10,000 deep is 422 at the level past ${MAX_JSON_DEPTH}, nothing written`, async () => {
      const before = await count('contacts');
      for (const [method, path] of [
        ['POST', '/api/v2/contacts'],
        ['POST', '/api/v2/companies'],
      ] as const) {
        const res = await h.request(method, path, {
          bearer: t.adminToken,
          rawBody: `{"email":"deep@example.com","name":"Deep","custom_attrs":{"x":${deepJson(10_000)}}}`,
          headers: { 'Content-Type': 'application/json' },
        });
        expect(res.status, path).toBe(422);
        const [issue] = res.body.detail;
        expect(issue.type).toBe('json_too_deep');
        expect(issue.loc.slice(0, 3)).toEqual(['body', 'custom_attrs', 'x']);
        expect(issue.loc).toHaveLength(MAX_JSON_DEPTH + 1); // 'body' + one key per level
      }
      expect(await count('contacts')).toBe(before);
    });

    it('a few levels of nesting in custom_attrs are stored and read back', async () => {
      const res = await h.request('POST', '/api/v2/contacts', {
        bearer: t.adminToken,
        body: { email: 'nested@example.com', custom_attrs: { plan: { tier: { name: 'gold' } } } },
      });
      expect(res.status).toBe(201);
      expect(res.body.custom_attrs).toEqual({ plan: { tier: { name: 'gold' } } });
    });
  });

  describe('bytes, content types and numbers', () => {
    const raw = (body: BodyInit, contentType: string) =>
      h.runtime.app.request('/api/v1/tickets', {
        method: 'POST',
        headers: { 'X-API-Key': rw, 'Content-Type': contentType },
        body,
      });

    it('invalid UTF-8 in a body is 422 json_invalid, not text with U+FFFD stored', async () => {
      const before = await count('tickets');
      const bytes = new Uint8Array([
        ...new TextEncoder().encode('{"subject":"a'),
        0xff,
        0xfe,
        ...new TextEncoder().encode('"}'),
      ]);
      const res = await raw(bytes, 'application/json');
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        detail: [{ loc: ['body'], msg: expect.any(String), type: 'json_invalid' }],
      });
      expect(await count('tickets')).toBe(before);
    });

    it('a JSON body is read whatever the Content-Type; a body that is not JSON is 422', async () => {
      const plain = await raw(JSON.stringify({ subject: 'sent as text/plain' }), 'text/plain');
      expect(plain.status).toBe(201);
      const form = await raw('subject=x&priority=high', 'application/x-www-form-urlencoded');
      expect(form.status).toBe(422);
      expect(await form.json()).toEqual({
        detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }],
      });
      const multipart = await raw(
        '--b\r\nContent-Disposition: form-data; name="subject"\r\n\r\nx\r\n--b--',
        'multipart/form-data; boundary=b',
      );
      expect(multipart.status).toBe(422);
    });

    it('a compressed body is 415 with Accept-Encoding: identity, not read as JSON; nothing written', async () => {
      const before = await count('tickets');
      for (const coding of ['gzip', 'br', 'GZIP', 'identity, gzip']) {
        const res = await h.runtime.app.request('/api/v1/tickets', {
          method: 'POST',
          headers: { 'X-API-Key': rw, 'Content-Type': 'application/json', 'Content-Encoding': coding },
          body: gzipSync(JSON.stringify({ subject: 'compressed' })),
        });
        expect(res.status, coding).toBe(415);
        expect(res.headers.get('accept-encoding')).toBe('identity');
        expect(await res.json()).toEqual({
          detail: 'Content-Encoding is not supported: send the body uncompressed',
        });
      }
      expect(await count('tickets')).toBe(before);
      // `identity` is no coding at all: the body is read as sent
      const plain = await h.runtime.app.request('/api/v1/tickets', {
        method: 'POST',
        headers: { 'X-API-Key': rw, 'Content-Type': 'application/json', 'Content-Encoding': 'Identity' },
        body: JSON.stringify({ subject: 'as sent' }),
      });
      expect(plain.status).toBe(201);
    });

    it('1e309 (Infinity) and "0x10" are not numbers; -0 is zero', async () => {
      const inf = await h.request('POST', '/api/v2/contacts', {
        bearer: t.adminToken,
        rawBody: '{"email":"n@example.com","custom_attrs":{"n":1},"unsubscribed_from_emails":1e309}',
        headers: { 'Content-Type': 'application/json' },
      });
      expect(inf.status).toBe(422);
      expect(Array.isArray(inf.body.detail)).toBe(true);
      for (const q of ['limit=0x10', 'limit=1e1', 'limit=', 'offset=0x0']) {
        const res = await h.request('GET', `/api/v1/tickets?${q}`, { apiKey: rw });
        expect(res.status, q).toBe(422);
        expect(res.body.detail[0].loc[0], q).toBe('query');
      }
      const minusZero = await h.request('GET', '/api/v1/tickets?offset=-0&limit=1', { apiKey: rw });
      expect(minusZero.status).toBe(200);
      expect(minusZero.body.offset).toBe(0);
    });
  });

  describe('date-times and numbers Postgres or JSON cannot hold: 422 where they enter, nothing written', () => {
    const outOfRange = {
      loc: expect.any(Array),
      msg: expect.stringContaining('0001-01-01'),
      type: expect.any(String),
    };

    // year 0 and, through an offset, year 10000 in UTC (`+010000-…`): valid ISO text that Postgres
    // refuses, so a query reaching it with one would be a 500
    it.each([
      ['/api/v1/tickets?created_after=0000-01-01T00:00:00Z', 'created_after'],
      ['/api/v1/tickets?updated_since=9999-12-31T23:59:59-12:00', 'updated_since'],
      ['/api/v1/calls?started_before=0001-01-01T00:00:00%2B01:00', 'started_before'],
      ['/api/v1/conversations?updated_since=0000-01-01T00:00:00Z', 'updated_since'],
      ['/api/v2/contacts?updated_since=9999-12-31T23:59:59-12:00', 'updated_since'],
      ['/api/v1/usage/details?from=0000-01-01', 'from'],
    ])('GET %s', async (path, field) => {
      const res = await h.request('GET', path, { bearer: t.adminToken });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([{ ...outOfRange, loc: ['query', field] }]);
    });

    it('the last instant of year 9999 and the first of year 1 are served', async () => {
      for (const at of ['9999-12-31T23:59:59.999Z', '0001-01-01T00:00:00Z']) {
        const res = await h.request('GET', `/api/v1/tickets?created_after=${at}`, { bearer: t.adminToken });
        expect(res.status, at).toBe(200);
      }
    });

    it('an export with an impossible date is refused, not written as a failed job', async () => {
      const before = await count('export_jobs');
      const res = await h.request('POST', '/api/v1/tenant/exports', {
        bearer: t.adminToken,
        body: { resource: 'tickets', format: 'json', filters: { created_from: '0000-01-01T00:00:00Z' } },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'filters', 'created_from']);
      expect(await count('export_jobs')).toBe(before);
    });

    it('usage periods: 9999-12 (it ends in year 10000) is 422; years 1-99 are not read as 1900-1999', async () => {
      const december = await h.request('GET', '/api/v1/usage/summary?period=9999-12', {
        bearer: t.adminToken,
      });
      expect(december.status).toBe(422);
      expect(december.body.detail[0].loc).toEqual(['query', 'period']);
      const early = await h.request('GET', '/api/v1/usage/summary?period=0099-01', { bearer: t.adminToken });
      expect(early.status).toBe(200);
      expect(early.body.period).toBe('0099-01');
    });

    it('1e400 inside free-form custom_attrs is 422 (it would be stored and returned as null)', async () => {
      const before = await count('contacts');
      const res = await h.request('POST', '/api/v2/contacts', {
        bearer: t.adminToken,
        rawBody: '{"first_name":"E","custom_attrs":{"a":1e400,"b":[1,-1e400]}}',
        headers: { 'Content-Type': 'application/json' },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['body', 'custom_attrs', 'a'], msg: expect.any(String), type: 'number_not_finite' },
        { loc: ['body', 'custom_attrs', 'b', 1], msg: expect.any(String), type: 'number_not_finite' },
      ]);
      expect(await count('contacts')).toBe(before);
    });
  });

  describe('references: ids in a body must be rows of the caller tenant', () => {
    let agentOfOther: string;
    beforeAll(async () => {
      await addTenantUsers(h, t.id, ['tus_agent_t']);
      await addEndUsers(h, t.id, ['usr_req_t']);
      agentOfOther = 'tus_agent_other';
      await addTenantUsers(h, other.id, [agentOfOther]);
      await addEndUsers(h, other.id, ['usr_req_other']);
    });

    it.each([
      [{ assignee_id: 'tus_agent_other' }, 'assignee_id'],
      [{ assignee_id: 'tus_made_up' }, 'assignee_id'],
      [{ requester_id: 'usr_req_other' }, 'requester_id'],
      [{ requester_id: 'usr_made_up' }, 'requester_id'],
    ])('POST /api/v1/tickets with %o is 422 at the field, nothing written', async (ref, field) => {
      const before = await count('tickets');
      const res = await h.request('POST', '/api/v1/tickets', {
        apiKey: rw,
        body: { subject: 'ref', ...ref },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['body', field], msg: expect.any(String), type: 'value_error' },
      ]);
      expect(await count('tickets')).toBe(before);
    });

    it('every bad reference is named at once; own ids are accepted; PATCH checks what it changes', async () => {
      const both = await h.request('POST', '/api/v1/tickets', {
        apiKey: rw,
        body: { subject: 'ref', assignee_id: agentOfOther, requester_id: 'usr_req_other', call_id: 'call_x' },
      });
      expect(both.status).toBe(422);
      expect(both.body.detail.map((d: { loc: string[] }) => d.loc[1])).toEqual([
        'call_id',
        'requester_id',
        'assignee_id',
      ]);
      const ok = await h.request('POST', '/api/v1/tickets', {
        apiKey: rw,
        body: { subject: 'ref', assignee_id: 'tus_agent_t', requester_id: 'usr_req_t' },
      });
      expect(ok.status).toBe(201);
      const patch = (body: unknown) =>
        h.request('PATCH', `/api/v1/tickets/${ok.body.id}`, { apiKey: rw, body });
      const foreign = await patch({ assignee_id: agentOfOther });
      expect(foreign.status).toBe(422);
      expect(foreign.body.detail[0].loc).toEqual(['body', 'assignee_id']);
      expect((await patch({ assignee_id: null })).status).toBe(200);
      const unchanged = await h.request('GET', `/api/v1/tickets/${ok.body.id}`, { apiKey: rw });
      expect(unchanged.body).toMatchObject({ assignee_id: null, requester_id: 'usr_req_t' });
    });

    it('conversation assign: another tenant’s user or a made-up one is 422 at assignee_user_id', async () => {
      const conv = await h.request('POST', '/api/v2/conversations', {
        bearer: t.adminToken,
        body: { channel: 'email', subject: 'assign refs' },
      });
      expect(conv.status).toBe(201);
      for (const id of [agentOfOther, 'tus_made_up']) {
        const res = await h.request('POST', `/api/v2/conversations/${conv.body.id}/assign`, {
          bearer: t.adminToken,
          body: { assignee_user_id: id },
        });
        expect(res.status, id).toBe(422);
        expect(res.body.detail).toEqual([
          { loc: ['body', 'assignee_user_id'], msg: 'User not found', type: 'value_error' },
        ]);
      }
      const ok = await h.request('POST', `/api/v2/conversations/${conv.body.id}/assign`, {
        bearer: t.adminToken,
        body: { assignee_user_id: 'tus_agent_t' },
      });
      expect(ok.status).toBe(200);
      expect(ok.body.assignee_user_id).toBe('tus_agent_t');
    });
  });

  describe('IPv4-compatible IPv6 webhook URLs', () => {
    it('a private embedded IPv4 is 400 on POST /api/v1/webhooks and PATCH /api/v2/webhooks/{id}; a public one is 201', async () => {
      for (const url of ['https://[::127.0.0.1]/h', 'https://[::10.0.0.1]/h']) {
        const res = await h.request('POST', '/api/v1/webhooks', {
          apiKey: rw,
          body: { url, events: ['ticket.created'] },
        });
        expect(res.status, url).toBe(400);
        expect(typeof res.body.detail).toBe('string');
      }
      const created = await h.request('POST', '/api/v1/webhooks', {
        apiKey: rw,
        body: { url: 'https://[::8.8.8.8]/h', events: ['ticket.created'] },
      });
      expect(created.status).toBe(201);
      const patched = await h.request('PATCH', `/api/v2/webhooks/${created.body.id}`, {
        bearer: t.adminToken,
        body: { url: 'https://[::127.0.0.1]/h' },
      });
      expect(patched.status).toBe(400);
      expect(typeof patched.body.detail).toBe('string');
    });
  });

  describe('spec rule 6 on public paths', () => {
    it('an API key on a public path outside the allowlist is 403; nothing is written', async () => {
      const before = await count('conversations');
      const res = await h.request('POST', '/api/v1/widget/messages', {
        apiKey: rw,
        body: { tenant_id: t.id, email: 'w@example.com', body: 'hello' },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'API keys are not permitted for this endpoint' });
      expect(await count('conversations')).toBe(before);
      const helpCenter = await h.request('GET', `/api/v1/help-center/${t.id}/articles`, { apiKey: rw });
      expect(helpCenter.status).toBe(403);
      // without a key the same paths are public
      const anonymous = await h.request('GET', `/api/v1/help-center/${t.id}/articles`);
      expect(anonymous.status).toBe(200);
    });

    it('an invalid key on a public path is 401 like everywhere', async () => {
      const res = await h.request('POST', '/api/v1/widget/messages', {
        apiKey: 'itsm_sk_live_notavalidkey',
        body: { tenant_id: t.id, email: 'w@example.com', body: 'hello' },
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Invalid API key' });
    });

    it('health: GET with or without a key is 200; another method is 405, or 403 with a key', async () => {
      expect((await h.request('GET', '/api/v2/health', { apiKey: rw })).status).toBe(200);
      expect((await h.request('GET', '/api/v2/health')).status).toBe(200);
      const post = await h.request('POST', '/api/v2/health');
      expect(post.status).toBe(405);
      expect(post.body).toEqual({ detail: 'Method Not Allowed' });
      expect(post.headers.get('allow')).toBe('GET, HEAD');
      const withKey = await h.request('POST', '/api/v2/health', { apiKey: rw });
      expect(withKey.status).toBe(403);
      expect(withKey.body).toEqual({ detail: 'API keys are not permitted for this endpoint' });
    });
  });
});

describe.skipIf(postgresUnavailable())('over a real socket (Node adapter)', () => {
  let h: Harness;
  let server: ServerType;
  let port: number;
  let t: TestTenant;
  let rw: string;

  beforeAll(async () => {
    h = await startHarness({ MAX_BODY_BYTES: '2048' });
    t = await h.tenant();
    rw = await t.key(['tickets:read', 'tickets:write']);
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: h.runtime.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    answerClientErrors(server); // as `npm start` does (scripts/serve.ts)
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await h?.close();
  });

  const send = (
    agent: Agent,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<{ status: number; headers: Record<string, unknown>; body: string }> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });

  it('413 says Connection: close, and the keep-alive pool’s next request succeeds', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = JSON.stringify({ subject: 'x'.repeat(4096) });
      const refused = await send(
        agent,
        'POST',
        '/api/v1/tickets',
        {
          'x-api-key': rw,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(big)),
        },
        big,
      );
      expect(refused.status).toBe(413);
      expect(refused.headers.connection).toBe('close');
      expect(JSON.parse(refused.body)).toEqual({ detail: 'Request body too large' });
      const next = await send(agent, 'GET', '/api/v1/tickets?limit=1', { 'x-api-key': rw });
      expect(next.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it('a body of unstated size (chunked) is held to the same limit as it streams', async () => {
    const agent = new Agent({ keepAlive: false });
    try {
      const chunked = { 'x-api-key': rw, 'content-type': 'application/json', 'transfer-encoding': 'chunked' };
      const big = JSON.stringify({ subject: `Oversized ${'x'.repeat(4096)}` });
      const refused = await send(agent, 'POST', '/api/v1/tickets', chunked, big);
      expect(refused.status).toBe(413);
      expect(JSON.parse(refused.body)).toEqual({ detail: 'Request body too large' });
      const accepted = await send(
        agent,
        'POST',
        '/api/v1/tickets',
        chunked,
        JSON.stringify({ subject: 'Chunked' }),
      );
      expect(accepted.status).toBe(201);
      expect(JSON.parse(accepted.body)).toMatchObject({ subject: 'Chunked' });
      const listed = await send(agent, 'GET', '/api/v1/tickets?limit=100', { 'x-api-key': rw });
      const subjects = (JSON.parse(listed.body).tickets as { subject: string }[]).map((x) => x.subject);
      expect(subjects).toContain('Chunked');
      expect(subjects.some((s) => s.startsWith('Oversized'))).toBe(false);
    } finally {
      agent.destroy();
    }
  });

  /** Writes `raw` on a new connection and reads until the server closes it. */
  const rawExchange = (raw: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(raw));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d) => {
        text += d;
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });

  it("requests Node's parser refuses get the API's error shape, not a bare status line", async () => {
    const huge = await rawExchange(
      `GET /api/v2/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(huge).toContain('Content-Type: application/json');
    expect(JSON.parse(huge.slice(huge.indexOf('\r\n\r\n') + 4))).toEqual({
      detail: 'Request header fields too large',
    });
    const malformed = await rawExchange('GET /api/v2/health HTTP/1.1\r\nHost x\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(malformed.slice(malformed.indexOf('\r\n\r\n') + 4))).toEqual({
      detail: 'Malformed HTTP request',
    });
  });

  it('a chunked body its sender abandons is a 400 in the access log, not a 500, and writes nothing', async () => {
    const before = await h.db
      .selectFrom('tickets')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      'POST /api/v1/tickets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `X-API-Key: ${rw}\r\nX-Request-Id: abandoned-body\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"sub`,
    );
    await new Promise((r) => setTimeout(r, 100));
    socket.destroy();
    let line: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && !line; i++) {
      await new Promise((r) => setTimeout(r, 20));
      line = h.accessLines().find((l) => l.request_id === 'abandoned-body');
    }
    expect(line).toMatchObject({ method: 'POST', status: 400 });
    const after = await h.db
      .selectFrom('tickets')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toEqual(before.n);
  });

  it('a client-sent CF-Connecting-IP is neither the audit source_ip nor the per-IP sign-in key', async () => {
    const agent = new Agent({ keepAlive: false });
    try {
      const created = await send(
        agent,
        'POST',
        '/api/v1/api-keys',
        {
          authorization: `Bearer ${t.adminToken}`,
          'content-type': 'application/json',
          'cf-connecting-ip': '198.51.100.7',
        },
        JSON.stringify({ name: 'spoof', scopes: ['tickets:read'] }),
      );
      expect(created.status).toBe(201);
      const rows = await h.db
        .selectFrom('audit_log')
        .select('source_ip')
        .where('target_id', '=', JSON.parse(created.body).id)
        .execute();
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.source_ip).toMatch(/^(::ffff:)?127\.0\.0\.1$/);

      // the per-IP limit of /api/v1/app/auth/* keys on the socket: changing the header each time
      // does not step around it
      let limited = false;
      for (let i = 0; i < 60 && !limited; i++) {
        const res = await send(
          agent,
          'POST',
          '/api/v1/app/auth/login',
          {
            'content-type': 'application/json',
            'cf-connecting-ip': `203.0.113.${i}`,
          },
          JSON.stringify({ tenant_id: t.id, email: `nobody${i}@example.com`, password: 'wrong-password' }),
        );
        limited = res.status === 429;
      }
      expect(limited).toBe(true);
    } finally {
      agent.destroy();
    }
  });
});
