// Every keyed operation commits its answer with its work. The store here "dies" after each
// request's work, as a process killed between its commit and the record's completion would: it
// never completes nor releases a key, so a retry after the lease finds only what the work itself
// committed. The retry must get the first answer, byte for byte, with Idempotent-Replayed, and
// the work must not run again (a route that records its answer after the work runs twice here).
// On both stores: the database's, and Redis (the edge's), whose record vanishes with the lease.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/docs/document';
import {
  DbIdempotencyStore,
  type IdempotencyClaim,
  type IdempotencyStore,
  type StoredResponse,
} from '../../shared/http/idempotency';
import { type Harness, postgresUnavailable, startHarness, type TestResponse } from '../support/harness';
import { KEYED_CASES } from '../support/keyed-cases';
import type { CaseContext, KeyedRequest } from '../support/keyed-cases/types';
import {
  redisForTests,
  startUpstashRestAdapter,
  type UpstashRestAdapter,
} from '../support/upstash-rest-adapter';

const redisUp = await redisForTests();

/** REQUEST_TIMEOUT_MS, the lease: short, so the test waits little */
const LEASE_MS = 600;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The store of a process that dies right after each request's work. */
class DiesAfterWork implements IdempotencyStore {
  constructor(private readonly inner: IdempotencyStore) {}
  get apartFromDatabase() {
    return this.inner.apartFromDatabase;
  }
  begin(claim: IdempotencyClaim) {
    return this.inner.begin(claim);
  }
  renew(claim: IdempotencyClaim) {
    return this.inner.renew(claim);
  }
  async complete(_claim: IdempotencyClaim, _response: StoredResponse) {}
  async release(_claim: IdempotencyClaim) {}
}

/** the document's keyed operations: those taking an Idempotency-Key header */
function keyedOperations(): string[] {
  const doc = openApiDocument('public') as {
    paths: Record<string, Record<string, { operationId?: string; parameters?: { name?: string }[] }>>;
  };
  const ids = new Set<string>();
  for (const ops of Object.values(doc.paths))
    for (const op of Object.values(ops))
      if (op.parameters?.some((p) => p.name === 'Idempotency-Key') && op.operationId) ids.add(op.operationId);
  return [...ids].sort();
}

it('every keyed operation of the document has a case here', () => {
  expect(KEYED_CASES.map((c) => c.operationId).sort()).toEqual(keyedOperations());
});

for (const store of ['database', 'redis'] as const) {
  describe.skipIf(postgresUnavailable() || (store === 'redis' && !redisUp))(
    `a crash between the work and its record (${store} store)`,
    () => {
      let h: Harness;
      let adapter: UpstashRestAdapter | undefined;
      const run = Math.random().toString(36).slice(2, 8);

      beforeAll(async () => {
        const env: Record<string, string> = { REQUEST_TIMEOUT_MS: String(LEASE_MS) };
        if (store === 'redis') {
          adapter = await startUpstashRestAdapter();
          env.UPSTASH_REDIS_REST_URL = adapter.url;
          env.UPSTASH_REDIS_REST_TOKEN = adapter.token;
        }
        h = await startHarness(env);
        const { services } = h.runtime;
        expect(services.idempotencyStore?.apartFromDatabase ?? false).toBe(store === 'redis');
        services.idempotencyStore = new DiesAfterWork(
          services.idempotencyStore ?? new DbIdempotencyStore(h.db),
        );
      });
      afterAll(async () => {
        await h?.close();
        await adapter?.close();
      });

      const send = (req: KeyedRequest, key: string): Promise<TestResponse> =>
        h.request(req.method, req.path, {
          body: req.body,
          apiKey: req.apiKey,
          bearer: req.bearer,
          headers: { 'Idempotency-Key': key },
        });

      it.concurrent.each(KEYED_CASES.map((c) => [c.operationId, c] as const))(
        '%s: a retry after the lease replays the committed answer; the work ran once',
        async (_id, keyedCase) => {
          const t = await h.tenant({ name: `Crash ${keyedCase.operationId}` });
          const ctx: CaseContext = { h, t, key: (scopes) => t.key(scopes) };
          const req = await keyedCase.prepare(ctx);
          const key = `${run}-${keyedCase.operationId}`;
          const first = await send(req, key);
          expect(first.status, first.text).toBeGreaterThanOrEqual(200);
          expect(first.status, first.text).toBeLessThan(300);
          const before = await keyedCase.effects?.(ctx, first);
          await sleep(LEASE_MS * 2 + 200);
          const retry = await send(req, key);
          expect(retry.status, retry.text).toBe(first.status);
          expect(retry.text).toBe(first.text);
          expect(retry.headers.get('idempotent-replayed')).toBe('true');
          if (keyedCase.effects) expect(await keyedCase.effects(ctx, first)).toBe(before);
        },
      );
    },
  );
}
