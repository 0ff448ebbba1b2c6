import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filtersHash, writeCursor } from '../../shared/db/paging';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

/**
 * The webhook delivery log's `cursor` (GET /api/v1/webhooks/{id}/deliveries): a walk by
 * `next_cursor` returns every delivery once, most recent first, while deliveries are queued between
 * its pages, and ends with `next_cursor: null`; a cursor of another webhook's log or of another
 * list, a malformed one, and one beside `before` are 422 in the spec's shape. `before` keeps its
 * meaning, the envelope stays without total/offset.
 */

type Db = Harness['db'];
const T0 = Date.parse('2026-11-01T00:00:00.000Z');
// eight deliveries per minute: four at the same instant (the id breaks the tie), four a few
// microseconds apart (what a JavaScript Date would lose, and a page boundary must not)
const instant = (i: number) => new Date(T0 + Math.floor(i / 8) * 60_000);
const at = (when: Date, i: number) =>
  sql<Date>`${when.toISOString()}::timestamptz + ${i % 8 < 4 ? 0 : i % 8} * interval '1 microsecond'`;
const SEEDED = 30;

async function insertDelivery(db: Db, tenantId: string, webhookId: string, i: number, when: Date) {
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: `dlv_${webhookId.slice(-4)}_${String(i).padStart(5, '0')}`,
      tenant_id: tenantId,
      webhook_id: webhookId,
      event_type: 'ticket.created',
      payload: '{}',
      event_created_at: when,
      // delivered already: the runtime's dispatcher has nothing to send
      status: 'delivered',
      attempts: 1,
      created_at: at(when, i),
    })
    .execute();
}

describe.skipIf(postgresUnavailable())('Delivery log cursor', () => {
  let h: Harness;
  let t: TestTenant;
  let key: string;
  const hooks = ['whk_cursor_aaaa', 'whk_cursor_bbbb'];
  let extra = 10_000;

  beforeAll(async () => {
    h = await startHarness();
    await h.runtime.webhooks.stop();
    t = await h.tenant();
    key = await t.key(['webhooks:read', 'tickets:read']);
    for (const id of hooks) {
      await h.db
        .insertInto('webhooks')
        .values({
          id,
          tenant_id: t.id,
          url: 'https://hooks.example.com/x',
          events: ['*'],
          secret_encrypted: 'sealed',
        })
        .execute();
      for (let i = 0; i < SEEDED; i++) await insertDelivery(h.db, t.id, id, i, instant(i));
    }
  }, 120_000);
  afterAll(() => h?.close());

  const log = (hook: string, query: string) =>
    h.request('GET', `/api/v1/webhooks/${hook}/deliveries?${query}`, { apiKey: key });
  const ids = (body: { deliveries: { id: string }[] }) => body.deliveries.map((d) => d.id);

  /** Every page by `next_cursor` (or by `before` = the last id read), optionally queuing deliveries between pages. */
  async function walk(hook: string, by: 'cursor' | 'before', limit: number, insertBetween: boolean) {
    const seen: string[] = [];
    let res = await log(hook, `limit=${limit}`);
    for (let n = 0; n < 100; n++) {
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['deliveries', 'next_cursor']);
      expect(res.body.deliveries.length).toBeLessThanOrEqual(limit);
      seen.push(...ids(res.body));
      if (res.body.next_cursor === null) return seen;
      expect(res.body.deliveries).toHaveLength(limit);
      if (insertBetween) {
        await insertDelivery(h.db, t.id, hook, extra++, new Date(T0 + 10 * 86_400_000)); // newer than all
        await insertDelivery(h.db, t.id, hook, extra++, new Date(T0 - 86_400_000)); // older than all
      }
      const from = by === 'cursor' ? `cursor=${res.body.next_cursor}` : `before=${seen[seen.length - 1]}`;
      res = await log(hook, `limit=${limit}&${from}`);
    }
    throw new Error('the walk did not end');
  }

  it('walks every delivery once, most recent first, with deliveries queued between pages, and ends with null', async () => {
    const start = ids((await log(hooks[0]!, 'limit=200')).body);
    expect(start.length).toBeGreaterThanOrEqual(SEEDED);
    const seen = await walk(hooks[0]!, 'cursor', 7, true);
    expect(new Set(seen).size).toBe(seen.length); // none twice
    // every delivery there at the start, in the order one page gave, none skipped
    expect(seen.filter((id) => start.includes(id))).toEqual(start);
    // the older ones queued meanwhile come in their place (after every seeded one); the newer ones do not
    const now = ids((await log(hooks[0]!, 'limit=200')).body);
    expect(seen).toEqual(now.filter((id) => seen.includes(id)));
    expect(now.length).toBeGreaterThan(seen.length);
  });

  it('`before` keeps its meaning: its walk gives the same deliveries as one page, microseconds apart included', async () => {
    const all = ids((await log(hooks[1]!, 'limit=200')).body);
    expect(await walk(hooks[1]!, 'before', 3, false)).toEqual(all);
    expect(await walk(hooks[1]!, 'cursor', 3, false)).toEqual(all);
  });

  it('a page that fills exactly `limit` at the end says null', async () => {
    const all = ids((await log(hooks[1]!, 'limit=200')).body);
    expect((await log(hooks[1]!, `limit=${all.length}`)).body.next_cursor).toBeNull();
    const short = await log(hooks[1]!, `limit=${all.length - 1}`);
    const rest = await log(hooks[1]!, `limit=${all.length - 1}&cursor=${short.body.next_cursor}`);
    expect(ids(rest.body)).toEqual(all.slice(-1));
    expect(rest.body.next_cursor).toBeNull();
  });

  it("refuses another webhook's cursor, another list's, a malformed one (422 on cursor) and cursor with before", async () => {
    const first = await log(hooks[0]!, 'limit=2');
    const cursor: string = first.body.next_cursor;
    expect(typeof cursor).toBe('string');
    const tickets = await h.request('GET', '/api/v1/tickets?limit=1', { apiKey: key });
    const position = {
      filters: filtersHash({ webhook_id: hooks[0] }, []),
      key: '2026-11-01T00:00:00.000000Z',
      id: 'dlv_x',
    };
    const refused = [
      log(hooks[1]!, `limit=2&cursor=${cursor}`), // another webhook's log
      log(hooks[0]!, `limit=2&cursor=${writeCursor({ list: 'tickets', ...position })}`), // another list's
      log(hooks[0]!, 'limit=2&cursor=not-a-cursor'),
      log(hooks[0]!, `limit=2&cursor=${cursor.slice(0, -2)}`),
      log(hooks[0]!, `limit=2&cursor=${'A'.repeat(600)}`),
    ];
    for (const res of await Promise.all(refused)) {
      expect(res.status, res.text).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'cursor']);
      expect(typeof res.body.detail[0].msg).toBe('string');
    }
    // a delivery-log cursor is refused by another list too
    const onTickets = await h.request('GET', `/api/v1/tickets?limit=1&cursor=${cursor}`, { apiKey: key });
    expect(onTickets.status, onTickets.text).toBe(422);
    expect(onTickets.body.detail[0].loc).toEqual(['query', 'cursor']);
    expect(tickets.status).toBe(200);

    const both = await log(hooks[0]!, `limit=2&cursor=${cursor}&before=${ids(first.body)[1]}`);
    expect(both.status, both.text).toBe(422);
    expect(both.body.detail[0].loc).toEqual(['query', 'before']);
    const unknownBefore = await log(hooks[0]!, 'limit=2&before=dlv_nope');
    expect(unknownBefore.status).toBe(422);
    expect(unknownBefore.body.detail[0].loc).toEqual(['query', 'before']);
    for (const limit of ['0', '201']) expect((await log(hooks[0]!, `limit=${limit}`)).status).toBe(422);
    // the same cursor on its own log still works
    expect((await log(hooks[0]!, `limit=2&cursor=${cursor}`)).status).toBe(200);
  });
});
