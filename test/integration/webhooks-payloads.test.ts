// What a subscriber is told a delivery carries is what it carries: a real ticket.created delivery
// and every documented example validate against the OpenAPI document's event schemas (strict: no
// key the document does not name), and a test delivery is the example in full, marked as a test
// on the wire (X-Webhook-Test) and in the delivery log (`test`), while a real event is marked neither.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/docs/document';
import {
  type HttpsReceiver,
  startHttpsReceiver,
  trustTestCertificate,
} from '../../scripts/lib/https-receiver';
import { EVENT_TYPES } from '../../shared/events/catalog';
import { EVENT_EXAMPLES } from '../../shared/events/examples';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

trustTestCertificate();

const doc = openApiDocument('public') as any;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
for (const [name, schema] of Object.entries<any>(doc.components.schemas))
  ajv.addSchema(schema, `#/components/schemas/${name}`);
/** The problems of `body` (a whole delivery body) against the documented schema of its event. */
function against(type: string, body: unknown): string[] {
  const ref = doc.webhooks[type].post.requestBody.content['application/json'].schema.$ref as string;
  const validate = ajv.getSchema(ref)!;
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe('documented event payloads', () => {
  it.each(EVENT_TYPES)('the %s example validates against its documented schema', (type) => {
    const body = { event_type: type, timestamp: '2026-03-02T09:30:00.000Z', data: EVENT_EXAMPLES[type] };
    expect(against(type, body)).toEqual([]);
  });

  it('refuses a key the document does not name (so the checks above are strict)', () => {
    const data = EVENT_EXAMPLES['ticket.created'];
    const body = { event_type: 'ticket.created', timestamp: '2026-03-02T09:30:00.000Z' };
    expect(
      against('ticket.created', { ...body, data: { ticket: { ...data.ticket, extra: 1 } } }),
    ).not.toEqual([]);
    const { created_by: _, ...short } = data.ticket;
    expect(against('ticket.created', { ...body, data: { ticket: short } })).not.toEqual([]);
  });
});

describe.skipIf(postgresUnavailable())('real and test deliveries', { timeout: 60_000 }, () => {
  let h: Harness;
  let rx: HttpsReceiver;
  let t: TestTenant;
  let key: string;
  let hook: { id: string; path: string };

  beforeAll(async () => {
    rx = await startHttpsReceiver();
    h = await startHarness({ WEBHOOK_SSRF_ALLOW: 'localhost', WEBHOOK_RETRY_UNIT_MS: '20' });
    t = await h.tenant();
    key = await t.key(['webhooks:read', 'webhooks:write', 'tickets:write']);
    const path = '/payloads';
    const res = await h.request('POST', '/api/v1/webhooks', {
      apiKey: key,
      body: { url: rx.url(path), events: ['ticket.created'] },
    });
    expect(res.status).toBe(201);
    hook = { id: res.body.id, path };
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  }, 60_000);

  const entryOf = async (deliveryId: string) => {
    const log = await h.request('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { apiKey: key });
    const one = await h.request('GET', `/api/v1/webhooks/${hook.id}/deliveries/${deliveryId}`, {
      apiKey: key,
    });
    expect(one.status).toBe(200);
    return { listed: log.body.deliveries.find((d: any) => d.id === deliveryId), read: one.body };
  };

  it('a real ticket.created carries the served ticket, validates strictly, and is not marked a test', async () => {
    const created = await h.request('POST', '/api/v1/tickets', {
      apiKey: key,
      body: { subject: 'Printer offline', tags: ['floor-3'] },
    });
    expect(created.status).toBe(201);
    h.runtime.services.events.kick();
    await h.runtime.webhooks.settle();
    const sent = rx.received(hook.path).find((r) => JSON.parse(r.body).data.ticket.id === created.body.id)!;
    expect(sent).toBeDefined();
    const body = JSON.parse(sent.body);
    expect(against('ticket.created', body)).toEqual([]);
    expect(body.data.ticket).toEqual(created.body);
    expect(body.data.ticket.created_by).toMatch(/^api_key:key_/);
    expect(sent.headers['x-webhook-test']).toBeUndefined();
    const id = sent.headers['x-webhook-delivery-id']!;
    const { listed, read } = await entryOf(id);
    // the list's entries keep the spec's fields; the delivery's own read says whether it is a test
    expect(listed).not.toHaveProperty('test');
    expect(read.test).toBe(false);
  });

  it('a test delivery carries the example in full, with X-Webhook-Test: true and test: true in its read', async () => {
    const res = await h.request('POST', `/api/v2/webhooks/${hook.id}/test`, {
      bearer: t.adminToken,
      body: { event_type: 'ticket.created' },
    });
    expect(res.status).toBe(202);
    await h.runtime.webhooks.settle();
    const sent = rx
      .received(hook.path)
      .find((r) => r.headers['x-webhook-delivery-id'] === res.body.delivery_id)!;
    expect(sent).toBeDefined();
    const body = JSON.parse(sent.body);
    expect(body.data).toEqual(EVENT_EXAMPLES['ticket.created']);
    expect(against('ticket.created', body)).toEqual([]);
    expect(sent.headers['x-webhook-test']).toBe('true');
    // the marker sits beside the signature headers, which are made as for any delivery
    expect(sent.headers['webhook-signature']).toMatch(/^v1,/);
    expect(sent.headers['x-webhook-signature']).toMatch(/^[0-9a-f]{64}$/);
    const { listed, read } = await entryOf(res.body.delivery_id);
    expect(listed).not.toHaveProperty('test');
    expect(read.test).toBe(true);

    // a redelivery of a test is a test too
    const again = await h.request(
      'POST',
      `/api/v1/webhooks/${hook.id}/deliveries/${res.body.delivery_id}/redeliver`,
      { apiKey: key },
    );
    expect(again.status).toBe(202);
    expect(again.body.test).toBe(true);
    await h.runtime.webhooks.settle();
    const resent = rx.received(hook.path).find((r) => r.headers['x-webhook-delivery-id'] === again.body.id)!;
    expect(resent.headers['x-webhook-test']).toBe('true');
  });
});
