import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../shared/ratelimit/limiter';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

// On Node, headers set for a whole request (a sent X-Request-Id, X-RateLimit-*) go onto the
// ServerResponse itself (shared/http/response-headers.ts). Checked over a real socket, as `npm start` serves.
describe.skipIf(postgresUnavailable())('per-request headers over real HTTP (Node adapter)', () => {
  let h: Harness;
  let server: ServerType;
  let base: string;
  let key: string;

  beforeAll(async () => {
    h = await startHarness();
    // one instant in the middle of every window: a window boundary between the key's creation and
    // the request below would reset the count and make `remaining` off by one
    const limiter = h.runtime.services.rateLimiter;
    if (limiter instanceof MemoryRateLimiter) {
      const pinned = Math.floor(Date.now() / 60_000) * 60_000 + 5_000;
      limiter.now = () => pinned;
    }
    key = await (await h.tenant({ plan: 'starter' })).key(['tickets:read', 'tickets:write']);
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: h.runtime.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await h?.close();
  });

  it('a handler response carries the echoed request id, the rate-limit headers and its own headers', async () => {
    const res = await fetch(`${base}/api/v1/tickets`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': 'create-1' },
      body: JSON.stringify({ subject: 'over http' }),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { id: string };
    expect(res.headers.get('location')).toBe(`/api/v1/tickets/${body.id}`);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toBe('create-1');
    expect(res.headers.get('x-ratelimit-limit')).toBe('120');
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(118); // the key's creation was a write too
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
  });

  it('an error thrown by a handler carries them too, and a sent X-Request-Id is echoed', async () => {
    const res = await fetch(`${base}/api/v1/tickets/tkt_0000000000000000000000`, {
      headers: { 'x-api-key': key, 'x-request-id': 'trace-42' },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Ticket not found' });
    expect(res.headers.get('x-request-id')).toBe('trace-42');
    expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
  });

  it('a gate refusal carries the sent request id and no rate-limit headers (no tenant is known)', async () => {
    const res = await fetch(`${base}/api/v1/tickets`, { headers: { 'x-request-id': 'r'.repeat(128) } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: 'Missing authentication credentials' });
    expect(res.headers.get('x-request-id')).toBe('r'.repeat(128));
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('every kind of answer carries the request id exactly once, whoever built it', async () => {
    const narrow = await (await h.tenant()).key(['calls:read']);
    const cases: [string, RequestInit, number][] = [
      ['/api/v1/tickets', { headers: { 'x-api-key': narrow } }, 403], // the gate's scope refusal
      ['/api/v1/tickets/tkt_1/nothing-here', { headers: { 'x-api-key': key } }, 404], // no route
      ['/api/v1/tickets?limit=oops', { headers: { 'x-api-key': key } }, 422], // a handler's error
      ['/api/v1/tickets?limit=1', { headers: { 'x-api-key': key } }, 200], // a handler's answer
      ['/api/v2/health', { method: 'POST' }, 405], // a refusal with its own Allow header
      ['/api/v1/tickets', { method: 'HEAD', headers: { 'x-api-key': narrow } }, 403],
      [
        '/api/v1/tickets',
        { method: 'POST', headers: { 'x-api-key': key, 'content-length': '99999999' }, body: 'x' },
        413,
      ],
      // a stated size over the limit is refused before the gate looks at the caller
      ['/api/v1/tickets', { method: 'POST', headers: { 'content-length': '99999999' }, body: 'x' }, 413],
    ];
    for (const [path, init, status] of cases) {
      const sent = `once-${status}`;
      const res = await rawRequest(path, init, sent);
      expect(res.status, path).toBe(status);
      // Node's client keeps every copy of a repeated header in rawHeaders
      expect(res.requestIds, `${init.method ?? 'GET'} ${path}`).toEqual([sent]);
    }
  });

  /** The response's status and every X-Request-Id line it carried, over a socket of its own. */
  async function rawRequest(path: string, init: RequestInit, requestId: string) {
    const { request } = await import('node:http');
    const url = new URL(path, base);
    return new Promise<{ status: number; requestIds: string[] }>((resolve, reject) => {
      const req = request(
        url,
        {
          method: init.method ?? 'GET',
          headers: { ...(init.headers as Record<string, string>), 'x-request-id': requestId },
        },
        (res) => {
          const ids: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            if (res.rawHeaders[i]!.toLowerCase() === 'x-request-id') ids.push(res.rawHeaders[i + 1]!);
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, requestIds: ids }));
        },
      );
      req.on('error', reject);
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
  }

  it('headers set for one request do not leak into the next on a kept-alive connection', async () => {
    const first = await fetch(`${base}/api/v1/tickets?limit=1`, {
      headers: { 'x-api-key': key, 'x-request-id': 'first' },
    });
    expect(first.headers.get('x-ratelimit-limit')).not.toBeNull();
    const refused = await fetch(`${base}/api/v1/tickets?limit=1`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-ratelimit-limit')).toBeNull();
    // none sent: a new one, never the previous request's
    expect(refused.headers.get('x-request-id')).toMatch(/^rid_/);
  });
});
