/**
 * What every request gets from the chain (shared/runtime/chain.ts): an X-Request-Id, one
 * access-log line, and CORS on the browser surfaces only (docs/architecture.md "Request ids, logs
 * and CORS").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('request id and access log', () => {
  let h: Harness;
  let t: TestTenant;
  let readKey: string;

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    readKey = await t.key(['tickets:read']);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** the access line of the last request */
  const lastAccess = () => h.accessLines().at(-1);

  it('a request without X-Request-Id gets a new one, different each time', async () => {
    const a = await h.request('GET', '/api/v2/health');
    const b = await h.request('GET', '/api/v1/nothing-here');
    const [idA, idB] = [a.headers.get('x-request-id'), b.headers.get('x-request-id')];
    expect(idA).toMatch(/^rid_[0-9A-Za-z]{13,}$/);
    expect(idB).toMatch(/^rid_[0-9A-Za-z]{13,}$/);
    expect(idA).not.toBe(idB);
    expect(b.status).toBe(401);
  });

  it("the caller's id is echoed up to 128 characters; a longer one gets a new id", async () => {
    const kept = await h.request('GET', '/api/v1/tickets', {
      apiKey: readKey,
      headers: { 'x-request-id': 'x'.repeat(128) },
    });
    expect(kept.headers.get('x-request-id')).toBe('x'.repeat(128));
    expect(lastAccess()?.request_id).toBe('x'.repeat(128));
    const long = await h.request('GET', '/api/v1/tickets', {
      apiKey: readKey,
      headers: { 'x-request-id': 'x'.repeat(129) },
    });
    expect(long.headers.get('x-request-id')).toMatch(/^rid_[0-9A-Za-z]{13,}$/);
    expect(lastAccess()?.request_id).toBe(long.headers.get('x-request-id'));
  });

  it('200: method, route pattern, status, duration, tenant, credential kind and request id', async () => {
    const created = await h.request('POST', '/api/v1/tickets', {
      bearer: t.adminToken,
      body: { subject: 'logged' },
    });
    const res = await h.request('GET', `/api/v1/tickets/${created.body.id}?x=1`, { apiKey: readKey });
    expect(res.status).toBe(200);
    const line = lastAccess();
    expect(line).toMatchObject({
      level: 30,
      msg: 'request',
      method: 'GET',
      route: '/api/v1/tickets/:ticket_id',
      status: 200,
      tenant_id: t.id,
      credential: 'api_key',
      request_id: res.headers.get('x-request-id'),
    });
    expect(typeof line?.duration_ms).toBe('number');
    expect(line?.duration_ms as number).toBeGreaterThanOrEqual(0);
    // the dashboard session's creation was logged with its own kind
    expect(h.accessLines().at(-2)).toMatchObject({
      method: 'POST',
      route: '/api/v1/tickets',
      status: 201,
      credential: 'dashboard',
    });
  });

  it('403: a scope refusal names the route it refused, the tenant and the key kind', async () => {
    const res = await h.request('POST', '/api/v1/tickets', { apiKey: readKey, body: { subject: 'no' } });
    expect(res.status).toBe(403);
    expect(lastAccess()).toMatchObject({
      method: 'POST',
      route: '/api/v1/tickets',
      status: 403,
      tenant_id: t.id,
      credential: 'api_key',
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('refusals answered before the router name the route each would have reached, request after request', async () => {
    // (the access line's route pattern is remembered a pattern per router match: a dynamic route's ids, other routes and
    // other methods must still each get their own)
    const callsKey = await t.key(['calls:read']);
    const refusals: [method: string, path: string, route: string | null][] = [
      ['GET', '/api/v1/tickets/tkt_a', '/api/v1/tickets/:ticket_id'],
      ['GET', '/api/v1/tickets/tkt_b', '/api/v1/tickets/:ticket_id'],
      ['PATCH', '/api/v1/tickets/tkt_a', '/api/v1/tickets/:ticket_id'],
      ['GET', '/api/v1/tickets/tkt_a/replies', '/api/v1/tickets/:ticket_id/replies'],
      ['DELETE', '/api/v1/tickets/tkt_a', null], // no such route: refused all the same, named by none
      ['GET', '/api/v1/tickets', '/api/v1/tickets'],
      ['GET', '/api/v1/tickets/tkt_c', '/api/v1/tickets/:ticket_id'],
    ];
    for (const [method, path, route] of refusals) {
      const res = await h.request(method, path, {
        apiKey: callsKey,
        body: method === 'GET' ? undefined : {},
      });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(lastAccess(), `${method} ${path}`).toMatchObject({ method, route, status: 403 });
    }
  });

  it('401 and 404: no credential, no tenant; an unrouted path has no route pattern', async () => {
    await h.request('GET', '/api/v1/tickets');
    expect(lastAccess()).toMatchObject({
      status: 401,
      route: '/api/v1/tickets',
      tenant_id: null,
      credential: null,
    });
    await h.request('GET', '/nowhere/at/all');
    expect(lastAccess()).toMatchObject({ status: 404, route: null, credential: 'anonymous' });
  });

  it('a body over the limit (413) is logged too', async () => {
    const writeKey = await t.key(['tickets:write']);
    // no Content-Length here (app.request): a body of unstated size, counted as it is read
    const res = await h.request('POST', '/api/v1/tickets', {
      apiKey: writeKey,
      rawBody: 'x'.repeat(h.config.MAX_BODY_BYTES + 1),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('x-request-id')).toMatch(/^rid_/);
    expect(lastAccess()).toMatchObject({ status: 413, request_id: res.headers.get('x-request-id') });
  });

  it('a body of unstated size is read only for a caller the gate lets in', async () => {
    const res = await h.request('POST', '/api/v1/tickets', {
      apiKey: readKey, // no tickets:write
      rawBody: 'x'.repeat(h.config.MAX_BODY_BYTES + 1),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(403);
    expect(lastAccess()).toMatchObject({ status: 403, credential: 'api_key', tenant_id: t.id });
  });

  it('/ and /openapi.json point a newcomer to the reference instead of a 404', async () => {
    const root = await h.request('GET', '/');
    expect(root.status).toBe(200);
    expect(root.body).toEqual({
      name: 'Support Platform API',
      docs: '/docs',
      openapi: '/api/v1/openapi.json',
      health: '/api/v2/health',
    });
    const doc = await h.request('GET', '/openapi.json');
    expect(doc.status).toBe(308);
    expect(doc.headers.get('location')).toBe('/api/v1/openapi.json');
    expect((await h.request('GET', doc.headers.get('location')!)).body.openapi).toMatch(/^3\.1/);
    const slash = await h.request('GET', '/docs/');
    expect(slash.status).toBe(308);
    expect(slash.headers.get('location')).toBe('/docs');
    expect((await h.request('GET', '/docs')).status).toBe(200);
  });

  it('no line carries a credential', async () => {
    for (const line of h.logged) {
      expect(line).not.toContain(readKey);
      expect(line).not.toContain(t.adminToken);
    }
  });
});

describe.skipIf(postgresUnavailable())('CORS on the browser surfaces', () => {
  const preflight = (origin: string, method = 'POST') => ({
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type, authorization',
    },
  });

  describe('CORS_ALLOWED_ORIGINS set to a list', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ CORS_ALLOWED_ORIGINS: 'https://help.example.com, https://shop.example.com' });
    });
    afterAll(async () => {
      await h?.close();
    });

    it('a preflight from an allowed origin is answered 204 before the gate, for every browser surface', async () => {
      for (const path of [
        '/api/v1/widget/messages',
        '/api/v1/help-center/ten_x/articles',
        '/api/v1/app/tickets',
      ]) {
        const res = await h.request('OPTIONS', path, preflight('https://shop.example.com'));
        expect(res.status, path).toBe(204);
        expect(res.headers.get('access-control-allow-origin'), path).toBe('https://shop.example.com');
        expect(res.headers.get('access-control-allow-methods'), path).toContain('POST');
        expect(res.headers.get('access-control-allow-headers'), path).toBe('content-type,authorization');
        expect(res.headers.get('vary'), path).toContain('Origin');
        expect(res.headers.get('x-request-id'), path).toMatch(/^rid_/);
      }
    });

    it('a preflight from another origin gets no Allow-Origin: the browser blocks the call', async () => {
      const res = await h.request(
        'OPTIONS',
        '/api/v1/widget/messages',
        preflight('https://evil.example.net'),
      );
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('a response to an allowed origin carries Allow-Origin and exposes the request id', async () => {
      const res = await h.request('GET', '/api/v1/app/tickets', {
        headers: { origin: 'https://help.example.com' },
      });
      expect(res.status).toBe(401); // the gate still refuses: CORS lets the browser read the refusal
      expect(res.headers.get('access-control-allow-origin')).toBe('https://help.example.com');
      expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    });

    it('an API-key route is server-to-server: its preflight meets the gate and gets no CORS headers', async () => {
      const res = await h.request('OPTIONS', '/api/v1/tickets', preflight('https://help.example.com', 'GET'));
      expect(res.status).toBe(401);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-methods')).toBeNull();
      const get = await h.request('GET', '/api/v1/tickets', {
        headers: { origin: 'https://help.example.com' },
      });
      expect(get.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('CORS_ALLOWED_ORIGINS unset (default *)', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness();
    });
    afterAll(async () => {
      await h?.close();
    });

    it('any origin may call the browser surfaces', async () => {
      const res = await h.request(
        'OPTIONS',
        '/api/v1/help-center/ten_x/articles',
        preflight('https://anywhere.example', 'GET'),
      );
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    });
  });
});

describe.skipIf(postgresUnavailable())('a method the path does not serve', () => {
  let h: Harness;
  let t: TestTenant;
  let readKey: string;
  let writeKey: string;

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    readKey = await t.key(['tickets:read']);
    writeKey = await t.key(['tickets:read', 'tickets:write']);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is 405 with Allow listing the methods the path serves, in the error shape', async () => {
    const put = await h.request('PUT', '/api/v1/tickets', { apiKey: writeKey, body: {} });
    expect(put.status).toBe(405);
    expect(put.body).toEqual({ detail: 'Method Not Allowed' });
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(put.headers.get('x-request-id')).toMatch(/^rid_/);
    const del = await h.request('DELETE', '/api/v1/tickets/tkt_0000000000000000000000', { apiKey: writeKey });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, HEAD, PATCH');
    const session = await h.request('PUT', '/api/v1/tickets', { bearer: t.adminToken, body: {} });
    expect(session.status).toBe(405);
  });

  it("the gate's refusals come first: no credential 401, a key without the method's scope 403", async () => {
    const anonymous = await h.request('PUT', '/api/v1/tickets', { body: {} });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: 'Missing authentication credentials' });
    const readOnly = await h.request('PUT', '/api/v1/tickets', { apiKey: readKey, body: {} });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body).toEqual({ detail: 'API key missing required scope: tickets:write' });
  });

  it('keeps no Idempotency-Key: the key stays free for the request the client meant to send', async () => {
    const headers = { 'Idempotency-Key': 'refused-method-then-create' };
    const patch = await h.request('PATCH', '/api/v1/tickets', { apiKey: writeKey, body: {}, headers });
    expect(patch.status).toBe(405);
    const create = await h.request('POST', '/api/v1/tickets', {
      apiKey: writeKey,
      body: { subject: 'After a refused method' },
      headers,
    });
    expect(create.status).toBe(201);
    // the key now names the POST, and a method no route serves is still a 405, not a reused key
    const again = await h.request('PATCH', '/api/v1/tickets', { apiKey: writeKey, body: {}, headers });
    expect(again.status).toBe(405);
    expect(again.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('a path no route serves with any method stays 404', async () => {
    const res = await h.request('PUT', '/api/v1/tickets/tkt_0000000000000000000000/nothing', {
      apiKey: writeKey,
      body: {},
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not Found' });
    expect(res.headers.get('allow')).toBeNull();
  });
});
