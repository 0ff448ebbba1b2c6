import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type HttpsReceiver,
  startHttpsReceiver,
  trustTestCertificate,
} from '../../scripts/lib/https-receiver';
import type { EventType } from '../../shared/events/catalog';
import { emitEvent } from '../../shared/events/emit';
import type { EventDataMap } from '../../shared/events/payloads';
import type { MemoryRateLimiter } from '../../shared/ratelimit/limiter';
import { servedTicket } from '../support/events';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

trustTestCertificate();

// independent of the product's signer
const expectedSignature = (secret: string, ts: string, body: string) =>
  createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');

const ticket = (id: string) => ({
  ticket: servedTicket(id, { subject: `Subject ${id}`, priority: 'high' }),
});

describe.skipIf(postgresUnavailable())(
  'webhook delivery to a real HTTPS receiver',
  { timeout: 60_000 },
  () => {
    let h: Harness;
    let rx: HttpsReceiver;
    let t: TestTenant;
    let key: string;
    let n = 0;

    beforeAll(async () => {
      rx = await startHttpsReceiver({ slowMs: 60 });
      h = await startHarness({ WEBHOOK_SSRF_ALLOW: 'localhost', WEBHOOK_TIMEOUT_MS: '1500' });
      t = await h.tenant();
      key = await t.key(['webhooks:read', 'webhooks:write', 'webhooks:delete']);
    }, 120_000);
    afterAll(async () => {
      await h?.close();
      await rx?.close();
    }, 60_000);

    /** a subscription on its own receiver path */
    async function subscribe(events: string[], tenantKey = key) {
      const path = `/hook-${++n}`;
      const res = await h.request('POST', '/api/v1/webhooks', {
        apiKey: tenantKey,
        body: { url: rx.url(path), events },
      });
      expect(res.status).toBe(201);
      return { id: res.body.id as string, secret: res.body.secret as string, path };
    }

    /** an action's event: written to the outbox, then the dispatcher is kicked (as handlers do) */
    async function emit<T extends EventType>(type: T, data: EventDataMap[T], tenantId = t.id) {
      await emitEvent(h.db, tenantId, type, data);
      h.runtime.services.events.kick();
    }

    const log = async (id: string, query = '') => {
      const res = await h.request('GET', `/api/v1/webhooks/${id}/deliveries${query}`, { apiKey: key });
      expect(res.status).toBe(200);
      return res.body.deliveries as any[];
    };

    it('delivers a signed envelope with the spec headers, and logs it', async () => {
      const sub = await subscribe(['ticket.created']);
      await emit('ticket.created', ticket('tkt_1'));
      await h.runtime.webhooks.settle();

      const got = rx.received(sub.path);
      expect(got).toHaveLength(1);
      const req = got[0]!;
      expect(req.method).toBe('POST');
      expect(req.headers['content-type']).toBe('application/json');
      const body = JSON.parse(req.body);
      expect(Object.keys(body)).toEqual(['event_type', 'timestamp', 'data']);
      expect(body.event_type).toBe('ticket.created');
      expect(body.data).toEqual(ticket('tkt_1'));
      expect(body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(req.headers['x-webhook-event']).toBe('ticket.created');
      const ts = req.headers['x-webhook-timestamp']!;
      expect(ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(req.headers['x-webhook-signature']).toMatch(/^[0-9a-f]{64}$/);
      expect(req.headers['x-webhook-signature']).toBe(expectedSignature(sub.secret, ts, req.body));
      expect(req.headers['x-webhook-signature']).not.toBe(expectedSignature('whsec_wrong', ts, req.body));

      const entries = await log(sub.id);
      expect(entries).toHaveLength(1);
      const e = entries[0];
      expect(Object.keys(e).sort()).toEqual(
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
      expect(e).toMatchObject({
        event_type: 'ticket.created',
        status: 'delivered',
        attempts: 1,
        response_status: 200,
        next_attempt_at: null,
        error: null,
      });
      expect(e.duration_ms).toEqual(expect.any(Number));
      expect(req.headers['x-webhook-delivery-id']).toBe(e.id);
      expect(JSON.stringify(entries)).not.toContain('Subject tkt_1'); // no payload in the log
    });

    it('fans out one delivery per active matching subscription; * matches all; later and inactive ones get none', async () => {
      const calls = await subscribe(['call.started']);
      const all = await subscribe(['*']);
      const paused = await subscribe(['call.started']);
      const patch = await h.request('PATCH', `/api/v2/webhooks/${paused.id}`, {
        bearer: t.adminToken,
        body: { is_active: false },
      });
      expect(patch.status).toBe(200);
      const started = {
        call: {
          id: 'call_1',
          tenant_id: t.id,
          started_at: new Date().toISOString(),
          direction: 'inbound',
          channel: 'phone',
        },
      };
      await emit('call.started', started);
      await emit('ticket.created', ticket('tkt_2'));
      await h.runtime.webhooks.settle();
      const later = await subscribe(['*']); // created after both events
      await h.runtime.webhooks.settle();

      expect(rx.received(calls.path).map((r) => r.headers['x-webhook-event'])).toEqual(['call.started']);
      expect(
        rx
          .received(all.path)
          .map((r) => r.headers['x-webhook-event'])
          .sort(),
      ).toEqual(['call.started', 'ticket.created']);
      expect(rx.received(paused.path)).toHaveLength(0);
      expect(rx.received(later.path)).toHaveLength(0);
      expect(await log(paused.id)).toEqual([]);

      // another tenant's events never reach this tenant's subscriptions
      const other = await h.tenant({ name: 'Other' });
      await emit('ticket.created', ticket('tkt_other'), other.id);
      await h.runtime.webhooks.settle();
      expect(rx.received(all.path)).toHaveLength(2);
    });

    it('retries a failing receiver with the same delivery id, fresh signature each time, until it answers 2xx', async () => {
      const sub = await subscribe(['ticket.created']);
      rx.plan(sub.path, ['fail', 'fail', 'success']);
      await emit('ticket.created', ticket('tkt_3'));
      await h.runtime.webhooks.settle();

      const got = rx.received(sub.path);
      expect(got.map((r) => r.answered)).toEqual(['fail', 'fail', 'success']);
      const ids = new Set(got.map((r) => r.headers['x-webhook-delivery-id']));
      expect(ids.size).toBe(1);
      for (const r of got) {
        expect(r.headers['x-webhook-signature']).toBe(
          expectedSignature(sub.secret, r.headers['x-webhook-timestamp']!, r.body),
        );
        expect(JSON.parse(r.body).data).toEqual(ticket('tkt_3'));
      }
      // never early: attempt 2 waits >= 2 units, attempt 3 >= 4 units after attempt 2
      const unit = h.config.WEBHOOK_RETRY_UNIT_MS;
      expect(got[1]!.receivedAt - got[0]!.receivedAt).toBeGreaterThanOrEqual(2 * unit);
      expect(got[2]!.receivedAt - got[1]!.receivedAt).toBeGreaterThanOrEqual(4 * unit);

      const [entry] = await log(sub.id);
      expect(entry).toMatchObject({
        status: 'delivered',
        attempts: 3,
        response_status: 200,
        error: null,
        next_attempt_at: null,
      });
    });

    it("keeps every attempt's outcome: GET …/deliveries/{delivery_id} with its history, oldest first", async () => {
      const sub = await subscribe(['ticket.created']);
      rx.plan(sub.path, ['fail', 'timeout', 503, 'slow']);
      await emit('ticket.created', ticket('tkt_h'));
      await h.runtime.webhooks.settle();
      const [entry] = await log(sub.id);
      const res = await h.request('GET', `/api/v1/webhooks/${sub.id}/deliveries/${entry.id}`, {
        apiKey: key,
      });
      expect(res.status).toBe(200);
      // the log's entry, plus the history
      expect(res.body).toMatchObject({ ...entry, status: 'delivered', attempts: 4 });
      const history = res.body.history as any[];
      expect(history.map((a) => [a.attempt, a.response_status, a.error])).toEqual([
        [1, 500, 'HTTP 500'],
        [2, null, 'Timed out after 1500 ms'],
        [3, 503, 'HTTP 503'],
        [4, 200, null],
      ]);
      // each attempt's own time and duration, as the receiver saw them
      const received = rx.received(sub.path);
      for (let i = 0; i < history.length; i++) {
        const ended = Date.parse(history[i].attempted_at);
        expect(ended).toBeGreaterThanOrEqual(received[i]!.receivedAt - 5);
        if (i > 0) expect(ended).toBeGreaterThan(Date.parse(history[i - 1].attempted_at));
      }
      expect(history[1].duration_ms).toBeGreaterThanOrEqual(1400); // the timeout
      expect(history[3].duration_ms).toBeGreaterThanOrEqual(60); // the slow answer
      expect(history[3].attempted_at).toBe(entry.last_attempt_at);

      // a redelivery is a new delivery with its own history; the original's stays as it was
      const again = await h.request('POST', `/api/v1/webhooks/${sub.id}/deliveries/${entry.id}/redeliver`, {
        apiKey: key,
      });
      expect(again.status).toBe(202);
      await h.runtime.webhooks.settle();
      const redelivered = await h.request('GET', `/api/v1/webhooks/${sub.id}/deliveries/${again.body.id}`, {
        apiKey: key,
      });
      expect(redelivered.body.history.map((a: any) => [a.attempt, a.response_status])).toEqual([[1, 200]]);
      const original = await h.request('GET', `/api/v1/webhooks/${sub.id}/deliveries/${entry.id}`, {
        apiKey: key,
      });
      expect(original.body.history).toHaveLength(4);

      // unknown, or another webhook's: 404; a key without webhooks:read: 403
      const other = await subscribe(['ticket.created']);
      for (const path of [
        `/api/v1/webhooks/${sub.id}/deliveries/dlv_nope`,
        `/api/v1/webhooks/${other.id}/deliveries/${entry.id}`,
      ]) {
        const r = await h.request('GET', path, { apiKey: key });
        expect(r.status).toBe(404);
        expect(r.body).toEqual({ detail: expect.stringMatching(/^(Delivery|Webhook) not found$/) });
      }
      const writeOnly = await t.key(['tickets:read']);
      const refused = await h.request('GET', `/api/v1/webhooks/${sub.id}/deliveries/${entry.id}`, {
        apiKey: writeOnly,
      });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: 'API key missing required scope: webhooks:read' });
    });

    it('gives up after 5 attempts: failed, with the last status and error', async () => {
      const sub = await subscribe(['ticket.created']);
      rx.plan(sub.path, [], 'fail');
      await emit('ticket.created', ticket('tkt_4'));
      await h.runtime.webhooks.settle();
      expect(rx.received(sub.path)).toHaveLength(5);
      const [entry] = await log(sub.id);
      expect(entry).toMatchObject({
        status: 'failed',
        attempts: 5,
        response_status: 500,
        error: 'HTTP 500',
        next_attempt_at: null,
      });
      expect(entry.last_attempt_at).toEqual(expect.any(String));
    });

    it('counts a timeout as a failed attempt (no status), then delivers', async () => {
      const sub = await subscribe(['ticket.created']);
      rx.plan(sub.path, ['timeout', 'slow']);
      await emit('ticket.created', ticket('tkt_5'));
      await h.runtime.webhooks.settle();
      expect(rx.received(sub.path).map((r) => r.answered)).toEqual(['timeout', 'slow']);
      const [entry] = await log(sub.id);
      expect(entry).toMatchObject({ status: 'delivered', attempts: 2, response_status: 200, error: null });
      expect(entry.duration_ms).toBeGreaterThanOrEqual(60); // the slow answer

      const only = await subscribe(['ticket.created']);
      rx.plan(only.path, ['timeout'], 'success');
      await h.db.updateTable('webhooks').set({ is_active: false }).where('id', '=', sub.id).execute();
      await emit('ticket.created', ticket('tkt_5b'));
      // observe the state after the first attempt: pending, no status, the timeout error
      for (;;) {
        const [e] = await log(only.id);
        if (e?.attempts === 1 || e?.status === 'delivered') {
          if (e.attempts === 1 && e.status === 'pending') {
            expect(e).toMatchObject({ response_status: null, error: 'Timed out after 1500 ms' });
            expect(e.next_attempt_at).toEqual(expect.any(String));
          }
          break;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      await h.runtime.webhooks.settle();
      expect((await log(only.id))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
    });

    it('does not follow redirects: a 3xx is a failed attempt', async () => {
      const sub = await subscribe(['ticket.created']);
      rx.plan(sub.path, ['redirect'], 'success');
      await emit('ticket.created', ticket('tkt_6'));
      await h.runtime.webhooks.settle();
      expect(rx.received('/elsewhere')).toHaveLength(0);
      expect(rx.received(sub.path).map((r) => r.answered)).toEqual(['redirect', 'success']);
      const [entry] = await log(sub.id);
      expect(entry).toMatchObject({ status: 'delivered', attempts: 2 });
    });

    it('re-checks the destination before every attempt (DNS rebinding gets nothing)', async () => {
      const port = h.runtime.services.webhooks!;
      const original = port.resolveHost;
      let phase: 'create' | 'deliver' = 'create';
      port.resolveHost = async (host) =>
        host === 'rebind.test' ? (phase === 'create' ? ['93.184.216.34'] : ['127.0.0.1']) : original(host);
      try {
        const res = await h.request('POST', '/api/v1/webhooks', {
          apiKey: key,
          body: { url: `https://rebind.test:${rx.port}/rebind`, events: ['ticket.created'] },
        });
        expect(res.status).toBe(201);
        phase = 'deliver';
        await emit('ticket.created', ticket('tkt_7'));
        await h.runtime.webhooks.settle();
        expect(rx.received('/rebind')).toHaveLength(0);
        const [entry] = await log(res.body.id);
        expect(entry).toMatchObject({
          status: 'failed',
          attempts: 5,
          response_status: null,
          error: 'Destination refused: Webhook URL host resolves to a private or reserved address',
        });
      } finally {
        port.resolveHost = original;
      }
    });

    it('lists the log most recent first, honouring limit', async () => {
      const sub = await subscribe(['ticket.created']);
      for (let i = 0; i < 4; i++) await emit('ticket.created', ticket(`tkt_l${i}`));
      await h.runtime.webhooks.settle();
      const entries = await log(sub.id);
      expect(entries).toHaveLength(4);
      const created = entries.map((e) => Date.parse(e.created_at));
      expect([...created].sort((a, b) => b - a)).toEqual(created);
      expect(await log(sub.id, '?limit=2')).toEqual(entries.slice(0, 2));
      // every event arrived; no delivery was sent more often than its log says (an attempt that timed
      // out before its request reached the receiver, on a loaded machine, is logged and never seen)
      const got = rx.received(sub.path);
      expect([...new Set(got.map((r) => JSON.parse(r.body).data.ticket.id))].sort()).toEqual([
        'tkt_l0',
        'tkt_l1',
        'tkt_l2',
        'tkt_l3',
      ]);
      for (const e of entries) {
        expect(e.status).toBe('delivered');
        const seen = got.filter((r) => r.headers['x-webhook-delivery-id'] === e.id).length;
        expect(seen).toBeGreaterThanOrEqual(1);
        expect(seen).toBeLessThanOrEqual(e.attempts);
      }
    });

    it('deleting a subscription stops its pending retries and keeps nothing sendable', async () => {
      const sub = await subscribe(['ticket.created']);
      rx.plan(sub.path, [], 'fail');
      await emit('ticket.created', ticket('tkt_8'));
      for (;;) {
        if (rx.received(sub.path).length >= 1) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      const del = await h.request('DELETE', `/api/v1/webhooks/${sub.id}`, { apiKey: key });
      expect(del.status).toBe(204);
      await h.runtime.webhooks.settle();
      const row = await h.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'error', 'attempts'])
        .where('webhook_id', '=', sub.id)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('failed');
      expect(row.error).toBe('Webhook deleted');
      expect(rx.received(sub.path).length).toBe(row.attempts);
      expect(row.attempts).toBeLessThan(5);
    });

    it('redelivers a delivered delivery as a new delivery with a fresh signature', async () => {
      const sub = await subscribe(['ticket.created']);
      await emit('ticket.created', ticket('tkt_9'));
      await h.runtime.webhooks.settle();
      const [first] = await log(sub.id);
      expect(first.status).toBe('delivered');

      const res = await h.request('POST', `/api/v1/webhooks/${sub.id}/deliveries/${first.id}/redeliver`, {
        apiKey: key,
      });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'pending', attempts: 0, event_type: 'ticket.created' });
      expect(res.body.id).not.toBe(first.id);
      await h.runtime.webhooks.settle();

      const got = rx.received(sub.path);
      expect(got).toHaveLength(2);
      expect(got.map((r) => r.headers['x-webhook-delivery-id'])).toEqual([first.id, res.body.id]);
      expect(JSON.parse(got[1]!.body)).toEqual(JSON.parse(got[0]!.body)); // same envelope
      expect(got[1]!.headers['x-webhook-timestamp']).not.toBe(got[0]!.headers['x-webhook-timestamp']);
      expect(got[1]!.headers['x-webhook-signature']).toBe(
        expectedSignature(sub.secret, got[1]!.headers['x-webhook-timestamp']!, got[1]!.body),
      );
      const entries = await log(sub.id);
      expect(entries.map((e) => e.id)).toEqual([res.body.id, first.id]);
      expect(entries[0]).toMatchObject({ status: 'delivered', attempts: 1 });

      const unknown = await h.request('POST', `/api/v1/webhooks/${sub.id}/deliveries/dlv_nope/redeliver`, {
        apiKey: key,
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ detail: 'Delivery not found' });
      const other = await h.tenant({ name: 'Other2' });
      const otherKey = await other.key(['webhooks:write']);
      const foreign = await h.request('POST', `/api/v1/webhooks/${sub.id}/deliveries/${first.id}/redeliver`, {
        apiKey: otherKey,
      });
      expect(foreign.status).toBe(404);
      const readOnly = await t.key(['webhooks:read']);
      const scoped = await h.request('POST', `/api/v1/webhooks/${sub.id}/deliveries/${first.id}/redeliver`, {
        apiKey: readOnly,
      });
      expect(scoped.status).toBe(403);
      expect(scoped.body).toEqual({ detail: 'API key missing required scope: webhooks:write' });
    });

    it('recover re-sends every failed delivery since a time, once', async () => {
      const sub = await subscribe(['ticket.created']);
      const since = new Date(Date.now() - 1000).toISOString();
      rx.plan(sub.path, [], 'fail');
      await emit('ticket.created', ticket('tkt_r1'));
      await emit('ticket.created', ticket('tkt_r2'));
      await h.runtime.webhooks.settle();
      expect((await log(sub.id)).map((e) => e.status)).toEqual(['failed', 'failed']);

      rx.plan(sub.path, [], 'success');
      const res = await h.request('POST', `/api/v1/webhooks/${sub.id}/recover`, {
        apiKey: key,
        body: { since },
      });
      expect(res.status).toBe(202);
      expect(res.body.deliveries).toHaveLength(2);
      await h.runtime.webhooks.settle();
      const entries = await log(sub.id);
      expect(entries.map((e) => e.status).sort()).toEqual(['delivered', 'delivered', 'failed', 'failed']);
      const delivered = rx.received(sub.path).filter((r) => r.answered === 'success');
      expect(delivered.map((r) => JSON.parse(r.body).data.ticket.id).sort()).toEqual(['tkt_r1', 'tkt_r2']);

      // one recover a minute per endpoint: the next one is a minute later
      const limiter = h.runtime.services.rateLimiter as MemoryRateLimiter;
      const clock = limiter.now;
      limiter.now = () => clock() + 60_000;
      const again = await h.request('POST', `/api/v1/webhooks/${sub.id}/recover`, {
        apiKey: key,
        body: { since },
      });
      limiter.now = clock;
      expect(again.status).toBe(202);
      expect(again.body.deliveries).toEqual([]);
      const future = await h.request('POST', `/api/v1/webhooks/${sub.id}/recover`, {
        apiKey: key,
        body: { since: 'yesterday' },
      });
      expect(future.status).toBe(422);
    });
  },
);

// The retry schedule as the worker keeps it, with a unit long enough (200 ms) that the worker's own
// delays cannot hide a shorter backoff: attempt n+1 reaches the receiver no sooner than 2^n units
// after attempt n ended (its recorded attempted_at).
describe.skipIf(postgresUnavailable())('webhook retries wait their schedule', { timeout: 60_000 }, () => {
  let h: Harness;
  let rx: HttpsReceiver;

  beforeAll(async () => {
    rx = await startHttpsReceiver();
    h = await startHarness({
      WEBHOOK_SSRF_ALLOW: 'localhost',
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_RETRY_UNIT_MS: '200',
    });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  }, 60_000);

  it('attempt n+1 comes 2^n units after attempt n, never sooner', async () => {
    const t = await h.tenant();
    const key = await t.key(['webhooks:read', 'webhooks:write']);
    const hook = await h.request('POST', '/api/v1/webhooks', {
      apiKey: key,
      body: { url: rx.url('/schedule'), events: ['ticket.created'] },
    });
    expect(hook.status).toBe(201);
    rx.plan('/schedule', ['fail', 'fail', 'success']);
    await emitEvent(h.db, t.id, 'ticket.created', ticket('tkt_schedule'));
    h.runtime.services.events.kick();
    await h.runtime.webhooks.settle();
    const list = await h.request('GET', `/api/v1/webhooks/${hook.body.id}/deliveries`, { apiKey: key });
    const [entry] = list.body.deliveries as { id: string }[];
    const detail = await h.request('GET', `/api/v1/webhooks/${hook.body.id}/deliveries/${entry!.id}`, {
      apiKey: key,
    });
    const history = detail.body.history as { attempt: number; attempted_at: string }[];
    expect(history.map((a) => a.attempt)).toEqual([1, 2, 3]);
    const received = rx.received('/schedule');
    expect(received).toHaveLength(3);
    const unit = h.config.WEBHOOK_RETRY_UNIT_MS;
    for (let n = 1; n < 3; n++) {
      const wait = received[n]!.receivedAt - Date.parse(history[n - 1]!.attempted_at);
      // the spec's policy written out, not retryDelayMs (a change there must not move the bar);
      // 1 ms: attempted_at is kept to the millisecond
      expect(wait, `attempt ${n + 1} waited ${wait} ms`).toBeGreaterThanOrEqual(2 ** n * unit - 1);
    }
  });
});
