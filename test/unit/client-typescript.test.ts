// The typed client's pure parts: the committed generated sources are what the document yields today
// (so CI fails when someone changes the API without `npm run client:generate`), the list detection,
// and the retry rules.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { generateClientSources, listEndpoints } from '../../clients/typescript/generate';
import { createSupportClient, SupportNetworkError } from '../../clients/typescript/index';
import { retryAfterMs, retryingFetch } from '../../clients/typescript/retry';
import {
  verifyWebhook,
  type WebhookEventFrom,
  type WebhookEventOf,
  type WebhookEventType,
} from '../../clients/typescript/webhook-events';
import { openApiDocument } from '../../functions/docs/app';
import type { EventType } from '../../shared/events/catalog';
import { buildSignedRequest } from '../../shared/webhooks/signing';

const GENERATED = join(import.meta.dirname, '..', '..', 'clients', 'typescript', 'generated');

describe('generated client sources', () => {
  it('are up to date with the published document (run `npm run client:generate`)', async () => {
    const files = await generateClientSources(openApiDocument());
    expect(Object.keys(files).sort()).toEqual(['lists.ts', 'openapi.ts']);
    for (const [name, text] of Object.entries(files)) {
      expect(
        readFileSync(join(GENERATED, name), 'utf8'),
        `clients/typescript/generated/${name} is stale`,
      ).toBe(text);
    }
  }, 30_000);

  it('finds the list endpoints of the document, paged or not', () => {
    const lists = listEndpoints(openApiDocument());
    // lists that take a cursor are walked by it; the others by offset
    expect(lists['/api/v1/tickets']).toEqual({ paging: 'cursor', items: 'tickets' });
    expect(lists['/api/v2/contacts']).toEqual({ paging: 'cursor', items: 'contacts' });
    expect(lists['/api/v1/tickets/{ticket_id}/replies']).toEqual({ paging: 'offset', items: 'replies' });
    expect(lists['/api/v1/webhooks']).toEqual({ paging: 'none', items: 'webhooks' });
    // one resource, or an object with more than one array: not a list
    expect(lists['/api/v1/tickets/{ticket_id}']).toBeUndefined();
    expect(lists['/api/v1/usage/details']).toBeUndefined();
  });
});

describe('list detection', () => {
  const doc = (body: unknown, query: string[]) => ({
    components: {
      schemas: {
        Row: { type: 'object', properties: { id: { type: 'string' } } },
        Rows: { type: 'array', items: { $ref: '#/components/schemas/Row' } },
        Page: body,
      },
    },
    paths: {
      '/rows': {
        get: {
          parameters: query.map((name) => ({ in: 'query', name, schema: { type: 'string' } })),
          responses: {
            200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Page' } } } },
          },
        },
      },
    },
  });
  const rows = { $ref: '#/components/schemas/Rows' };

  it.each([
    [
      'offset page through named schemas',
      { properties: { rows, total: {}, limit: {}, offset: {} } },
      ['limit', 'offset'],
      { paging: 'offset', items: 'rows' },
    ],
    [
      'cursor page',
      { properties: { rows, next_cursor: {} } },
      ['cursor', 'limit'],
      { paging: 'cursor', items: 'rows' },
    ],
    [
      'offset and cursor both: the cursor',
      { properties: { rows, total: {}, limit: {}, offset: {}, next_cursor: {} } },
      ['cursor', 'limit', 'offset'],
      { paging: 'cursor', items: 'rows' },
    ],
    ['a bare wrapper', { properties: { rows } }, [], { paging: 'none', items: 'rows' }],
    [
      'total without offset parameter, and more fields',
      { properties: { rows, total: {} } },
      ['limit'],
      undefined,
    ],
    ['two arrays', { properties: { rows, more: { type: 'array' } } }, [], undefined],
  ])('%s', (_name, body, query, expected) => {
    expect(listEndpoints(doc(body, query))['/rows']).toEqual(expected);
  });
});

describe('retry', () => {
  const answer = (status: number, headers: Record<string, string> = {}) =>
    new Response('{}', { status, headers });
  function scripted(answers: Response[]) {
    const bodies: string[] = [];
    const waits: number[] = [];
    const fetchImpl = async (request: Request) => {
      bodies.push(await request.text());
      return answers.shift() ?? answer(200);
    };
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    return { bodies, waits, fetchImpl, sleep };
  }
  const post = () => new Request('http://api.test/x', { method: 'POST', body: '{"a":1}' });

  it('re-sends the same body after Retry-After on 429 and 503', async () => {
    const s = scripted([
      answer(429, { 'Retry-After': '2' }),
      answer(503, { 'Retry-After': '1' }),
      answer(201),
    ]);
    const res = await retryingFetch(s.fetchImpl, { attempts: 3, sleep: s.sleep })(post());
    expect(res.status).toBe(201);
    expect(s.waits).toEqual([2000, 1000]);
    expect(s.bodies).toEqual(['{"a":1}', '{"a":1}', '{"a":1}']);
  });

  it('stops after the attempts and returns the last refusal', async () => {
    const s = scripted([answer(503), answer(503), answer(503), answer(200)]);
    const res = await retryingFetch(s.fetchImpl, { attempts: 2, baseDelayMs: 100, sleep: s.sleep })(post());
    expect(res.status).toBe(503);
    expect(s.waits).toEqual([100]);
  });

  it('does not wait longer than maxDelayMs: a longer Retry-After ends the retries', async () => {
    const s = scripted([answer(429, { 'Retry-After': '120' })]);
    const res = await retryingFetch(s.fetchImpl, { maxDelayMs: 30_000, sleep: s.sleep })(post());
    expect(res.status).toBe(429);
    expect(s.waits).toEqual([]);
  });

  it('never retries other statuses', async () => {
    const s = scripted([answer(500), answer(200)]);
    expect((await retryingFetch(s.fetchImpl, { sleep: s.sleep })(post())).status).toBe(500);
    expect(s.bodies.length).toBe(1);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});

describe('typed webhook events', () => {
  /** the shape openapi-typescript generates for a 3.1 document's top-level `webhooks` */
  type Delivery<Body> = {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    post: { requestBody: { content: { 'application/json': Body } }; responses: Record<number, unknown> };
  };
  type Webhooks = {
    'ticket.created': Delivery<{
      event_type: 'ticket.created';
      timestamp: string;
      data: { subject: string };
    }>;
    /** a body whose event_type is a plain string: the entry's name stands in */
    'contact.deleted': Delivery<{ event_type: string; timestamp: string; data: { id: string } }>;
  };

  it('are one union discriminated on event_type', () => {
    type Event = WebhookEventFrom<Webhooks>;
    expectTypeOf<Event['event_type']>().toEqualTypeOf<'ticket.created' | 'contact.deleted'>();
    expectTypeOf<Extract<Event, { event_type: 'ticket.created' }>['data']>().toEqualTypeOf<{
      subject: string;
    }>();
    expectTypeOf<Extract<Event, { event_type: 'contact.deleted' }>['data']>().toEqualTypeOf<{ id: string }>();
  });

  it("are the document's: every catalog event, each with its own payload", () => {
    expectTypeOf<WebhookEventType>().toEqualTypeOf<EventType>();
    expectTypeOf<WebhookEventOf<'ticket.created'>['data']['ticket']['subject']>().toEqualTypeOf<string>();
    expectTypeOf<WebhookEventOf<'ticket.created'>['event_type']>().toEqualTypeOf<'ticket.created'>();
  });

  it("verifyWebhook returns the server's signed delivery, and null when the signature or body fails", async () => {
    const secret = 'whsec_unit';
    const signed = await buildSignedRequest({
      secret,
      deliveryId: 'dlv_1',
      eventType: 'ticket.created',
      eventTimestamp: '2026-01-01T00:00:00.000Z',
      data: { id: 't1', subject: 'Hello' },
    });
    const verify = (payload: string | Uint8Array, key = secret) =>
      verifyWebhook({ payload, headers: signed.headers, secret: key, toleranceSeconds: 300 });
    expect(await verify(signed.body)).toEqual({
      event_type: 'ticket.created',
      timestamp: '2026-01-01T00:00:00.000Z',
      data: { id: 't1', subject: 'Hello' },
    });
    expect(await verify(new TextEncoder().encode(signed.body))).toEqual(JSON.parse(signed.body));
    expect(await verify(signed.body, 'whsec_other')).toBeNull();
    expect(await verify(signed.body.replace('Hello', 'Hellp'))).toBeNull();
  });
});

describe('the client’s types and failures', () => {
  it('rejects a misspelt filter value at the type level, and takes a comma list of real ones', () => {
    const client = createSupportClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'itsm_sk_test_x',
      retry: false,
    });
    const list = (status: 'open' | 'open,pending') =>
      client.GET('/api/v1/tickets', { params: { query: { status } } });
    expectTypeOf(list).toBeFunction();
    // @ts-expect-error 'opne' is no ticket status: `npx tsc --noEmit` fails if this compiles
    const misspelt = () => client.GET('/api/v1/tickets', { params: { query: { status: 'opne' } } });
    expectTypeOf(misspelt).toBeFunction();
  });

  it('reports a server that does not answer as a SupportNetworkError, not a bare TypeError', async () => {
    const client = createSupportClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'itsm_sk_test_x',
      retry: false,
      fetch: () => Promise.reject(new TypeError('fetch failed')),
    });
    const failure = await client.GET('/api/v1/tickets').then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(SupportNetworkError);
    expect(failure).not.toBeInstanceOf(TypeError);
    expect((failure as SupportNetworkError).method).toBe('GET');
    expect(((failure as SupportNetworkError).cause as Error).message).toBe('fetch failed');
  });
});
