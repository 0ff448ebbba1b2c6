import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvent } from '../../shared/events/emit';
import { newId } from '../../shared/ids';
import { dispatchEvents } from '../../shared/webhooks/delivery';
import { servedTicket } from '../support/events';
import { type Harness, startHarness, TEST_DB, type TestTenant } from '../support/harness';

// A burst of events to many subscriptions is written a bounded number of deliveries at a time, so
// sending can start before the whole burst is written; an event is never split across batches.
describe('fan-out in bounded batches', () => {
  let h: Harness;
  let t: TestTenant;

  beforeAll(async () => {
    h = await startHarness();
    // the fan-out is called by hand here: the runtime's own dispatcher must not race it
    await h.runtime.webhooks.stop();
    t = await h.tenant();
    const created = new Date(Date.now() - 60_000);
    await h.db
      .insertInto('webhooks')
      .values(
        Array.from({ length: 30 }, (_, i) => ({
          id: newId('webhook'),
          tenant_id: t.id,
          url: `https://hooks.example.com/${i}`,
          events: ['*'],
          secret_encrypted: 'sealed',
          created_at: created,
        })),
      )
      .execute();
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  }, 60_000);

  const deliveriesPerEvent = async () => {
    const rows = await h.db
      .selectFrom('webhook_deliveries')
      .select(['event_id', (eb) => eb.fn.countAll<string>().as('n')])
      .where('tenant_id', '=', t.id)
      .groupBy('event_id')
      .execute();
    return rows.map((r) => Number(r.n));
  };

  it('writes whole events, at most the bound of deliveries per statement, and says when more wait', async () => {
    for (let i = 0; i < 10; i++)
      await emitEvent(h.db, t.id, 'ticket.created', {
        ticket: servedTicket(`tkt_${i}`, { subject: 's', priority: 'low' }),
      });
    const batches: { events: number; deliveries: number; more: boolean }[] = [];
    for (let i = 0; i < 20; i++) {
      const batch = await dispatchEvents(h.db, 100, 100);
      if (batch.events === 0) break;
      batches.push(batch);
    }
    // 30 subscriptions each: three whole events (90 deliveries) fit under 100, a fourth would not
    expect(batches.map((b) => b.deliveries)).toEqual([90, 90, 90, 30]);
    expect(batches.map((b) => b.more)).toEqual([true, true, true, false]);
    expect(await deliveriesPerEvent()).toEqual(Array(10).fill(30));
  });

  it('writes an event with more subscriptions than the bound whole, alone', async () => {
    await h.db.deleteFrom('webhook_deliveries').where('tenant_id', '=', t.id).execute();
    await emitEvent(h.db, t.id, 'ticket.created', {
      ticket: servedTicket('tkt_big', { subject: 's', priority: 'low' }),
    });
    await emitEvent(h.db, t.id, 'ticket.created', {
      ticket: servedTicket('tkt_next', { subject: 's', priority: 'low' }),
    });
    expect(await dispatchEvents(h.db, 100, 20)).toEqual({ events: 1, deliveries: 30, more: true });
    expect(await dispatchEvents(h.db, 100, 20)).toEqual({ events: 1, deliveries: 30, more: true });
    expect(await dispatchEvents(h.db, 100, 20)).toEqual({ events: 0, deliveries: 0, more: false });
    expect(await deliveriesPerEvent()).toEqual([30, 30]);
  });
  // two connections are needed: PGlite has one
  it.skipIf(TEST_DB !== 'postgres')(
    'takes nothing and says nothing more waits while another process holds the events',
    async () => {
      await emitEvent(h.db, t.id, 'ticket.created', {
        ticket: servedTicket('tkt_held', { subject: 's', priority: 'low' }),
      });
      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => {
        locked = r;
      });
      const holder = h.db.transaction().execute(async (trx) => {
        await trx.selectFrom('events').select('id').where('dispatched_at', 'is', null).forUpdate().execute();
        locked();
        await held;
      });
      await isLocked;
      try {
        expect(await dispatchEvents(h.db, 100, 20)).toEqual({ events: 0, deliveries: 0, more: false });
      } finally {
        release();
        await holder;
      }
      expect(await dispatchEvents(h.db, 100, 20)).toMatchObject({ events: 1, deliveries: 30 });
    },
  );
});
