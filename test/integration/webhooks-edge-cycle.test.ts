/**
 * The statements an edge delivery cycle spends on a ticket creation with one subscription to a
 * healthy endpoint (shared/webhooks/qstash.ts runEdgeCycle): each one is a subrequest of the
 * request's waitUntil on Workers. The fan-out and the claim of its fresh delivery are one
 * statement, the outcome another.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type HttpsReceiver,
  startHttpsReceiver,
  trustTestCertificate,
} from '../../scripts/lib/https-receiver';
import { emitEvent } from '../../shared/events/emit';
import { claimDue, dispatchAndClaim, dispatchEvents } from '../../shared/webhooks/delivery';
import type { RetryScheduler } from '../../shared/webhooks/port';
import { runEdgeCycle } from '../../shared/webhooks/qstash';
import { servedTicket } from '../support/events';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

trustTestCertificate();

describe.skipIf(postgresUnavailable())('the edge cycle of one creation', { timeout: 60_000 }, () => {
  let h: Harness;
  let rx: HttpsReceiver;

  beforeAll(async () => {
    rx = await startHttpsReceiver();
    // a retry unit of 1 s: the cycle's probe look-up runs at most once a second per isolate
    h = await startHarness({ WEBHOOK_SSRF_ALLOW: 'localhost', WEBHOOK_RETRY_UNIT_MS: '1000' });
    // this suite plays the edge: the embedded poller must not take the deliveries
    await h.runtime.webhooks.stop();
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  }, 60_000);
  // each case starts with nothing due: a later cycle would otherwise claim what an earlier case left
  afterEach(async () => {
    await h.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed' })
      .where('status', '=', 'pending')
      .execute();
    await h.db
      .updateTable('events')
      .set({ dispatched_at: new Date() })
      .where('dispatched_at', 'is', null)
      .execute();
  });

  /** A tenant with one subscription to `path` of every event (`rate_limit` when given). */
  const subscriber = async (path: string, rateLimit?: number) => {
    const t = await h.tenant();
    const key = await t.key(['webhooks:write']);
    const hook = await h.request('POST', '/api/v1/webhooks', {
      apiKey: key,
      body: { url: rx.url(path), events: ['*'] },
    });
    expect(hook.status).toBe(201);
    if (rateLimit)
      await h.db
        .updateTable('webhooks')
        .set({ rate_limit: rateLimit })
        .where('id', '=', hook.body.id)
        .execute();
    const emit = (n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          emitEvent(h.db, t.id, 'ticket.created', {
            ticket: servedTicket(`tkt_${path.slice(1)}${i}`, { subject: 's', priority: 'low' }),
          }),
        ),
      );
    return { tenant: t.id, hook: hook.body.id as string, emit };
  };
  const deliveriesOf = (hook: string) =>
    h.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook).orderBy('id').execute();
  const deps = () => ({
    db: h.db,
    config: h.config,
    port: h.runtime.services.webhooks!,
    logger: h.runtime.services.logger,
  });

  it('fans out, claims and sends the delivery, then records it: two statements', async () => {
    const t = await h.tenant();
    const key = await t.key(['webhooks:write', 'tickets:write']);
    const hook = await h.request('POST', '/api/v1/webhooks', {
      apiKey: key,
      body: { url: rx.url('/cycle'), events: ['ticket.created'] },
    });
    expect(hook.status).toBe(201);

    // a handle of its own whose every statement is counted (as the edge's Neon HTTP handle is one per isolate)
    const db = h.db.withPlugin({ transformQuery: (a) => a.node, transformResult: async (a) => a.result });
    const statements: string[] = [];
    const executor = db.getExecutor();
    const run = executor.executeQuery.bind(executor);
    (executor as { executeQuery: unknown }).executeQuery = ((query, queryId) => {
      statements.push(query.sql);
      return run(query, queryId);
    }) as typeof executor.executeQuery;
    const deps = {
      db,
      config: h.config,
      port: h.runtime.services.webhooks!,
      logger: h.runtime.services.logger,
    };

    // the isolate's first cycle also looks for due probes and sweeps old attempts' content; the
    // creation's cycle comes within the second, as a busy isolate's does
    await runEdgeCycle(deps, null);
    const created = await h.request('POST', '/api/v1/tickets', {
      apiKey: key,
      body: { subject: 'counted', priority: 'low' },
    });
    expect(created.status).toBe(201);
    statements.length = 0;
    const results = await runEdgeCycle(deps, null);

    expect(results).toMatchObject([{ status: 'delivered', attempt: 1, recorded: true }]);
    expect(rx.received('/cycle')).toHaveLength(1);
    const row = await h.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', hook.body.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, claimed_until: null, claim_token: null });
    // the once-a-second probe look-up and the hourly retention sweep are the isolate's, not the
    // creation's: left out, should the creation's cycle come after the second
    const own = statements.filter(
      (q) => !/probes_sent = w\.probes_sent \+ 1|UPDATE webhook_delivery_attempts AS a/.test(q),
    );
    expect(own).toHaveLength(2);
    // its id was made in SQL, in newId's format: the prefix, the time in base36, 14 random characters
    expect(row.id).toMatch(/^dlv_[0-9a-z]{9}[0-9A-Za-z]{14}$/);
    expect(Math.abs(Number.parseInt(row.id.slice(4, 13), 36) - row.created_at.getTime())).toBeLessThan(5_000);
  });

  it('makes distinct ids in pair order for the deliveries of one statement', async () => {
    const t = await h.tenant();
    const key = await t.key(['webhooks:write', 'tickets:write']);
    for (const path of ['/a', '/b', '/c'])
      expect(
        (
          await h.request('POST', '/api/v1/webhooks', {
            apiKey: key,
            body: { url: rx.url(path), events: ['ticket.created'] },
          })
        ).status,
      ).toBe(201);
    for (const subject of ['one', 'two'])
      expect(
        (await h.request('POST', '/api/v1/tickets', { apiKey: key, body: { subject, priority: 'low' } }))
          .status,
      ).toBe(201);
    await dispatchEvents(h.db);
    const rows = await h.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id', 'webhook_id'])
      .where('tenant_id', '=', t.id)
      .execute();
    expect(rows).toHaveLength(6);
    expect(new Set(rows.map((r) => r.id)).size).toBe(6);
    // and their random parts too: drawn for each row, not once for the statement
    expect(new Set(rows.map((r) => r.id.slice(13))).size).toBe(6);
    // pair order: the older event first, then by subscription
    const byId = [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
    const byPair = [...rows].sort((a, b) =>
      a.event_id === b.event_id ? (a.webhook_id < b.webhook_id ? -1 : 1) : a.event_id! < b.event_id! ? -1 : 1,
    );
    expect(byId).toEqual(byPair);
  });

  it('claims waiting attempts first, then fresh ones, up to the limit; others cannot take them until the lease ends', async () => {
    const { hook, emit } = await subscriber('/claims');
    await emit(1);
    await dispatchEvents(h.db);
    const [waiting] = await deliveriesOf(hook);
    await emit(3);
    const got = await dispatchAndClaim(h.db, 2, 300);
    expect(got).toMatchObject({ events: 3, deliveries: 3, more: false });
    // the attempt already waiting, then the oldest fresh one; both with their subscription
    expect(got.claimed).toHaveLength(2);
    const fresh = (await deliveriesOf(hook)).filter((r) => r.id !== waiting!.id);
    expect(got.claimed.map((c) => c.id).sort()).toEqual([waiting!.id, fresh[0]!.id].sort());
    expect(got.claimed.every((c) => c.hook?.url === rx.url('/claims'))).toBe(true);
    const rows = await deliveriesOf(hook);
    expect(rows.filter((r) => r.claim_token !== null).map((r) => r.id)).toEqual(
      got.claimed.map((c) => c.id).sort(),
    );
    expect(new Set(got.claimed.map((c) => c.claim_token)).size).toBe(1);
    // another process gets only the fresh one left unclaimed; a crashed holder's claims return with its lease
    const other = await claimDue(h.db, 10, 10_000);
    expect(other.map((c) => c.id)).toEqual(rows.filter((r) => r.claim_token === null).map((r) => r.id));
    await new Promise((r) => setTimeout(r, 400));
    expect((await claimDue(h.db, 10, 10_000)).map((c) => c.id).sort()).toEqual(
      got.claimed.map((c) => c.id).sort(),
    );
  });

  it('paces a rate-limited endpoint: its fresh deliveries beyond the pace are handed back to a later callback', async () => {
    const { hook, emit } = await subscriber('/paced', 1);
    await emit(3);
    const scheduled: { id: string; attempt: number; at: Date }[] = [];
    const scheduler: RetryScheduler = {
      async schedule(id, attempt, at) {
        scheduled.push({ id, attempt, at });
      },
    };
    const results = await runEdgeCycle(deps(), scheduler);
    expect(results).toMatchObject([{ status: 'delivered', attempt: 1 }]);
    expect(rx.received('/paced')).toHaveLength(1);
    const waiting = (await deliveriesOf(hook)).filter((r) => r.status === 'pending');
    expect(waiting).toHaveLength(2);
    for (const r of waiting) {
      expect(r).toMatchObject({ attempts: 0, claimed_until: null, claim_token: null });
      expect(r.next_attempt_at!.getTime()).toBeGreaterThan(Date.now());
    }
    expect(scheduled.map((s) => s.id).sort()).toEqual(waiting.map((r) => r.id).sort());
  });

  it('a burst: batch after batch, each claiming as far as the limit goes, leaving no claim held', async () => {
    const { hook, emit } = await subscriber('/burst');
    await emit(120);
    const results = await runEdgeCycle(deps(), null, 5);
    expect(results).toHaveLength(5);
    expect(results.every((r) => r.recorded && r.status === 'delivered')).toBe(true);
    const rows = await deliveriesOf(hook);
    expect(rows).toHaveLength(120);
    expect(rows.filter((r) => r.claim_token !== null)).toEqual([]);
    const undispatched = await h.db
      .selectFrom('events')
      .select('id')
      .where('dispatched_at', 'is', null)
      .execute();
    expect(undispatched).toEqual([]);
  });
});
