import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type HttpsReceiver,
  startHttpsReceiver,
  trustTestCertificate,
} from '../../scripts/lib/https-receiver';
import { emitEvent } from '../../shared/events/emit';
import { createEdgeWebhookKicker } from '../../shared/webhooks/qstash';
import { servedTicket } from '../support/events';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';
import { type QStashMock, signQStashCallback, startQStashMock } from '../support/qstash-mock';

trustTestCertificate();

const BASE = 'https://api.example.test';
const CALLBACK = `${BASE}/api/internal/webhooks/qstash`;

describe.skipIf(postgresUnavailable())(
  'edge path: fan-out in waitUntil, retries on QStash',
  { timeout: 60_000 },
  () => {
    let h: Harness;
    let rx: HttpsReceiver;
    let qstash: QStashMock;

    beforeAll(async () => {
      rx = await startHttpsReceiver();
      // the stand-in delivers each publish when it is due, signed, to the app in-process
      qstash = await startQStashMock({
        currentSigningKey: 'sig_current_key',
        deliver: async (req) =>
          h.runtime.app.request(new URL(req.url).pathname, {
            method: req.method,
            headers: req.headers,
            body: await req.text(),
          }),
      });
      h = await startHarness({
        WEBHOOK_SSRF_ALLOW: 'localhost',
        WEBHOOK_TIMEOUT_MS: '2000',
        QSTASH_URL: qstash.url,
        QSTASH_TOKEN: 'qstash_test_token',
        QSTASH_CURRENT_SIGNING_KEY: 'sig_current_key',
        QSTASH_NEXT_SIGNING_KEY: 'sig_next_key',
        PUBLIC_BASE_URL: BASE,
      });
      // this suite plays the edge: the embedded poller must not take the deliveries
      await h.runtime.webhooks.stop();
    }, 120_000);
    afterAll(async () => {
      await h?.close();
      await rx?.close();
      await qstash?.close();
    }, 60_000);

    const callback = (body: string, signature?: string) =>
      h.request('POST', '/api/internal/webhooks/qstash', {
        rawBody: body,
        headers: {
          'Content-Type': 'application/json',
          ...(signature ? { 'Upstash-Signature': signature } : {}),
        },
      });

    it('sends attempt 1 from the kick, schedules attempt 2 on QStash, and the signed callback sends it once', async () => {
      const t = await h.tenant();
      const key = await t.key(['webhooks:write', 'webhooks:read']);
      const created = await h.request('POST', '/api/v1/webhooks', {
        apiKey: key,
        body: { url: rx.url('/edge'), events: ['ticket.created'] },
      });
      expect(created.status).toBe(201);
      rx.plan('/edge', ['fail'], 'success');

      await emitEvent(h.db, t.id, 'ticket.created', {
        ticket: servedTicket('tkt_q', { subject: 's', priority: 'low' }),
      });
      const deferred: Promise<unknown>[] = [];
      const kicker = createEdgeWebhookKicker({
        db: h.db,
        config: h.config,
        defer: (task) => deferred.push(task()),
        port: h.runtime.services.webhooks,
        logger: h.runtime.services.logger,
      });
      kicker.kick();
      kicker.kick(); // one cycle per request
      expect(deferred).toHaveLength(1);
      await Promise.all(deferred);

      expect(rx.received('/edge')).toHaveLength(1);
      const row = await h.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', created.body.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'pending', attempts: 1, response_status: 500 });

      expect(qstash.publishes).toHaveLength(1);
      const pub = qstash.publishes[0]!;
      expect(pub.method).toBe('POST');
      expect(pub.destination).toBe(CALLBACK);
      expect(pub.headers.authorization).toBe('Bearer qstash_test_token');
      expect(pub.headers['upstash-not-before']).toBe(
        String(Math.ceil(row.next_attempt_at!.getTime() / 1000)),
      );
      expect(pub.headers['upstash-deduplication-id']).toBe(`${row.id}-2`);
      expect(JSON.parse(pub.body)).toEqual({ delivery_id: row.id, attempt: 2 });

      // refused: no signature, wrong key, signature of another body, another URL, expired
      const body = pub.body;
      const hourAgo = Math.floor(Date.now() / 1000) - 3600;
      for (const sig of [
        undefined,
        await signQStashCallback('wrong_key', CALLBACK, body),
        await signQStashCallback('sig_current_key', CALLBACK, `${body} `),
        await signQStashCallback('sig_current_key', 'https://evil.test/api/internal/webhooks/qstash', body),
        await signQStashCallback('sig_current_key', CALLBACK, body, { issuedAt: hourAgo }),
        'not.a.jwt',
      ]) {
        const res = await callback(body, sig);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ detail: 'Invalid QStash signature' });
      }

      // QStash (the stand-in) calls back once the attempt is due, signed: attempt 2 is sent, once
      // (none of the refused callbacks above sent anything)
      await qstash.settled();
      expect(qstash.deliveries).toMatchObject([{ destination: CALLBACK, retried: 0, status: 200 }]);
      expect(qstash.deliveries[0]!.at).toBeGreaterThanOrEqual(row.next_attempt_at!.getTime());
      const got = rx.received('/edge');
      expect(got).toHaveLength(2);
      expect(got[1]!.headers['x-webhook-delivery-id']).toBe(row.id);

      // QStash is at-least-once: a duplicate callback (here signed with the next key) sends nothing
      const dup = await callback(body, await signQStashCallback('sig_next_key', CALLBACK, body));
      expect(dup.status).toBe(200);
      expect(dup.body).toEqual({ delivery_id: row.id, attempt: 2, skipped: 'done' });
      expect(rx.received('/edge')).toHaveLength(2);
      expect(qstash.publishes).toHaveLength(1);

      const log = await h.request('GET', `/api/v1/webhooks/${created.body.id}/deliveries`, { apiKey: key });
      expect(log.body.deliveries[0]).toMatchObject({
        status: 'delivered',
        attempts: 2,
        response_status: 200,
      });
    });

    it('answers 503 (QStash retries) for an attempt that is not due yet, and 422 for a bad body', async () => {
      const t = await h.tenant();
      const key = await t.key(['webhooks:write']);
      const created = await h.request('POST', '/api/v1/webhooks', {
        apiKey: key,
        body: { url: rx.url('/later'), events: ['*'] },
      });
      await emitEvent(h.db, t.id, 'ticket.created', {
        ticket: servedTicket('tkt_l', { subject: 's', priority: 'low' }),
      });
      const deferred: Promise<unknown>[] = [];
      createEdgeWebhookKicker({
        db: h.db,
        config: h.config,
        defer: (task) => deferred.push(task()),
        port: h.runtime.services.webhooks,
        logger: h.runtime.services.logger,
      }).kick();
      await Promise.all(deferred);
      const row = await h.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', created.body.id)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('delivered');
      // a retry scheduled far ahead
      await h.db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: new Date(Date.now() + 3_600_000) })
        .where('id', '=', row.id)
        .execute();
      const body = JSON.stringify({ delivery_id: row.id, attempt: 2 });
      const early = await callback(body, await signQStashCallback('sig_current_key', CALLBACK, body));
      expect(early.status).toBe(503);
      expect(rx.received('/later')).toHaveLength(1);

      const bad = JSON.stringify({ delivery_id: row.id, attempt: 9 });
      const res = await callback(bad, await signQStashCallback('sig_current_key', CALLBACK, bad));
      expect(res.status).toBe(422);
      const unknown = JSON.stringify({ delivery_id: 'dlv_nope', attempt: 2 });
      const gone = await callback(unknown, await signQStashCallback('sig_current_key', CALLBACK, unknown));
      expect(gone.body).toEqual({ delivery_id: 'dlv_nope', attempt: 2, skipped: 'not_found' });
    });
  },
);
