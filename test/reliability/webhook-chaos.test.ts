/**
 * Fault (i): a receiver that fails, times out or hangs at random, for 1,000 events. Every delivery
 * ends `delivered` or `failed` per the retry policy, none is lost, and no attempt is sent twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Behaviour,
  type HttpsReceiver,
  startHttpsReceiver,
  trustTestCertificate,
} from '../../scripts/lib/https-receiver';
import { emitEvent } from '../../shared/events/emit';
import { servedTicket } from '../support/events';
import { type Harness, startHarness } from '../support/harness';

const EVENTS = Number(process.env.CHAOS_EVENTS ?? 1000);

describe('webhook deliveries under a chaotic receiver', () => {
  let h: Harness;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    trustTestCertificate();
    receiver = await startHttpsReceiver({ slowMs: 20 });
    h = await startHarness({
      WEBHOOK_SSRF_ALLOW: 'localhost',
      WEBHOOK_RETRY_UNIT_MS: '1',
      // long enough for a burst of TLS handshakes on a slow two-core machine (64 new connections
      // took 0.3 s there): at 300 ms, answers that were on their way timed out and the floor below failed
      WEBHOOK_TIMEOUT_MS: '1500',
    });
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.close();
  });

  it(`${EVENTS} events: each delivery delivered or failed, attempts match what was received`, async () => {
    // deterministic pseudo-random answers: mostly success, plenty of 500s, timeouts and hangs
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = (): Behaviour => {
      const r = rand();
      return r < 0.45 ? 'success' : r < 0.7 ? 'fail' : r < 0.8 ? 'timeout' : r < 0.9 ? 'slow' : 503;
    };
    receiver.plan('/chaos', Array.from({ length: EVENTS * 6 }, pick), 'success');

    const t = await h.tenant();
    const key = await t.key(['webhooks:write', 'webhooks:read']);
    const hook = await h.request('POST', '/api/v1/webhooks', {
      apiKey: key,
      body: { url: receiver.url('/chaos'), events: ['ticket.created'] },
    });
    expect(hook.status).toBe(201);
    // each event's own delivery is what this test counts: no probes or recovery re-sends beside them
    await h.db.updateTable('webhooks').set({ auto_recover: false }).where('id', '=', hook.body.id).execute();
    for (let i = 0; i < EVENTS; i++) {
      await emitEvent(h.db, t.id, 'ticket.created', {
        ticket: servedTicket(`tkt_chaos_${i}`, { subject: `chaos ${i}`, priority: 'low' }),
      });
    }
    h.runtime.services.events.kick();
    await h.runtime.webhooks.settle({ timeoutMs: 170_000 });

    const deliveries = await h.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'status', 'attempts', 'response_status', 'error'])
      .where('tenant_id', '=', t.id)
      .execute();
    expect(deliveries).toHaveLength(EVENTS);
    const received = new Map<string, number>();
    for (const r of receiver.received('/chaos')) {
      const id = r.headers['x-webhook-delivery-id'] ?? '';
      received.set(id, (received.get(id) ?? 0) + 1);
    }
    let delivered = 0;
    for (const d of deliveries) {
      expect(['delivered', 'failed']).toContain(d.status);
      expect(d.attempts).toBeGreaterThanOrEqual(1);
      expect(d.attempts).toBeLessThanOrEqual(5);
      if (d.status === 'failed') expect(d.attempts).toBe(5);
      if (d.status === 'delivered') {
        delivered++;
        expect(d.response_status).toBeGreaterThanOrEqual(200);
        expect(d.response_status).toBeLessThan(300);
      }
      // never more requests than recorded attempts: no attempt was sent twice (an attempt that
      // timed out before its body arrived is recorded by us and never seen by the receiver)
      expect(received.get(d.id) ?? 0, `delivery ${d.id}`).toBeLessThanOrEqual(d.attempts);
      if (d.status === 'delivered') expect(received.get(d.id) ?? 0).toBeGreaterThanOrEqual(1);
    }
    const errors = new Map<string, number>();
    for (const d of deliveries)
      if (d.status === 'failed') errors.set(String(d.error), (errors.get(String(d.error)) ?? 0) + 1);
    console.log(`delivered ${delivered}/${EVENTS}; failed by last error:`, Object.fromEntries(errors));
    // how many succeed depends on the random answers and on machine load (timeouts): a sanity floor
    expect(delivered).toBeGreaterThan(EVENTS * 0.5);
    const attempts = deliveries.reduce((n, d) => n + d.attempts, 0);
    const seen = [...received.values()].reduce((n, v) => n + v, 0);
    expect(seen).toBeGreaterThan(attempts * 0.5);
    // every attempt of one delivery carries the same event (same data, same delivery id)
    const dataById = new Map<string, string>();
    for (const r of receiver.received('/chaos')) {
      const id = r.headers['x-webhook-delivery-id'] ?? '';
      const data = JSON.stringify(JSON.parse(r.body).data);
      expect(dataById.get(id) ?? data).toBe(data);
      dataById.set(id, data);
    }
    expect(dataById.size).toBeGreaterThan(EVENTS * 0.5);
  }, 180_000);
});
