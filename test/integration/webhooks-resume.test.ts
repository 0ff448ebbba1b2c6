import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedRuntime } from '../../scripts/embedded';
import {
  type HttpsReceiver,
  startHttpsReceiver,
  trustTestCertificate,
} from '../../scripts/lib/https-receiver';
import { emitEvent } from '../../shared/events/emit';
import { claimAttempt, claimDue, dispatchEvents } from '../../shared/webhooks/delivery';
import { servedTicket } from '../support/events';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

trustTestCertificate();

const ticket = (id: string) => ({ ticket: servedTicket(id, { subject: 's', priority: 'low' }) });

describe.skipIf(postgresUnavailable())(
  'crash and resume; two processes on one database',
  { timeout: 90_000 },
  () => {
    let h: Harness;
    let rx: HttpsReceiver;
    let t: TestTenant;
    let key: string;

    beforeAll(async () => {
      rx = await startHttpsReceiver();
      // no receiver here hangs, so a timeout can only be the machine's load: an attempt that timed
      // out after the receiver had answered is sent again (at-least-once), which the exact counts
      // below would take for a duplicate. A timeout far above any answer keeps them exact.
      h = await startHarness({ WEBHOOK_SSRF_ALLOW: 'localhost', WEBHOOK_TIMEOUT_MS: '20000' });
      t = await h.tenant();
      key = await t.key(['webhooks:write', 'webhooks:read']);
      // process A "dies": its dispatcher stops, leaving whatever it had not finished
      await h.runtime.webhooks.stop();
    }, 120_000);
    afterAll(async () => {
      await h?.close();
      await rx?.close();
    }, 60_000);

    const subscribe = async (path: string, events: string[]) => {
      const res = await h.request('POST', '/api/v1/webhooks', {
        apiKey: key,
        body: { url: rx.url(path), events },
      });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };

    it('resumes every unfinished fan-out and attempt after restart, sending each attempt once', async () => {
      const all = await subscribe('/all', ['*']);
      const flaky = await subscribe('/flaky', ['ticket.created']);
      rx.plan('/flaky', ['fail', 'fail'], 'success');

      // 30 actions committed their events, but the fan-out never ran (crash right after commit)
      for (let i = 0; i < 30; i++) await emitEvent(h.db, t.id, 'ticket.created', ticket(`tkt_${i}`));
      // ...and the dead process had fanned out 10 of them and claimed 6 attempts it never sent
      expect(await dispatchEvents(h.db, 10)).toEqual({ events: 10, deliveries: 20, more: true });
      const held = await claimDue(h.db, 6, 60_000);
      expect(held).toHaveLength(6);
      // while its lease runs, nobody else may take those attempts
      expect((await claimDue(h.db, 100, 60_000)).map((r) => r.id)).not.toEqual(
        expect.arrayContaining([held[0]!.id]),
      );
      const probe = await claimAttempt(h.db, held[0]!.id, 1, 60_000);
      expect(probe).toMatchObject({ claimed: null, reason: 'held' });
      // put back what the probe just claimed, then let the dead process's lease run out
      await h.db.updateTable('webhook_deliveries').set({ claimed_until: null, claim_token: null }).execute();
      await h.db
        .updateTable('webhook_deliveries')
        .set({ claimed_until: new Date(Date.now() - 1000), claim_token: 'dead-process' })
        .where(
          'id',
          'in',
          held.map((r) => r.id),
        )
        .execute();

      // restart: two processes on the same database
      const b = await createEmbeddedRuntime({ config: h.config, handle: h.runtime.handle });
      const c = await createEmbeddedRuntime({ config: h.config, handle: h.runtime.handle });
      try {
        await Promise.all([
          b.webhooks.settle({ timeoutMs: 60_000 }),
          c.webhooks.settle({ timeoutMs: 60_000 }),
        ]);
      } finally {
        await b.close();
        await c.close();
      }

      const rows = await h.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'webhook_id', 'status', 'attempts', 'payload'])
        .execute();
      expect(rows).toHaveLength(60);
      expect(rows.filter((r) => r.webhook_id === all)).toHaveLength(30);
      expect(rows.every((r) => r.status === 'delivered')).toBe(true);
      // each attempt sent at most once: the receiver saw no more requests than attempts were recorded,
      // and every attempt that got an answer reached it (an attempt that failed on the network, a
      // reused connection the receiver had just closed say, is recorded without reaching it)
      const history = await h.db
        .selectFrom('webhook_delivery_attempts')
        .select(['delivery_id', 'attempt', 'response_status', 'error'])
        .execute();
      for (const r of rows) {
        const sent = rx.requests.filter((q) => q.headers['x-webhook-delivery-id'] === r.id);
        const mine = history.filter((a) => a.delivery_id === r.id);
        expect(mine.map((a) => a.attempt).sort(), r.id).toEqual(
          Array.from({ length: r.attempts }, (_, i) => i + 1),
        );
        const answered = mine.filter((a) => a.response_status !== null).length;
        expect(sent.length, `${r.id}: ${JSON.stringify(mine)}`).toBeLessThanOrEqual(r.attempts);
        expect(sent.length, `${r.id}: ${JSON.stringify(mine)}`).toBeGreaterThanOrEqual(answered);
      }
      // each event reached each subscription exactly once (successfully)
      for (const path of ['/all', '/flaky']) {
        const ok = rx.received(path).filter((q) => q.answered === 'success');
        const ids = ok.map((q) => JSON.parse(q.body).data.ticket.id);
        expect(new Set(ids).size).toBe(30);
        expect(ids).toHaveLength(30);
      }
      // /flaky answered two failures, then success for all 30: 32 answered attempts
      const flakyIds = new Set(rows.filter((r) => r.webhook_id === flaky).map((r) => r.id));
      expect(history.filter((a) => flakyIds.has(a.delivery_id) && a.response_status !== null)).toHaveLength(
        32,
      );
      const undispatched = await h.db
        .selectFrom('events')
        .select('id')
        .where('dispatched_at', 'is', null)
        .execute();
      expect(undispatched).toEqual([]);
    });
  },
);
