// The chain's optional middleware (shared/runtime/shortcuts.ts: the early refusal and the warm-key
// speculation) change no answer: the same requests, refusals, reads and writes, go through a chain
// with them and one without, one request at a time to each, and every answer is the same status,
// body and headers (a new id, a date or a request id aside). On Node (the embedded runtime's
// services) and on the edge core (Workers' services, whose handle can run speculatively, with a
// shared key cache so a warm key's read is speculated).
import type { ExecutionContext } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_RULES } from '../../functions/manifest';
import { app as ticketsApp } from '../../functions/tickets/app';
import { loadFunctionApps, standardAfterGate } from '../../scripts/embedded';
import type { KeyRecord, KeyRecordCache, RateDecision, RateLimiter } from '../../shared/context/rate-limiter';
import type { Services } from '../../shared/context/services';
import { createRateLimiter } from '../../shared/ratelimit/factory';
import { rateLimit } from '../../shared/ratelimit/middleware';
import { buildChain } from '../../shared/runtime/chain';
import { edgeWorkerCore } from '../../shared/runtime/edge-core';
import { meterUsage } from '../../shared/usage/meter';
import { type Harness, startHarness, TEST_SECRETS, type TestTenant } from '../support/harness';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

// what legitimately differs between two answers to the same request: new ids, times, request ids
const normalise = (text: string) =>
  text
    .replace(/\b[a-z]{2,6}_[0-9A-Za-z]{8,}\b/g, '<id>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g, '<time>');

async function answerOf(res: Response): Promise<Answer> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name === 'x-request-id' || name === 'date') return;
    // seconds until the window resets: read off the clock, a second boundary may fall between two
    headers[name] = name === 'x-ratelimit-reset' ? '<seconds>' : normalise(value);
  });
  return { status: res.status, headers, body: normalise(await res.text()) };
}

type Send = (path: string, init?: RequestInit) => Promise<Response>;

/** The same request to both, one after the other; the two answers. */
async function both(withShortcuts: Send, without: Send, path: string, init?: () => RequestInit) {
  const a = await answerOf(await withShortcuts(path, init?.()));
  const b = await answerOf(await without(path, init?.()));
  return { a, b };
}

const json = (method: string, headers: Record<string, string>, body: unknown) => () => ({
  method,
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

let h: Harness;
let t: TestTenant;
let other: TestTenant;
let key: string;
let readOnly: string;
let ticketId: string;
let othersTicket: string;

beforeAll(async () => {
  h = await startHarness();
  t = await h.tenant();
  other = await h.tenant();
  key = await t.key(['tickets:read', 'tickets:write']);
  readOnly = await t.key(['tickets:read']);
  const made = await h.request('POST', '/api/v1/tickets', {
    apiKey: key,
    body: { subject: 'Printer on fire', description: 'third floor' },
  });
  ticketId = made.body.id;
  const theirs = await h.request('POST', '/api/v1/tickets', {
    apiKey: await other.key(['tickets:write']),
    body: { subject: 'Not yours', description: 'x' },
  });
  othersTicket = theirs.body.id;
});
afterAll(() => h?.close());

/** The requests sent both ways: refusals of every kind, reads, lists and writes. */
function cases(): [string, string, (() => RequestInit)?][] {
  const as = (k: string) => ({ 'x-api-key': k });
  return [
    ['no credential', '/api/v1/tickets'],
    ['a malformed key', '/api/v1/tickets', () => ({ headers: as('itsm_sk_nope') })],
    [
      'a key without the scope',
      '/api/v1/tickets',
      json('POST', as(readOnly), { subject: 's', description: 'd' }),
    ],
    ['a key on a dashboard-only path', '/api/v1/api-keys', () => ({ headers: as(key) })],
    [
      'a stated body over the limit',
      '/api/v1/tickets',
      json('POST', as(key), { subject: 'x'.repeat(2_000_000) }),
    ],
    ['an unknown path', '/api/v1/nowhere', () => ({ headers: as(key) })],
    [
      'a method the path does not serve',
      `/api/v1/tickets/${ticketId}`,
      () => ({ method: 'PUT', headers: as(key) }),
    ],
    ['a browser surface without its credential', '/api/v1/app/tickets'],
    ['a read', `/api/v1/tickets/${ticketId}`, () => ({ headers: as(key) })],
    ['the same read, warm', `/api/v1/tickets/${ticketId}`, () => ({ headers: as(key) })],
    ['a HEAD', `/api/v1/tickets/${ticketId}`, () => ({ method: 'HEAD', headers: as(key) })],
    ["another tenant's ticket", `/api/v1/tickets/${othersTicket}`, () => ({ headers: as(key) })],
    ['a list', '/api/v1/tickets?limit=5', () => ({ headers: as(key) })],
    ['a write', '/api/v1/tickets', json('POST', as(key), { subject: 'Both ways', description: 'd' })],
    ['an invalid write', '/api/v1/tickets', json('POST', as(key), { subject: 7 })],
    ['the list after the writes', '/api/v1/tickets?limit=5', () => ({ headers: as(key) })],
  ];
}

describe('with and without the shortcuts: the same answers', () => {
  it('on Node (the embedded runtime)', async () => {
    const apps = await loadFunctionApps();
    // each chain its own limiter, so both count the same requests alike
    const chainOf = (on: boolean) => {
      const services: Services = {
        ...h.runtime.services,
        rateLimiter: createRateLimiter(h.config, h.runtime.services.logger),
      };
      const chain = buildChain(apps, {
        provideServices: services,
        access: ACCESS_RULES,
        logger: services.logger,
        maxBodyBytes: h.config.MAX_BODY_BYTES,
        corsOrigins: h.config.CORS_ALLOWED_ORIGINS,
        afterGate: standardAfterGate(),
        shortcuts: { earlyRefusal: on, speculation: on },
      });
      return (path: string, init?: RequestInit) => Promise.resolve(chain.request(path, init));
    };
    const on = chainOf(true);
    const off = chainOf(false);
    for (const [label, path, init] of cases()) {
      const { a, b } = await both(on, off, path, init);
      expect({ label, ...a }).toEqual({ label, ...b });
    }
  });

  it('on the edge core, a warm key speculated', async () => {
    const records = new Map<string, KeyRecord | null>();
    let calls = 0;
    let limited = false;
    const decision = (): RateDecision => {
      calls++;
      return {
        allowed: !limited,
        limit: 100,
        remaining: limited ? 0 : 41,
        reset: 30_000,
        retryAfter: limited ? 30 : 0,
        now: 0,
        windows: [],
      };
    };
    const keyRecords: KeyRecordCache = {
      async read(hash) {
        const record = records.get(hash);
        return record === undefined ? undefined : { record, counted: decision() };
      },
      async fill(hash, record) {
        if (!records.has(hash)) records.set(hash, record);
      },
      async forget(hash) {
        records.set(hash, null);
      },
    };
    const limiter: RateLimiter = { check: decision, keyRecords };
    const waiting: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => waiting.push(p), passThroughOnException() {} };
    const env = { APP_ENV: 'test', ...TEST_SECRETS, DATABASE_URL: 'postgres://unused/db', LOG_LEVEL: 'warn' };
    const workerOf = (on: boolean) => {
      const worker = edgeWorkerCore(ticketsApp, ACCESS_RULES, {
        database: () => ({ ...h.handle, close: async () => {} }),
        rateLimiter: () => limiter,
        afterGate: [rateLimit(), meterUsage()],
        shortcuts: { earlyRefusal: on, speculation: on },
      });
      return async (path: string, init?: RequestInit) => {
        const res = await worker.fetch(
          new Request(`http://edge${path}`, init),
          env,
          ctx as unknown as ExecutionContext,
        );
        while (waiting.length) await Promise.allSettled(waiting.splice(0));
        return res;
      };
    };
    const on = workerOf(true);
    const off = workerOf(false);
    const edgeCases = cases().filter(([label]) => label !== 'a key on a dashboard-only path');
    for (const [label, path, init] of edgeCases) {
      const { a, b } = await both(on, off, path, init);
      expect({ label, ...a }).toEqual({ label, ...b });
    }
    // over its rate limit: the speculated read and the sequential one answer the same 429
    limited = true;
    const { a, b } = await both(on, off, `/api/v1/tickets/${ticketId}`, () => ({
      headers: { 'x-api-key': key },
    }));
    expect(a.status).toBe(429);
    expect(a).toEqual(b);
    expect(calls, 'one count per request, the speculated included').toBeGreaterThan(0);
  });
});
