import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type HttpsReceiver,
  startHttpsReceiver,
  trustTestCertificate,
} from '../../scripts/lib/https-receiver';
import { emitEvent } from '../../shared/events/emit';
import { EVENT_EXAMPLES } from '../../shared/events/examples';
import { runEdgeCycle } from '../../shared/webhooks/qstash';
import { nodeWebhookPort } from '../../shared/webhooks/transport.node';
import { servedTicket } from '../support/events';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

trustTestCertificate();

const ticket = { ticket: servedTicket('tkt_tools', { subject: 'Tools', priority: 'low' }) };

// independent of the product's signer
const signature = (secret: string, ts: string, body: string) =>
  createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');

describe.skipIf(postgresUnavailable())(
  'webhook tools: attempts you can read, test events, secret rotation, description',
  { timeout: 60_000 },
  () => {
    let h: Harness;
    let rx: HttpsReceiver;
    let t: TestTenant;
    let key: string;
    let n = 0;

    beforeAll(async () => {
      rx = await startHttpsReceiver({ slowMs: 20 });
      h = await startHarness({
        WEBHOOK_SSRF_ALLOW: 'localhost',
        WEBHOOK_TIMEOUT_MS: '3000',
        WEBHOOK_RETRY_UNIT_MS: '20',
      });
      t = await h.tenant();
      key = await t.key(['webhooks:read', 'webhooks:write', 'webhooks:delete']);
      // one delivery first, so no test's first attempt pays for a cold TLS connection under a timeout
      await subscribe(['ticket.created']);
      await emitEvent(h.db, t.id, 'ticket.created', ticket);
      h.runtime.services.events.kick();
      await h.runtime.webhooks.settle();
    }, 120_000);
    afterAll(async () => {
      await h?.close();
      await rx?.close();
    }, 60_000);

    async function subscribe(events: string[], extra: Record<string, unknown> = {}) {
      const path = `/tools-${++n}`;
      const res = await h.request('POST', '/api/v1/webhooks', {
        apiKey: key,
        body: { url: rx.url(path), events, ...extra },
      });
      expect(res.status).toBe(201);
      return { id: res.body.id as string, secret: res.body.secret as string, path, created: res.body };
    }
    const detail = async (hookId: string, deliveryId: string) => {
      const res = await h.request('GET', `/api/v1/webhooks/${hookId}/deliveries/${deliveryId}`, {
        apiKey: key,
      });
      expect(res.status).toBe(200);
      return res.body;
    };
    const logOf = async (hookId: string) =>
      (await h.request('GET', `/api/v1/webhooks/${hookId}/deliveries`, { apiKey: key })).body
        .deliveries as any[];

    it("keeps each attempt's request exactly as sent and the receiver's answer", async () => {
      const sub = await subscribe(['ticket.created']);
      rx.plan(sub.path, [
        { status: 503, body: 'busy, try later', headers: { 'retry-after': '1', 'x-receiver': 'one' } },
        'timeout',
        { status: 200, body: `{"ok":true,"pad":"${'x'.repeat(5000)}"}`, headers: { 'x-receiver': 'three' } },
      ]);
      await emitEvent(h.db, t.id, 'ticket.created', ticket);
      h.runtime.services.events.kick();
      await h.runtime.webhooks.settle();

      const [entry] = await logOf(sub.id);
      // the log's entries stay exactly as the spec has them: no request, response or history
      expect(Object.keys(entry).sort()).toEqual(
        [
          'attempts',
          'created_at',
          'duration_ms',
          'error',
          'event_type',
          'id',
          'last_attempt_at',
          'next_attempt_at',
          'response_status',
          'status',
        ].sort(),
      );
      const got = rx.received(sub.path);
      expect(got).toHaveLength(3);
      const d = await detail(sub.id, entry.id);
      expect(d.history).toHaveLength(3);
      for (const [i, a] of d.history.entries()) {
        const sent = got[i]!;
        // exactly what the receiver got: body byte for byte, and the signed headers
        expect(a.request.body).toBe(sent.body);
        expect(a.request.headers['X-Webhook-Signature']).toBe(sent.headers['x-webhook-signature']);
        expect(a.request.headers['X-Webhook-Timestamp']).toBe(sent.headers['x-webhook-timestamp']);
        expect(a.request.headers['X-Webhook-Delivery-Id']).toBe(entry.id);
        expect(a.request.headers['Content-Type']).toBe('application/json');
        expect(a.request.headers['X-Webhook-Signature']).toBe(
          signature(sub.secret, sent.headers['x-webhook-timestamp']!, sent.body),
        );
      }
      const [first, second, third] = d.history;
      expect(first.response, JSON.stringify(first.error)).toEqual({
        status: 503,
        headers: expect.objectContaining({
          'retry-after': '1',
          'x-receiver': 'one',
          'content-type': 'text/plain',
        }),
        body: 'busy, try later',
        body_truncated: false,
      });
      expect(second.response).toBeNull();
      expect(second.error).toMatch(/Timed out/);
      expect(third.response.status).toBe(200);
      expect(third.response.headers['x-receiver']).toBe('three');
      expect(third.response.body).toHaveLength(4096);
      expect(third.response.body).toBe(`{"ok":true,"pad":"${'x'.repeat(5000)}"}`.slice(0, 4096));
      expect(third.response.body_truncated).toBe(true);
    });

    it('keeps no request for a refused destination, and a binary answer as text', async () => {
      const sub = await subscribe(['ticket.created']);
      rx.plan(sub.path, [{ status: 200, body: Buffer.from([0x6f, 0x6b, 0x00, 0xff, 0x21]) }]);
      await emitEvent(h.db, t.id, 'ticket.created', ticket);
      h.runtime.services.events.kick();
      await h.runtime.webhooks.settle();
      const [entry] = await logOf(sub.id);
      const d = await detail(sub.id, entry.id);
      expect(d.status).toBe('delivered');
      expect(d.history[0].response.body).toBe('ok\uFFFD\uFFFD!');

      // a destination refused at send time: nothing was sent, nothing answered
      await h.db
        .updateTable('webhooks')
        .set({ url: 'https://127.0.0.2/refused' })
        .where('id', '=', sub.id)
        .execute();
      await emitEvent(h.db, t.id, 'ticket.created', ticket);
      h.runtime.services.events.kick();
      await h.runtime.webhooks.settle();
      const refused = await detail(sub.id, (await logOf(sub.id))[0].id);
      expect(refused.history[0]).toMatchObject({ response_status: null, request: null, response: null });
      expect(refused.history[0].error).toMatch(/^Destination refused/);
    });

    it('clears what attempts sent and got back after WEBHOOK_ATTEMPT_RETENTION_DAYS, keeping the timeline', async () => {
      const sub = await subscribe(['ticket.created']);
      await emitEvent(h.db, t.id, 'ticket.created', ticket);
      h.runtime.services.events.kick();
      await h.runtime.webhooks.settle();
      const [entry] = await logOf(sub.id);
      // the attempt as if made 31 days ago (retention 30 by default); the worker sweeps when it starts
      await h.db
        .updateTable('webhook_delivery_attempts')
        .set({ attempted_at: new Date(Date.now() - 31 * 86_400_000) })
        .where('delivery_id', '=', entry.id)
        .execute();
      const kept = await h.db
        .selectFrom('webhook_delivery_attempts')
        .select('delivery_id')
        .where('request_headers', 'is not', null)
        .where('delivery_id', '!=', entry.id)
        .execute();
      expect(kept.length).toBeGreaterThan(0);
      await h.runtime.webhooks.stop();
      h.runtime.webhooks.start();
      await expect
        .poll(async () => (await detail(sub.id, entry.id)).history[0].request, { timeout: 10_000 })
        .toBeNull();
      const d = await detail(sub.id, entry.id);
      expect(d.history[0]).toMatchObject({ attempt: 1, response_status: 200, request: null, response: null });
      // attempts within the retention keep theirs
      const still = await h.db
        .selectFrom('webhook_delivery_attempts')
        .select('delivery_id')
        .where('request_headers', 'is not', null)
        .where(
          'delivery_id',
          'in',
          kept.map((k) => k.delivery_id),
        )
        .execute();
      expect(still).toHaveLength(kept.length);
    });

    it('the edge cycle clears expired content too (once per isolate and hour)', async () => {
      const sub = await subscribe(['ticket.created']);
      await emitEvent(h.db, t.id, 'ticket.created', ticket);
      h.runtime.services.events.kick();
      await h.runtime.webhooks.settle();
      const [entry] = await logOf(sub.id);
      await h.db
        .updateTable('webhook_delivery_attempts')
        .set({ attempted_at: new Date(Date.now() - 40 * 86_400_000) })
        .where('delivery_id', '=', entry.id)
        .execute();
      expect((await detail(sub.id, entry.id)).history[0].request).not.toBeNull();
      const { config, logger } = h.runtime.services;
      await runEdgeCycle({ db: h.db, config, port: nodeWebhookPort(), logger }, null);
      expect((await detail(sub.id, entry.id)).history[0]).toMatchObject({ request: null, response: null });
    });

    it("sends a catalog event's documented example to this endpoint only, signed, creating nothing", async () => {
      const sub = await subscribe(['ticket.created']);
      const other = await subscribe(['*']);
      const count = async (table: 'tickets' | 'events') =>
        Number(
          (
            await h.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<string>().as('n'))
              .where('tenant_id', '=', t.id)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = { tickets: await count('tickets'), events: await count('events') };
      // any catalog event, not only those the endpoint subscribes to
      const res = await h.request('POST', `/api/v2/webhooks/${sub.id}/test`, {
        bearer: t.adminToken,
        body: { event_type: 'conversation.assigned' },
      });
      expect(res.status).toBe(202);
      expect(Object.keys(res.body)).toEqual(['delivery_id']);
      await h.runtime.webhooks.settle();

      const got = rx.received(sub.path);
      expect(got).toHaveLength(1);
      const sent = got[0]!;
      const body = JSON.parse(sent.body);
      expect(body.event_type).toBe('conversation.assigned');
      expect(body.data).toEqual(EVENT_EXAMPLES['conversation.assigned']);
      expect(sent.headers['x-webhook-event']).toBe('conversation.assigned');
      expect(sent.headers['x-webhook-delivery-id']).toBe(res.body.delivery_id);
      expect(sent.headers['x-webhook-signature']).toBe(
        signature(sub.secret, sent.headers['x-webhook-timestamp']!, sent.body),
      );
      const [entry] = await logOf(sub.id);
      expect(entry).toMatchObject({
        id: res.body.delivery_id,
        status: 'delivered',
        event_type: 'conversation.assigned',
      });
      expect(rx.received(other.path)).toHaveLength(0);
      expect({ tickets: await count('tickets'), events: await count('events') }).toEqual(before);
    });

    it('test events: 422 for an unknown event or *, 404, 409 when inactive, dashboard tenant_admin only', async () => {
      const sub = await subscribe(['ticket.created']);
      const path = `/api/v2/webhooks/${sub.id}/test`;
      const post = (body: unknown, auth: { bearer?: string; apiKey?: string } = { bearer: t.adminToken }) =>
        h.request('POST', path, { ...auth, body });
      expect((await post({ event_type: 'ticket.exploded' })).status).toBe(422);
      expect((await post({ event_type: '*' })).status).toBe(422);
      expect((await post({})).status).toBe(422);
      expect((await post({ event_type: 'ticket.created' }, { bearer: await t.token('agent') })).status).toBe(
        403,
      );
      expect((await post({ event_type: 'ticket.created' }, { apiKey: key })).status).toBe(403);
      const missing = await h.request('POST', '/api/v2/webhooks/whk_nope/test', {
        bearer: t.adminToken,
        body: { event_type: 'ticket.created' },
      });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ detail: 'Webhook not found' });
      await h.request('PATCH', `/api/v2/webhooks/${sub.id}`, {
        bearer: t.adminToken,
        body: { is_active: false },
      });
      const inactive = await post({ event_type: 'ticket.created' });
      expect(inactive.status).toBe(409);
      expect(inactive.body).toEqual({ detail: 'Webhook is inactive' });
      expect(await logOf(sub.id)).toHaveLength(0);
    });

    it('rotates the secret: shown once, audited, later deliveries signed with it', async () => {
      const sub = await subscribe(['ticket.created']);
      const res = await h.request('POST', `/api/v2/webhooks/${sub.id}/rotate-secret`, {
        bearer: t.adminToken,
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['secret']);
      expect(res.body.secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
      expect(res.body.secret).not.toBe(sub.secret);
      const secret = res.body.secret as string;

      const sent = await h.request('POST', `/api/v2/webhooks/${sub.id}/test`, {
        bearer: t.adminToken,
        body: { event_type: 'ticket.created' },
      });
      expect(sent.status).toBe(202);
      await h.runtime.webhooks.settle();
      const [req] = rx.received(sub.path);
      const ts = req!.headers['x-webhook-timestamp']!;
      expect(req!.headers['x-webhook-signature']).toBe(signature(secret, ts, req!.body));
      expect(req!.headers['x-webhook-signature']).not.toBe(signature(sub.secret, ts, req!.body));

      // never shown again
      const read = await h.request('GET', `/api/v1/webhooks/${sub.id}`, { apiKey: key });
      expect(read.text).not.toContain(secret);
      const audit = await h.db
        .selectFrom('audit_log')
        .select(['action', 'metadata'])
        .where('target_id', '=', sub.id)
        .orderBy('created_at')
        .execute();
      expect(audit.map((a) => a.action)).toEqual(['webhook.created', 'webhook.secret_rotated']);
      expect(JSON.stringify(audit)).not.toContain(secret);

      expect(
        (
          await h.request('POST', `/api/v2/webhooks/${sub.id}/rotate-secret`, {
            bearer: await t.token('agent'),
          })
        ).status,
      ).toBe(403);
      expect(
        (await h.request('POST', `/api/v2/webhooks/${sub.id}/rotate-secret`, { apiKey: key })).status,
      ).toBe(403);
      const missing = await h.request('POST', '/api/v2/webhooks/whk_nope/rotate-secret', {
        bearer: t.adminToken,
      });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ detail: 'Webhook not found' });
    });

    it('keeps a description (<= 500 characters) from create and PATCH, returned by every read', async () => {
      const sub = await subscribe(['ticket.created'], { description: 'Billing sync' });
      expect(sub.created.description).toBe('Billing sync');
      const one = await h.request('GET', `/api/v1/webhooks/${sub.id}`, { apiKey: key });
      expect(one.body.description).toBe('Billing sync');
      const list = await h.request('GET', '/api/v1/webhooks', { apiKey: key });
      expect(list.body.webhooks.find((w: any) => w.id === sub.id).description).toBe('Billing sync');
      expect((await subscribe(['ticket.created'])).created.description).toBeNull();

      const path = `/api/v2/webhooks/${sub.id}`;
      const patched = await h.request('PATCH', path, { bearer: t.adminToken, body: { description: 'CRM' } });
      expect(patched.status).toBe(200);
      expect(patched.body.description).toBe('CRM');
      const long = await h.request('PATCH', path, {
        bearer: t.adminToken,
        body: { description: 'x'.repeat(501) },
      });
      expect(long.status).toBe(422);
      const tooLong = await h.request('POST', '/api/v1/webhooks', {
        apiKey: key,
        body: { url: rx.url('/long'), events: ['*'], description: 'x'.repeat(501) },
      });
      expect(tooLong.status).toBe(422);
      const cleared = await h.request('PATCH', path, { bearer: t.adminToken, body: { description: null } });
      expect(cleared.body.description).toBeNull();
      expect(
        (await h.request('GET', `/api/v1/webhooks/${sub.id}`, { apiKey: key })).body.description,
      ).toBeNull();
    });
  },
);
