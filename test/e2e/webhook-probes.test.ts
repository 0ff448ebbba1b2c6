// Endpoint health on Workers: while an endpoint fails, its probes ride QStash delayed callbacks
// (the stand-in of globalSetup) into the webhooks function; the first probe that succeeds makes it
// healthy and re-sends what failed since, once each and oldest first, with no call to recover.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type HttpsReceiver, startHttpsReceiver } from '../../scripts/lib/https-receiver';
import { QSTASH_PROBE_PATH } from '../../shared/webhooks/qstash';
import { bindings, call, edgeTenant, eventually, inspect } from './support';

interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  redelivery_of: string | null;
  payload: any;
}

const direct = new pg.Pool({ connectionString: inject('edgeDatabaseUrl'), max: 1 });
let rx: HttpsReceiver;
beforeAll(async () => {
  rx = await startHttpsReceiver();
});
afterAll(async () => {
  await rx.close();
  await direct.end();
});

const deliveries = async (webhookId: string) =>
  (
    await direct.query<DeliveryRow>(
      'SELECT id, status, attempts, redelivery_of, payload FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at, id',
      [webhookId],
    )
  ).rows;

/** The subjects the receiver took with a 2xx, in the order it took them. */
const deliveredSubjects = (path: string) =>
  rx
    .received(path)
    .filter((r) => r.answered === 'success')
    .map((r) => JSON.parse(r.body).data.ticket.subject as string);

describe('webhook endpoint health on workerd, probes by QStash delayed callbacks', () => {
  it('endpoint fails -> failing; receiver back -> a probe succeeds -> healthy, the backlog re-sent once each, queued oldest first', async () => {
    const t = await edgeTenant();
    const key = await t.key(['webhooks:read', 'webhooks:write', 'tickets:write']);
    const path = '/probes';
    rx.plan(path, [], 'fail'); // down
    const hook = await call('POST', '/api/v1/webhooks', {
      apiKey: key,
      body: { url: rx.url(path, '127.0.0.1'), events: ['ticket.created'] },
    });
    expect(hook.status, hook.text).toBe(201);
    const id = hook.body.id as string;
    const subjects = ['first', 'second', 'third'];
    for (const subject of subjects) {
      const res = await call('POST', '/api/v1/tickets', { apiKey: key, body: { subject } });
      expect(res.status, res.text).toBe(201);
    }

    // each delivery keeps the spec's schedule (five attempts, then failed); the endpoint is failing
    await eventually(async () => {
      const rows = (await deliveries(id)).filter((d) => d.redelivery_of === null);
      return rows.length === 3 && rows.every((d) => d.status === 'failed' && d.attempts === 5)
        ? rows
        : undefined;
    });
    const failing = await eventually(async () => {
      const read = await call('GET', `/api/v1/webhooks/${id}`, { apiKey: key });
      return read.body.health?.state === 'failing' ? read.body : undefined;
    });
    expect(failing.health.failing_since).not.toBeNull();
    // the probes are delayed QStash callbacks into the webhooks function, not a loop in an isolate
    const probeUrl = `${bindings().PUBLIC_BASE_URL}${QSTASH_PROBE_PATH}`;
    const probes = await eventually(async () => {
      const log = await inspect<{
        publishes: { destination: string; notBefore: string | null; body: string }[];
      }>('/qstash');
      const mine = log.publishes.filter(
        (p) => p.destination === probeUrl && JSON.parse(p.body).webhook_id === id,
      );
      return mine.length > 0 ? mine : undefined;
    });
    expect(probes[0]!.notBefore).not.toBeNull();

    rx.plan(path, [], 'success'); // back
    await eventually(async () => {
      const read = await call('GET', `/api/v1/webhooks/${id}`, { apiKey: key });
      return read.body.health.state === 'healthy' ? true : undefined;
    }, 300);
    await eventually(async () => (deliveredSubjects(path).length >= subjects.length ? true : undefined));
    // settled: no delivery of the endpoint still pending
    const rows = await eventually(async () => {
      const all = await deliveries(id);
      return all.every((d) => d.status !== 'pending') ? all : undefined;
    });

    // once each. The recovery's re-sends are queued oldest first (after the probe's) but go out
    // side by side on Workers, so the receiver may take them in either order
    expect([...deliveredSubjects(path)].sort()).toEqual([...subjects].sort());
    const byId = new Map(rows.map((d) => [d.id, d]));
    const delivered = rows.filter((d) => d.status === 'delivered');
    expect(delivered).toHaveLength(3);
    // the probe (queued first, rows come by created_at) re-sent the oldest event, whatever probes failed before
    const subjectOf = (d: DeliveryRow) => (d.payload as { ticket: { subject: string } }).ticket.subject;
    expect(subjectOf(delivered[0]!)).toBe('first');
    for (const d of delivered) {
      // each is a re-send linked to a failed one (the probe, then the recovery)
      expect(d.redelivery_of).not.toBeNull();
      expect(byId.get(d.redelivery_of as string)?.status).toBe('failed');
    }
    const after = await call('GET', `/api/v1/webhooks/${id}`, { apiKey: key });
    expect(after.body.health).toMatchObject({ state: 'healthy', failed_deliveries: 0, failing_since: null });
    expect(after.body.health.last_success_at).not.toBeNull();
  }, 180_000);
});
