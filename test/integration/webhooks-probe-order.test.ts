import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resendWaiting, sendProbe } from '../../shared/webhooks/health';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

/**
 * Which failed delivery an endpoint's probe re-sends, and in which order its recovery re-sends the
 * rest: the oldest event first, by the event's time. A probe that failed is itself a failed
 * delivery waiting, created after the others but carrying the oldest event; and a fan-out may
 * have written a later event's delivery before an earlier one's.
 */
describe.skipIf(postgresUnavailable())('Endpoint health: the oldest event goes out first', () => {
  let h: Harness;
  let t: TestTenant;
  const T0 = Date.parse('2026-11-01T00:00:00.000Z');
  const since = new Date(T0 - 60_000);
  let hookN = 0;

  beforeAll(async () => {
    h = await startHarness();
    await h.runtime.webhooks.stop(); // nothing sends what the test writes
    t = await h.tenant();
  }, 120_000);
  afterAll(() => h?.close());

  /** A subscription and its failed deliveries: [id, event subject, event time, delivery time, re-sent by]. */
  async function failedEndpoint(rows: [string, string, number, number, string?][]) {
    const webhookId = `whk_probe_order_${++hookN}`;
    await h.db
      .insertInto('webhooks')
      .values({
        id: webhookId,
        tenant_id: t.id,
        url: 'https://hooks.example.com/x',
        events: ['*'],
        secret_encrypted: 'sealed',
      })
      .execute();
    for (const [id, subject, eventAt, createdAt, redeliveryOf] of rows)
      await h.db
        .insertInto('webhook_deliveries')
        .values({
          id,
          tenant_id: t.id,
          webhook_id: webhookId,
          event_type: 'ticket.created',
          payload: JSON.stringify({ ticket: { subject } }),
          event_created_at: new Date(T0 + eventAt),
          status: 'failed',
          attempts: 5,
          created_at: new Date(T0 + createdAt),
          redelivery_of: redeliveryOf ?? null,
        })
        .execute();
    return webhookId;
  }
  const subjects = async (ids: string[]) => {
    const rows = await h.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'payload', 'redelivery_of'])
      .where('id', 'in', ids)
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => {
      const r = byId.get(id)!;
      const payload = typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload;
      return { subject: (payload as { ticket: { subject: string } }).ticket.subject, of: r.redelivery_of };
    });
  };

  it('after a failed probe, the next probe re-sends that probe (the oldest event), not the second event', async () => {
    const hook = await failedEndpoint([
      ['dlv_po1_first', 'first', 0, 0],
      ['dlv_po1_second', 'second', 1000, 1000],
      ['dlv_po1_third', 'third', 2000, 2000],
      // the first probe re-sent `first` and failed too
      ['dlv_po1_probe', 'first', 0, 5000, 'dlv_po1_first'],
    ]);
    const probe = await sendProbe(h.db, hook, since);
    expect(probe).not.toBeNull();
    expect(await subjects([probe!])).toEqual([{ subject: 'first', of: 'dlv_po1_probe' }]);
  });

  it('a later event fanned out first is still re-sent after the earlier one, by probe and by recovery', async () => {
    const hook = await failedEndpoint([
      ['dlv_po2_second', 'second', 1000, 1500],
      ['dlv_po2_first', 'first', 0, 1600],
      ['dlv_po2_third', 'third', 2000, 2000],
    ]);
    const probe = await sendProbe(h.db, hook, since);
    expect((await subjects([probe!]))[0]!.subject).toBe('first');
    const resent = await resendWaiting(h.db, hook, since);
    expect((await subjects(resent)).map((r) => r.subject)).toEqual(['second', 'third']);
  });

  it('a recovery re-sends in event order, a failed probe standing for its event', async () => {
    const hook = await failedEndpoint([
      ['dlv_po3_first', 'first', 0, 0],
      ['dlv_po3_second', 'second', 1000, 1000],
      ['dlv_po3_probe', 'first', 0, 5000, 'dlv_po3_first'],
      ['dlv_po3_third', 'third', 2000, 6000],
    ]);
    const resent = await resendWaiting(h.db, hook, since);
    expect(await subjects(resent)).toEqual([
      { subject: 'first', of: 'dlv_po3_probe' },
      { subject: 'second', of: 'dlv_po3_second' },
      { subject: 'third', of: 'dlv_po3_third' },
    ]);
  });
});
