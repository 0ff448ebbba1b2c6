// The typed client (clients/typescript) against the real server: the embedded runtime listening on
// a port of this test's range, called over HTTP exactly as an integrator's script would.
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportClient, SupportApiError } from '../../clients/typescript';
import {
  type Harness,
  postgresUnavailable,
  startHarness,
  TEST_DB,
  type TestTenant,
} from '../support/harness';

/** one port per vitest project, so the pglite and postgres tiers may run side by side */
const PORT = TEST_DB === 'postgres' ? 9142 : 9141;

/** Records every request the client sends (method, path and headers as they left). */
function recordingFetch() {
  const sent: { method: string; path: string; headers: Headers }[] = [];
  const fetchImpl = (request: Request) => {
    sent.push({
      method: request.method,
      path: new URL(request.url).pathname,
      headers: new Headers(request.headers),
    });
    return fetch(request);
  };
  return { sent, fetch: fetchImpl };
}

describe.skipIf(postgresUnavailable())('typed client against the real server', { timeout: 60_000 }, () => {
  let h: Harness;
  let server: ServerType;
  let baseUrl: string;
  let tenant: TestTenant;
  let key: string;

  beforeAll(async () => {
    h = await startHarness();
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: h.runtime.app.fetch, port: PORT, hostname: '127.0.0.1' }, () => resolve(s));
    });
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    tenant = await h.tenant();
    key = await tenant.key(['tickets:read', 'tickets:write']);
  }, 120_000);
  afterAll(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await h?.close();
  }, 60_000);

  it('creates with an API key, an Idempotency-Key on every POST, and none on GET', async () => {
    const rec = recordingFetch();
    const api = createSupportClient({ baseUrl, apiKey: key, fetch: rec.fetch });
    const { data, response } = await api.POST('/api/v1/tickets', {
      body: { subject: 'Printer on fire', priority: 'urgent' },
    });
    expect(response.status).toBe(201);
    expect(data?.subject).toBe('Printer on fire');
    await api.GET('/api/v1/tickets/{ticket_id}', { params: { path: { ticket_id: data!.id } } });
    expect(rec.sent.map((r) => [r.method, r.headers.get('X-API-Key')])).toEqual([
      ['POST', key],
      ['GET', key],
    ]);
    expect(rec.sent[0]!.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(rec.sent[1]!.headers.has('Idempotency-Key')).toBe(false);
  });

  it("a caller's Idempotency-Key is kept (the server replays), and idempotency: false sends none", async () => {
    const api = createSupportClient({ baseUrl, apiKey: key });
    const init = { body: { subject: 'Once only' }, headers: { 'Idempotency-Key': 'client-test-once' } };
    const first = await api.POST('/api/v1/tickets', init);
    const second = await api.POST('/api/v1/tickets', init);
    expect(second.data?.id).toBe(first.data?.id);
    expect(second.response.headers.get('Idempotent-Replayed')).toBe('true');
    const rec = recordingFetch();
    const noKey = createSupportClient({ baseUrl, apiKey: key, idempotency: false, fetch: rec.fetch });
    await noKey.POST('/api/v1/tickets', { body: { subject: 'No key' } });
    expect(rec.sent[0]!.headers.has('Idempotency-Key')).toBe(false);
  });

  it('pages through every ticket, keeping the filters on every page', async () => {
    const t = await h.tenant();
    const k = await t.key(['tickets:read', 'tickets:write']);
    const rec = recordingFetch();
    const api = createSupportClient({ baseUrl, apiKey: k, fetch: rec.fetch });
    const subjects: string[] = [];
    for (let i = 0; i < 7; i++) {
      const priority = i % 2 === 0 ? 'high' : 'low';
      await api.POST('/api/v1/tickets', { body: { subject: `T${i}`, priority } });
      if (priority === 'high') subjects.push(`T${i}`);
    }
    rec.sent.length = 0;
    const seen: string[] = [];
    for await (const ticket of api.paginate('/api/v1/tickets', {
      params: { query: { priority: 'high', limit: 3 } },
    })) {
      expect(ticket.priority).toBe('high');
      seen.push(ticket.subject);
    }
    expect(seen.sort()).toEqual(subjects.sort());
    // 4 rows at 3 per page: two requests, and no request for an empty third page
    expect(rec.sent.length).toBe(2);
    const all: string[] = [];
    for await (const ticket of api.paginate('/api/v1/tickets', { params: { query: { limit: 2 } } }))
      all.push(ticket.id);
    expect(new Set(all).size).toBe(7);
  });

  it('a list without paging is fetched once, here with a session token from a function', async () => {
    const rec = recordingFetch();
    const api = createSupportClient({ baseUrl, sessionToken: () => tenant.adminToken, fetch: rec.fetch });
    const plans: string[] = [];
    for await (const plan of api.paginate('/api/v1/billing/plans')) plans.push(plan.plan);
    expect(plans).toEqual(['free', 'starter', 'pro', 'enterprise']);
    expect(rec.sent.map((r) => r.headers.get('Authorization'))).toEqual([`Bearer ${tenant.adminToken}`]);
  });

  it('throws SupportApiError with status, detail and request id', async () => {
    const api = createSupportClient({ baseUrl, apiKey: key });
    const missing = await api
      .GET('/api/v1/tickets/{ticket_id}', {
        params: { path: { ticket_id: '00000000-0000-0000-0000-000000000000' } },
        headers: { 'X-Request-Id': 'req-client-404' },
      })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SupportApiError);
    expect(missing).toMatchObject({ status: 404, requestId: 'req-client-404' });
    expect(typeof (missing as SupportApiError).detail).toBe('string');

    const scope = await api.GET('/api/v1/usage/summary').catch((e: unknown) => e);
    expect(scope).toMatchObject({ status: 403, detail: 'API key missing required scope: usage:read' });
    expect((scope as SupportApiError).requestId).toMatch(/.+/);

    const invalid = (await api
      .GET('/api/v1/tickets', { params: { query: { limit: 1000 } } })
      .catch((e: unknown) => e)) as SupportApiError;
    expect(invalid.status).toBe(422);
    expect(invalid.issues[0]?.loc).toContain('limit');

    const anonymous = await createSupportClient({ baseUrl })
      .GET('/api/v1/tickets')
      .catch((e: unknown) => e);
    expect(anonymous).toMatchObject({ status: 401 });
  });

  it('waits out a 429 for as long as Retry-After says, then succeeds', async () => {
    // free plan: 80 reads per 10 seconds; spend them, then one more must wait for the window
    const t = await h.tenant({ plan: 'free' });
    const k = await t.key(['tickets:read']);
    const noRetry = createSupportClient({ baseUrl, apiKey: k, retry: false });
    let refused: SupportApiError | undefined;
    for (let i = 0; i < 100 && !refused; i++) {
      await noRetry.GET('/api/v1/tickets', { params: { query: { limit: 1 } } }).catch((e: unknown) => {
        refused = e as SupportApiError;
      });
    }
    expect(refused?.status).toBe(429);
    const rec = recordingFetch();
    const api = createSupportClient({
      baseUrl,
      apiKey: k,
      fetch: rec.fetch,
      retry: { attempts: 3, maxDelayMs: 15_000 },
    });
    const started = Date.now();
    const { response } = await api.GET('/api/v1/tickets', { params: { query: { limit: 1 } } });
    expect(response.status).toBe(200);
    expect(rec.sent.length).toBeGreaterThanOrEqual(2);
    // the retries carried the same request id: one logical call
    expect(new Set(rec.sent.map((r) => r.headers.get('X-Request-Id'))).size).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });
});
