// One round trip for a warm keyed read (the speculation, shared/runtime/shortcuts.ts): on the edge runtime, a read
// with a key this isolate verified before starts its query while the key's check (Redis: validity,
// revocation, rate limit) is in flight, and shows nothing unless the check agrees. The Worker's
// own core runs here on the test database, with a shared key cache whose answers the test releases
// by hand, so the order of the query and the check is observed, not timed. What these cases rely
// on is the Worker's own entry, `edgeWorkerCore(app, rules, options).fetch`
// (shared/runtime/edge-core.ts), not the modules behind it.
import { type ExecutionContext, Hono } from 'hono';
import type { KyselyPlugin, RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_RULES } from '../../functions/manifest';
import { app as ticketsApp } from '../../functions/tickets/app';
import type { AppEnv, FunctionApp } from '../../shared/context/app-env';
import type { KeyRecord, KeyRecordCache, RateDecision, RateLimiter } from '../../shared/context/rate-limiter';
import type { Db } from '../../shared/db/schema';
import { rateLimit } from '../../shared/ratelimit/middleware';
import { edgeWorkerCore } from '../../shared/runtime/edge-core';
import { meterUsage, recorderFor } from '../../shared/usage/meter';
import { type Harness, startHarness, TEST_SECRETS, type TestTenant } from '../support/harness';

type Read = Awaited<ReturnType<KeyRecordCache['read']>>;

/** A shared key cache whose reads wait until the test answers them. */
class HeldKeyRecords implements KeyRecordCache {
  pending: { hash: string; answer: (r: Read) => void }[] = [];
  filled = new Map<string, KeyRecord | null>();
  read(hash: string): Promise<Read> {
    return new Promise((answer) => this.pending.push({ hash, answer }));
  }
  async fill(hash: string, record: KeyRecord | null) {
    this.filled.set(hash, record);
  }
  async forget() {}
  /** answers the oldest read once one is waiting */
  async answer(r: (hash: string) => Read) {
    await until(() => this.pending.length > 0);
    const next = this.pending.shift()!;
    next.answer(r(next.hash));
  }
}

const decision = (allowed: boolean): RateDecision => {
  const now = Date.now();
  return {
    allowed,
    limit: 100,
    remaining: allowed ? 41 : 0,
    reset: now + 30_000,
    retryAfter: allowed ? 0 : 30,
    now,
    windows: [],
  };
};

async function until(test: () => boolean, ms = 2_000) {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Every statement sent to the database, by kind and table, in order. */
function statementLog(sent: string[]): KyselyPlugin {
  return {
    transformQuery({ node }) {
      const from = (node as { from?: { froms?: { table?: { identifier?: { name?: string } } }[] } }).from;
      const into = (node as { into?: { table?: { identifier?: { name?: string } } } }).into;
      const table = from?.froms?.[0]?.table?.identifier?.name ?? into?.table?.identifier?.name ?? '?';
      sent.push(`${(node as RootOperationNode).kind}:${table}`);
      return node;
    },
    async transformResult({ result }) {
      return result;
    },
  };
}

describe('a warm keyed read on the edge: the query and the key check run together', () => {
  let h: Harness;
  let t: TestTenant;
  let key: string;
  let ticketId: string;
  const sent: string[] = [];
  const records = new HeldKeyRecords();
  const limiter: RateLimiter = { check: () => decision(true), keyRecords: records };
  const waiting: Promise<unknown>[] = [];
  const ctx = { waitUntil: (p: Promise<unknown>) => waiting.push(p), passThroughOnException() {} };
  let worker: ReturnType<typeof edgeWorkerCore>;
  const env = { APP_ENV: 'test', ...TEST_SECRETS, DATABASE_URL: 'postgres://unused/db', LOG_LEVEL: 'warn' };
  const get = (path: string, apiKey = key) =>
    worker.fetch(
      new Request(`http://edge${path}`, { headers: { 'x-api-key': apiKey } }),
      env,
      ctx as unknown as ExecutionContext,
    ) as Promise<Response>;
  const settled = async () => {
    while (waiting.length) await Promise.allSettled(waiting.splice(0));
  };
  const usageRows = async () => {
    // the harness's own requests (the ticket made in beforeAll) are metered in a flush window:
    // written before counting, or one lands between two counts
    await recorderFor(h.db).settle();
    // a number on both databases (Postgres answers a count as a string)
    return Number(
      (
        await h.db
          .selectFrom('usage_records')
          .select(({ fn }) => fn.countAll<string>().as('n'))
          .where('tenant_id', '=', t.id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  };
  const found = (record: KeyRecord | null, counted?: RateDecision) => () => ({ record, counted });
  let warmRecord: KeyRecord;
  /** the handle's query builder (every request's, as one per isolate on Workers) */
  let db: Db;

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    key = await t.key(['tickets:read', 'tickets:write']);
    const created = await h.request('POST', '/api/v1/tickets', {
      apiKey: key,
      body: { subject: 'Printer on fire', description: 'third floor' },
    });
    ticketId = created.body.id;
    db = h.db.withPlugin(statementLog(sent));
    worker = edgeWorkerCore(ticketsApp, ACCESS_RULES, {
      database: () => ({ ...h.handle, db, close: async () => {} }),
      rateLimiter: () => limiter,
      afterGate: [rateLimit(), meterUsage()],
    });
    // a cold isolate: the check goes first (a cache miss, then the database), and teaches the
    // isolate the key's tenant
    const cold = get(`/api/v1/tickets/${ticketId}`);
    await records.answer(() => undefined);
    expect((await cold).status).toBe(200);
    await settled();
    warmRecord = [...records.filled.values()][0]!;
    expect(warmRecord.tenantId).toBe(t.id);
  });
  afterAll(() => h?.close());

  it('a cold key waits for its check before any query of the route', async () => {
    const other = await t.key(['tickets:read']);
    sent.length = 0;
    const res = get(`/api/v1/tickets/${ticketId}`, other);
    await until(() => records.pending.length > 0);
    await new Promise((r) => setTimeout(r, 30));
    expect(sent.filter((s) => s === 'SelectQueryNode:tickets')).toEqual([]);
    await records.answer(() => undefined);
    expect((await res).status).toBe(200);
    await settled();
  });

  it('a warm key: the query is sent before the check answers, and the answer carries its rows', async () => {
    sent.length = 0;
    const res = get(`/api/v1/tickets/${ticketId}`);
    await until(() => sent.includes('SelectQueryNode:tickets'));
    expect(records.pending.length, 'the check is still in flight').toBe(1);
    await records.answer(found(warmRecord, decision(true)));
    const answer = await res;
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { id: string }).id).toBe(ticketId);
    // the confirmed count's headers, not the speculative run's
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('41');
    expect(answer.headers.get('x-ratelimit-limit')).toBe('100');
    await settled();
  });

  it('a warm key: the route receives no rows before the check answers (its provisional run cannot finish first)', async () => {
    // a route of its own, served by the Worker's fetch exactly as the tickets route is, that notes
    // when its query's rows reach it: only the check's answer may release them
    const seen: string[] = [];
    const probe: FunctionApp = new Hono<AppEnv>();
    probe.get('/api/v1/tickets/:id', async (c) => {
      const rows = await c
        .get('services')
        .db.selectFrom('tickets')
        .select('id')
        .where('id', '=', c.req.param('id'))
        .execute();
      seen.push('rows');
      return c.json({ id: rows[0]?.id ?? null });
    });
    db = h.db.withPlugin(statementLog(sent));
    const probeWorker = edgeWorkerCore(probe, ACCESS_RULES, {
      database: () => ({ ...h.handle, db, close: async () => {} }),
      rateLimiter: () => limiter,
      afterGate: [rateLimit(), meterUsage()],
    });
    sent.length = 0;
    const res = probeWorker.fetch(
      new Request(`http://edge/api/v1/tickets/${ticketId}`, { headers: { 'x-api-key': key } }),
      env,
      ctx as unknown as ExecutionContext,
    ) as Promise<Response>;
    await until(() => sent.includes('SelectQueryNode:tickets'));
    expect(records.pending.length, 'the check is still in flight').toBe(1);
    // the query has long answered (a local database): its rows wait for the check
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([]);
    seen.push('check answered');
    await records.answer(found(warmRecord, decision(true)));
    const answer = await res;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ id: ticketId });
    expect(seen).toEqual(['check answered', 'rows']);
    await settled();
  });

  it('a key revoked meanwhile: 401, nothing of the rows, nothing written', async () => {
    await settled();
    const usage = await usageRows();
    sent.length = 0;
    const res = get(`/api/v1/tickets/${ticketId}`);
    await until(() => sent.includes('SelectQueryNode:tickets'));
    await records.answer(found(null));
    const answer = await res;
    expect(answer.status).toBe(401);
    const text = await answer.text();
    expect(JSON.parse(text)).toEqual({ detail: 'Invalid API key' });
    expect(text).not.toContain('Printer');
    await settled();
    expect(await usageRows(), 'no usage row for a refused request').toBe(usage);
    expect(sent.filter((s) => !s.startsWith('SelectQueryNode'))).toEqual([]);
    // and the isolate forgot it: the next read with it waits for its check again
    sent.length = 0;
    const next = get(`/api/v1/tickets/${ticketId}`);
    await until(() => records.pending.length > 0);
    await new Promise((r) => setTimeout(r, 30));
    expect(sent).not.toContain('SelectQueryNode:tickets');
    await records.answer(found(warmRecord, decision(true)));
    expect((await next).status).toBe(200);
    await settled();
  });

  it('a key over its rate limit: 429 with Retry-After, nothing of the rows, nothing written', async () => {
    await settled();
    const usage = await usageRows();
    sent.length = 0;
    const res = get(`/api/v1/tickets/${ticketId}`);
    await until(() => sent.includes('SelectQueryNode:tickets'));
    await records.answer(found(warmRecord, decision(false)));
    const answer = await res;
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('30');
    const text = await answer.text();
    expect(JSON.parse(text)).toEqual({ detail: 'Rate limit exceeded' });
    expect(text).not.toContain('Printer');
    await settled();
    expect(await usageRows()).toBe(usage);
    expect(sent.filter((s) => !s.startsWith('SelectQueryNode'))).toEqual([]);
  });

  it('metered once: a kept run adds one usage row, a dropped one none, now or with a later batch', async () => {
    await settled();
    const usage = await usageRows();
    const refused = get(`/api/v1/tickets/${ticketId}`);
    await until(() => sent.includes('SelectQueryNode:tickets'));
    await records.answer(found(warmRecord, decision(false)));
    expect((await refused).status).toBe(429);
    await settled();
    const kept = get(`/api/v1/tickets/${ticketId}`);
    await records.answer(found(warmRecord, decision(true)));
    expect((await kept).status).toBe(200);
    await settled();
    await recorderFor(db).settle();
    expect(await usageRows()).toBe(usage + 1);
  });

  it('the confirmed key belongs elsewhere: the rows read for the hint are never shown', async () => {
    sent.length = 0;
    const res = get(`/api/v1/tickets/${ticketId}`);
    await until(() => sent.includes('SelectQueryNode:tickets'));
    await records.answer(found({ ...warmRecord, tenantId: 'ten_elsewhere' }, decision(true)));
    const answer = await res;
    // run again as the other tenant, whose ticket this is not
    expect(answer.status).toBe(404);
    expect(await answer.text()).not.toContain('Printer');
    await settled();
    // relearn the real tenant
    const again = get(`/api/v1/tickets/${ticketId}`);
    await records.answer(found(warmRecord, decision(true)));
    expect((await again).status).toBe(200);
    await settled();
  });

  it('a write with a warm key keeps the sequential path', async () => {
    sent.length = 0;
    const res = worker.fetch(
      new Request('http://edge/api/v1/tickets', {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ subject: 'Second', description: 'x' }),
      }),
      env,
      ctx as unknown as ExecutionContext,
    ) as Promise<Response>;
    await until(() => records.pending.length > 0);
    await new Promise((r) => setTimeout(r, 30));
    expect(sent).toEqual([]);
    await records.answer(found(warmRecord, decision(true)));
    expect((await res).status).toBe(201);
    await settled();
  });
});
