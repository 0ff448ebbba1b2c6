import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type HttpsReceiver,
  startHttpsReceiver,
  trustTestCertificate,
} from '../../scripts/lib/https-receiver';
import { emitEvent } from '../../shared/events/emit';
import { releaseClaims } from '../../shared/webhooks/delivery';
import { createDeliveryWorker } from '../../shared/webhooks/worker';
import { servedTicket } from '../support/events';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

trustTestCertificate();

// The embedded worker claims attempts ahead of its free slots (shared/webhooks/worker.ts, CLAIM_AHEAD),
// so a slot freed while the next claim is in flight starts at once. Claims it does not start are given
// back when it stops: due again at once for any process, not when their lease runs out.
describe.skipIf(postgresUnavailable())(
  'claiming attempts ahead of the free slots',
  { timeout: 60_000 },
  () => {
    let h: Harness;
    let rx: HttpsReceiver;
    let t: TestTenant;

    beforeAll(async () => {
      rx = await startHttpsReceiver({ slowMs: 800 });
      h = await startHarness({ WEBHOOK_SSRF_ALLOW: 'localhost', WEBHOOK_TIMEOUT_MS: '5000' });
      await h.runtime.webhooks.stop(); // this test runs its own worker
      t = await h.tenant();
    }, 120_000);
    afterAll(async () => {
      await h?.close();
      await rx?.close();
    }, 60_000);

    const claims = () =>
      h.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'claim_token', 'attempts', 'status'])
        .where('tenant_id', '=', t.id)
        .execute();

    it('holds its slots plus the claimed-ahead attempts, sends only as many as it has slots, and gives the rest back on stop', async () => {
      const key = await t.key(['webhooks:write']);
      const hook = await h.request('POST', '/api/v1/webhooks', {
        apiKey: key,
        body: { url: rx.url('/slow'), events: ['ticket.created'] },
      });
      expect(hook.status).toBe(201);
      rx.plan('/slow', [], 'slow');
      for (let i = 0; i < 12; i++)
        await emitEvent(h.db, t.id, 'ticket.created', {
          ticket: servedTicket(`tkt_${i}`, { subject: 's', priority: 'low' }),
        });

      const worker = createDeliveryWorker(
        { db: h.db, config: h.config, port: h.runtime.services.webhooks!, logger: h.runtime.services.logger },
        { concurrency: 2 },
      );
      worker.start();
      const deadline = Date.now() + 10_000;
      while (worker.inFlight < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(worker.inFlight).toBe(2);
      // 2 in flight + 2 × 2 claimed ahead
      expect((await claims()).filter((r) => r.claim_token !== null)).toHaveLength(6);

      await worker.stop(); // waits for the two slow attempts, gives back the four it did not start
      const rows = await claims();
      expect(rows).toHaveLength(12);
      expect(rows.filter((r) => r.claim_token !== null)).toEqual([]);
      expect(rows.filter((r) => r.attempts === 1 && r.status === 'delivered')).toHaveLength(2);
      expect(rows.filter((r) => r.attempts === 0 && r.status === 'pending')).toHaveLength(10);
      expect(rx.received('/slow')).toHaveLength(2);
    });

    it('gives back only a claim still held with its own token', async () => {
      const [row] = await h.db
        .selectFrom('webhook_deliveries')
        .select(['id'])
        .where('tenant_id', '=', t.id)
        .where('status', '=', 'pending')
        .limit(1)
        .execute();
      await h.db
        .updateTable('webhook_deliveries')
        .set({ claim_token: 'theirs', claimed_until: new Date(Date.now() + 60_000) })
        .where('id', '=', row!.id)
        .execute();
      await releaseClaims(h.db, [{ id: row!.id, claim_token: 'mine' }]);
      const still = await h.db
        .selectFrom('webhook_deliveries')
        .select(['claim_token'])
        .where('id', '=', row!.id)
        .executeTakeFirstOrThrow();
      expect(still.claim_token).toBe('theirs');
      await releaseClaims(h.db, [{ id: row!.id, claim_token: 'theirs' }]);
      const released = await h.db
        .selectFrom('webhook_deliveries')
        .select(['claim_token', 'claimed_until'])
        .where('id', '=', row!.id)
        .executeTakeFirstOrThrow();
      expect(released).toEqual({ claim_token: null, claimed_until: null });
    });
  },
);

// A claimed-ahead attempt starts only while its lease still covers a whole attempt: one that waited
// longer behind a hanging receiver is given back and claimed afresh, never sent on its old claim
// (which another process could take over mid-attempt).
describe.skipIf(postgresUnavailable())('a claimed attempt that waited too long', { timeout: 60_000 }, () => {
  let h: Harness;
  let rx: HttpsReceiver;
  let t: TestTenant;

  beforeAll(async () => {
    rx = await startHttpsReceiver();
    // lease = 5 s + 5 s; a claimed attempt may wait at most 10 - 5 - 1 = 4 s for its slot
    h = await startHarness({ WEBHOOK_SSRF_ALLOW: 'localhost', WEBHOOK_TIMEOUT_MS: '5000' });
    await h.runtime.webhooks.stop();
    t = await h.tenant();
  }, 120_000);
  afterAll(async () => {
    await rx?.close();
    await h?.close();
  }, 60_000);

  it('is given back and claimed afresh instead of being sent on its old claim', async () => {
    const key = await t.key(['webhooks:write']);
    const hook = await h.request('POST', '/api/v1/webhooks', {
      apiKey: key,
      body: { url: rx.url('/hang'), events: ['ticket.created'] },
    });
    expect(hook.status).toBe(201);
    rx.plan('/hang', [], 'timeout'); // every request hangs until the sender gives up (5 s)
    for (let i = 0; i < 3; i++)
      await emitEvent(h.db, t.id, 'ticket.created', {
        ticket: servedTicket(`tkt_${i}`, { subject: 's', priority: 'low' }),
      });
    const worker = createDeliveryWorker(
      { db: h.db, config: h.config, port: h.runtime.services.webhooks!, logger: h.runtime.services.logger },
      { concurrency: 1 },
    );
    const tokens = async () =>
      new Map(
        (
          await h.db
            .selectFrom('webhook_deliveries')
            .select(['id', 'claim_token', 'attempts'])
            .where('tenant_id', '=', t.id)
            .execute()
        ).map((r) => [r.id, r]),
      );
    try {
      worker.start();
      const deadline = Date.now() + 10_000;
      while (rx.received('/hang').length < 1 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      const first = await tokens();
      // one sending, two claimed ahead with the same claim
      expect([...first.values()].filter((r) => r.claim_token !== null)).toHaveLength(3);
      const [sending] = rx.received('/hang').map((q) => q.headers['x-webhook-delivery-id']);
      const waiting = [...first.keys()].filter((id) => id !== sending);

      // the first attempt times out at 5 s: the two waiting claims are 5 s old by then (> 4 s)
      await new Promise((r) => setTimeout(r, 6_000));
      const later = await tokens();
      expect(later.get(sending!)!.attempts).toBe(1);
      for (const id of waiting) expect(later.get(id)!.claim_token).not.toBe(first.get(id)!.claim_token);
    } finally {
      await rx.close(); // ends the hanging request, so stop() need not wait out its timeout
      await worker.stop();
    }
  });
});
