import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../clients/typescript/index';
import { createEmbeddedRuntime, type EmbeddedRuntime } from '../../scripts/embedded';
import {
  type HttpsReceiver,
  type ReceivedRequest,
  startHttpsReceiver,
  trustTestCertificate,
} from '../../scripts/lib/https-receiver';
import { createPostgresHandle } from '../../shared/db/adapters/pg';
import type { DatabaseHandle } from '../../shared/db/handle';
import type { EventType } from '../../shared/events/catalog';
import { emitEvent } from '../../shared/events/emit';
import type { EventDataMap } from '../../shared/events/payloads';
import { createNodeLogger } from '../../shared/log/logger.node.js';
import type { OutboxMailer } from '../../shared/mail/mailer';
import { servedTicket } from '../support/events';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

trustTestCertificate();

// small units: retries 20, 40, 80, 160 ms apart; the first probe 600 ms after failing, the next 3 s
// later; disabled after 6 s of failure; the rotation overlap 3 s
const ENV = {
  WEBHOOK_SSRF_ALLOW: 'localhost',
  WEBHOOK_TIMEOUT_MS: '3000',
  WEBHOOK_RETRY_UNIT_MS: '10',
  WEBHOOK_DISABLE_AFTER_S: '6',
  WEBHOOK_ROTATION_OVERLAP_S: '3',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** What the receiver's library sees: the raw body and the headers as sent. */
const standardVerifies = (secret: string, req: ReceivedRequest) => {
  try {
    new StandardWebhook(secret).verify(req.body, req.headers);
    return true;
  } catch {
    return false;
  }
};
const svixVerifies = (secret: string, req: ReceivedRequest) => {
  try {
    new SvixWebhook(secret).verify(req.body, req.headers);
    return true;
  } catch {
    return false;
  }
};
const specSignature = (secret: string, req: ReceivedRequest) =>
  createHmac('sha256', secret).update(`${req.headers['x-webhook-timestamp']}.${req.body}`).digest('hex');

describe.skipIf(postgresUnavailable())(
  'webhook endpoint health, pacing and Standard Webhooks',
  { timeout: 120_000 },
  () => {
    let h: Harness;
    let rx: HttpsReceiver;
    let t: TestTenant;
    let key: string;
    /** on Postgres a second process's runtime on the same database: both dispatchers run */
    let second: { runtime: EmbeddedRuntime; handle: DatabaseHandle } | null = null;
    let n = 0;

    beforeAll(async () => {
      rx = await startHttpsReceiver();
      h = await startHarness(ENV);
      t = await h.tenant();
      key = await t.key(['webhooks:read', 'webhooks:write', 'webhooks:delete']);
      await h.db
        .insertInto('tenant_users')
        .values([
          { id: 'tus_owner', tenant_id: t.id, email: 'owner@acme.test', role: 'tenant_admin' },
          {
            id: 'tus_gone',
            tenant_id: t.id,
            email: 'gone@acme.test',
            role: 'tenant_admin',
            disabled_at: new Date(),
          },
          { id: 'tus_agent', tenant_id: t.id, email: 'agent@acme.test', role: 'agent' },
        ])
        .execute();
      if (h.databaseUrl) {
        const handle = createPostgresHandle(h.databaseUrl, { max: 3 });
        const logger = createNodeLogger({ level: 'error', destination: { write: () => {} } });
        second = { handle, runtime: await createEmbeddedRuntime({ config: h.config, handle, logger }) };
      }
    }, 120_000);
    afterAll(async () => {
      await second?.runtime.close();
      await h?.close();
      await rx?.close();
    }, 60_000);

    async function subscribe(events: string[]) {
      const path = `/health-${++n}`;
      const res = await h.request('POST', '/api/v1/webhooks', {
        apiKey: key,
        body: { url: rx.url(path), events },
      });
      expect(res.status).toBe(201);
      return { id: res.body.id as string, secret: res.body.secret as string, path };
    }
    async function emit<T extends EventType>(type: T, data: EventDataMap[T]) {
      await emitEvent(h.db, t.id, type, data);
      h.runtime.services.events.kick();
    }
    /** the mails of both processes: whichever moved the endpoint's state sent them */
    const allMails = async () => {
      const mine = await h.outbox();
      if (!second) return mine;
      await second.runtime.drain();
      const theirs = (second.runtime.services.mailer as OutboxMailer).sent;
      return [...mine, ...theirs];
    };
    const read = async (id: string) => {
      const res = await h.request('GET', `/api/v1/webhooks/${id}`, { apiKey: key });
      expect(res.status).toBe(200);
      return res.body;
    };
    const deliveries = (webhookId: string) =>
      h.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', webhookId)
        .orderBy('created_at')
        .execute();
    const auditOf = (webhookId: string) =>
      h.db
        .selectFrom('audit_log')
        .select(['action', 'actor'])
        .where('target_id', '=', webhookId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    /** the receiver's 2xx answers per event id (data.ticket.id / data.id) */
    const deliveredPerEvent = (path: string, idOf: (body: any) => string) => {
      const counts = new Map<string, number>();
      for (const r of rx.received(path))
        if (r.answered === 'success')
          counts.set(idOf(JSON.parse(r.body)), (counts.get(idOf(JSON.parse(r.body))) ?? 0) + 1);
      return counts;
    };

    it('a receiver down for a while gets every event exactly once when it is back, with no call to recover', async () => {
      const sub = await subscribe(['ticket.created']);
      expect((await read(sub.id)).health).toEqual({
        state: 'healthy',
        failing_since: null,
        last_success_at: null,
        failed_deliveries: 0,
        disabled_at: null,
      });
      // the list entries stay as the spec has them
      const list = await h.request('GET', '/api/v1/webhooks', { apiKey: key });
      expect(Object.keys(list.body.webhooks[0]).sort()).toEqual(
        ['created_at', 'description', 'events', 'id', 'is_active', 'url'].sort(),
      );

      rx.plan(sub.path, [], 'fail'); // down
      const ids = ['tkt_o1', 'tkt_o2', 'tkt_o3', 'tkt_o4'];
      for (const id of ids)
        await emit('ticket.created', { ticket: servedTicket(id, { subject: id, priority: 'low' }) });
      // every delivery keeps the spec's schedule: five attempts, then failed
      await until('four failed deliveries', async () => {
        const rows = await deliveries(sub.id);
        return rows.length === 4 && rows.every((d) => d.status === 'failed' && d.attempts === 5);
      });
      const failing = await until('failing', async () => {
        const body = await read(sub.id);
        return body.health.state === 'failing' && body;
      });
      expect(failing.health.failing_since).not.toBeNull();
      expect(failing.health.failed_deliveries).toBeGreaterThanOrEqual(3); // a probe may be re-sending one

      rx.plan(sub.path, [], 'success'); // back
      await until('healthy', async () => (await read(sub.id)).health.state === 'healthy');
      await until('every event delivered', async () => {
        const got = deliveredPerEvent(sub.path, (b) => b.data.ticket.id);
        return ids.every((id) => got.get(id) === 1);
      });
      await h.runtime.webhooks.settle();
      await sleep(300); // a second recovery or probe, if one were sent, would arrive now
      const got = deliveredPerEvent(sub.path, (b) => b.data.ticket.id);
      expect(Object.fromEntries(got)).toEqual(Object.fromEntries(ids.map((id) => [id, 1])));

      // each delivered one re-sends a failed one (directly or through a failed probe's chain)
      const rows = await deliveries(sub.id);
      const byId = new Map(rows.map((d) => [d.id, d]));
      const delivered = rows.filter((d) => d.status === 'delivered');
      expect(delivered).toHaveLength(4);
      for (const d of delivered) {
        expect(d.redelivery_of).not.toBeNull();
        expect(byId.get(d.redelivery_of!)!.status).toBe('failed');
      }
      const after = await read(sub.id);
      expect(after.health.state).toBe('healthy');
      expect(after.health.failed_deliveries).toBe(0);
      expect(after.health.last_success_at).not.toBeNull();

      // one mail, to the active tenant admin only; an audit entry for each change of state
      const mails = (await allMails()).filter((m) => m.subject.includes(rx.url(sub.path)));
      expect(mails.map((m) => [m.to, m.subject])).toEqual([
        ['owner@acme.test', `Webhook endpoint failing: ${rx.url(sub.path)}`],
      ]);
      expect(await auditOf(sub.id)).toEqual([
        { action: 'webhook.created', actor: expect.stringMatching(/^api_key:/) },
        { action: 'webhook.failing', actor: 'system:webhooks' },
        { action: 'webhook.healthy', actor: 'system:webhooks' },
      ]);

      // every attempt (failed ones, retries, probes and re-sends) verifies with the libraries
      const all = rx.received(sub.path);
      expect(all.length).toBeGreaterThanOrEqual(4 * 5 + 4);
      for (const req of all) {
        expect(standardVerifies(sub.secret, req)).toBe(true);
        expect(svixVerifies(sub.secret, req)).toBe(true);
        expect(req.headers['x-webhook-signature']).toBe(specSignature(sub.secret, req));
        expect(req.headers['webhook-id']).toBe(req.headers['x-webhook-delivery-id']);
      }
    });

    it('an endpoint failing for WEBHOOK_DISABLE_AFTER_S is disabled, and enabling it re-sends its backlog', async () => {
      const sub = await subscribe(['contact.created']);
      rx.plan(sub.path, [], 'fail');
      await emit('contact.created', { contact: { id: 'ctc_d1' } });
      await emit('contact.created', { contact: { id: 'ctc_d2' } });
      await until('failing', async () => (await read(sub.id)).health.state === 'failing');
      // as if the failing mail were more than a day old: the disabled one may go
      await h.db
        .updateTable('webhooks')
        .set({ owner_mailed_at: new Date(Date.now() - 2 * 86_400_000) })
        .where('id', '=', sub.id)
        .execute();
      const disabled = await until('disabled', async () => {
        const body = await read(sub.id);
        return body.health.state === 'disabled' && body;
      });
      expect(disabled.is_active).toBe(false);
      expect(disabled.health.disabled_at).not.toBeNull();
      const failingFor = Date.parse(disabled.health.disabled_at) - Date.parse(disabled.health.failing_since);
      expect(failingFor).toBeGreaterThanOrEqual(6000);
      // no new deliveries while disabled
      await emit('contact.created', { contact: { id: 'ctc_d3' } });
      await h.runtime.webhooks.settle();
      expect((await deliveries(sub.id)).some((d) => (d.payload as any).contact.id === 'ctc_d3')).toBe(false);

      rx.plan(sub.path, [], 'success');
      const enabled = await h.request('PATCH', `/api/v2/webhooks/${sub.id}`, {
        bearer: t.adminToken,
        body: { is_active: true },
      });
      expect(enabled.status).toBe(200);
      expect(enabled.body.is_active).toBe(true);
      expect(enabled.body.health.state).toBe('healthy');
      await until('backlog delivered', async () => {
        const got = deliveredPerEvent(sub.path, (b) => b.data.contact.id);
        return got.get('ctc_d1') === 1 && got.get('ctc_d2') === 1;
      });
      await h.runtime.webhooks.settle();
      const got = deliveredPerEvent(sub.path, (b) => b.data.contact.id);
      expect(Object.fromEntries(got)).toEqual({ ctc_d1: 1, ctc_d2: 1 });

      // each process keeps its own outbox, so the two mails' order across them says nothing;
      // the audit below holds the order (failing before disabled)
      const mails = (await allMails()).filter((m) => m.subject.includes(rx.url(sub.path)));
      expect(mails.map((m) => m.subject).sort()).toEqual([
        `Webhook endpoint disabled: ${rx.url(sub.path)}`,
        `Webhook endpoint failing: ${rx.url(sub.path)}`,
      ]);
      const actions = (await auditOf(sub.id)).map((a) => a.action);
      expect(actions.slice(0, 3)).toEqual(['webhook.created', 'webhook.failing', 'webhook.disabled']);
      // the enable and the PATCH's own entry commit together (same time)
      expect(actions.slice(3).sort()).toEqual(['webhook.enabled', 'webhook.updated']);
    });

    it('rate_limit 10: 100 events reach the endpoint over at least 9 s, each on its first attempt', async () => {
      const sub = await subscribe(['call.started']);
      const patched = await h.request('PATCH', `/api/v2/webhooks/${sub.id}`, {
        bearer: t.adminToken,
        body: { rate_limit: 10 },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.rate_limit).toBe(10);
      expect((await read(sub.id)).rate_limit).toBe(10);
      const bad = await h.request('PATCH', `/api/v2/webhooks/${sub.id}`, {
        bearer: t.adminToken,
        body: { rate_limit: 0 },
      });
      expect(bad.status).toBe(422);

      for (let i = 0; i < 100; i++)
        await emitEvent(h.db, t.id, 'call.started', {
          call: {
            id: `call_p${i}`,
            tenant_id: t.id,
            started_at: new Date().toISOString(),
            direction: 'inbound',
            channel: 'phone',
          },
        });
      h.runtime.services.events.kick();
      await until('100 arrived', async () => rx.received(sub.path).length >= 100, 60_000);
      await h.runtime.webhooks.settle({ timeoutMs: 60_000 });
      const got = rx.received(sub.path).map((r) => r.receivedAt);
      expect(got).toHaveLength(100);
      const span = got.at(-1)! - got[0]!;
      expect(span).toBeGreaterThanOrEqual(9000);
      // never more than the rate in any second (one more for the grant window's edge)
      for (let i = 0; i + 11 < got.length; i++) expect(got[i + 11]! - got[i]!).toBeGreaterThanOrEqual(1000);
      const rows = await deliveries(sub.id);
      expect(rows.every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    });

    it('after rotate-secret both secrets verify during the overlap, then only the new one', async () => {
      const sub = await subscribe(['message.sent']);
      const rotated = await h.request('POST', `/api/v2/webhooks/${sub.id}/rotate-secret`, {
        bearer: t.adminToken,
      });
      expect(rotated.status).toBe(200);
      const fresh = rotated.body.secret as string;
      await emit('message.sent', {
        message: { id: 'msg_r1', conversation_id: 'cnv_r' },
        conversation: { id: 'cnv_r' },
      });
      await h.runtime.webhooks.settle();
      const [during] = rx.received(sub.path);
      expect(during!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
      expect(standardVerifies(fresh, during!)).toBe(true);
      expect(standardVerifies(sub.secret, during!)).toBe(true);
      expect(svixVerifies(sub.secret, during!)).toBe(true);
      expect(during!.headers['x-webhook-signature']).toBe(specSignature(fresh, during!));
      // the client's helper (and so `webhooks:listen`) takes either form: the old secret holds only
      // in webhook-signature, the new one in both
      const helper = (secret: string, req: ReceivedRequest, headers = req.headers) =>
        verifyWebhookSignature({ payload: req.body, headers, secret, toleranceSeconds: 300 });
      expect(await helper(sub.secret, during!)).toBe(true);
      expect(await helper(fresh, during!)).toBe(true);
      const { 'x-webhook-signature': _, ...standardOnly } = during!.headers;
      expect(await helper(fresh, during!, standardOnly)).toBe(true);
      expect(await helper('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', during!)).toBe(false);

      await sleep(3100);
      await emit('message.sent', {
        message: { id: 'msg_r2', conversation_id: 'cnv_r' },
        conversation: { id: 'cnv_r' },
      });
      await h.runtime.webhooks.settle();
      const later = rx.received(sub.path)[1]!;
      expect(later.headers['webhook-signature']!.split(' ')).toHaveLength(1);
      expect(standardVerifies(fresh, later)).toBe(true);
      expect(standardVerifies(sub.secret, later)).toBe(false);
      expect(
        await verifyWebhookSignature({ payload: later.body, headers: later.headers, secret: sub.secret }),
      ).toBe(false);
    });
  },
);
