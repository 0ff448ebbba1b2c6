/**
 * The tools that make the service send are limited per endpoint: at most 10 test events a minute and
 * one recover a minute; beyond that 429 with Retry-After and nothing sent. A recover does not re-send
 * a delivery an earlier recover re-queued, pending or done.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type HttpsReceiver,
  startHttpsReceiver,
  trustTestCertificate,
} from '../../scripts/lib/https-receiver';
import { emitEvent } from '../../shared/events/emit';
import { MemoryRateLimiter } from '../../shared/ratelimit/limiter';
import { servedTicket } from '../support/events';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

trustTestCertificate();

describe.skipIf(postgresUnavailable())('webhook tools: per-endpoint limits', { timeout: 60_000 }, () => {
  let h: Harness;
  let rx: HttpsReceiver;
  let t: TestTenant;
  let key: string;
  let admin: string;
  let n = 0;
  /** the limiter's clock, moved by the tests: the middle of a minute, so no window ends mid-test */
  let clock = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;

  beforeAll(async () => {
    rx = await startHttpsReceiver();
    h = await startHarness({
      WEBHOOK_SSRF_ALLOW: 'localhost',
      WEBHOOK_RETRY_UNIT_MS: '10',
      TENANT_DB_SHARE: '0',
    });
    const limiter = h.runtime.services.rateLimiter;
    if (!(limiter instanceof MemoryRateLimiter)) throw new Error('the harness limiter is expected in memory');
    limiter.now = () => clock;
    t = await h.tenant({ plan: 'enterprise' });
    key = await t.key(['webhooks:read', 'webhooks:write']);
    admin = t.adminToken;
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  });

  async function subscribe() {
    const path = `/limits-${++n}`;
    const res = await h.request('POST', '/api/v1/webhooks', {
      apiKey: key,
      body: { url: rx.url(path), events: ['ticket.created'] },
    });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, path };
  }
  const deliveriesOf = async (id: string) =>
    h.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'status', 'redelivery_of'])
      .where('webhook_id', '=', id)
      .execute();

  it('test events: 10 a minute per endpoint, the 11th is 429 with Retry-After and sends nothing', async () => {
    const hook = await subscribe();
    const other = await subscribe();
    const test = (id: string) =>
      h.request('POST', `/api/v2/webhooks/${id}/test`, {
        bearer: admin,
        body: { event_type: 'ticket.created' },
      });
    const answers = await Promise.all(Array.from({ length: 15 }, () => test(hook.id)));
    expect(answers.filter((r) => r.status === 202)).toHaveLength(10);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused).toHaveLength(5);
    expect(refused[0]?.body).toEqual({ detail: 'At most 10 test events a minute per endpoint' });
    expect(Number(refused[0]?.headers.get('retry-after'))).toBe(30);
    await h.runtime.webhooks.settle();
    expect(await deliveriesOf(hook.id)).toHaveLength(10);
    expect(rx.received(hook.path)).toHaveLength(10);
    // another endpoint has its own budget
    expect((await test(other.id)).status).toBe(202);
    // the next minute, again
    clock += 60_000;
    expect((await test(hook.id)).status).toBe(202);
  });

  it('recover: one a minute per endpoint; a later one does not re-send what an earlier one re-queued', async () => {
    const hook = await subscribe();
    const since = new Date(Date.now() - 60_000).toISOString();
    rx.plan(hook.path, [], 'fail');
    for (const id of ['tkt_a', 'tkt_b'])
      await emitEvent(h.db, t.id, 'ticket.created', {
        ticket: servedTicket(id, { subject: 's', priority: 'low' }),
      });
    h.runtime.services.events.kick();
    await h.runtime.webhooks.settle();
    expect((await deliveriesOf(hook.id)).map((d) => d.status)).toEqual(['failed', 'failed']);

    // the re-sends stay pending: the receiver's answers are held back until the second recover
    rx.plan(hook.path, [], 'timeout');
    const recover = () =>
      h.request('POST', `/api/v1/webhooks/${hook.id}/recover`, { apiKey: key, body: { since } });
    const [first, second] = await Promise.all([recover(), recover()]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([202, 429]);
    const refused = first.status === 429 ? first : second;
    const accepted = first.status === 202 ? first : second;
    expect(refused.body).toEqual({ detail: 'At most one recover a minute per endpoint' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(accepted.body.deliveries).toHaveLength(2);
    expect(await deliveriesOf(hook.id)).toHaveLength(4);

    clock += 60_000;
    const later = await recover();
    expect(later.status).toBe(202);
    // the two re-queued ones are not re-sent again, pending or not
    expect(later.body.deliveries).toEqual([]);
    expect(await deliveriesOf(hook.id)).toHaveLength(4);
  });
});
