// Every keyed operation commits its answer with its work. The store here "dies" after each
// request's work, as a process killed between its commit and the record's completion would: it
// never completes nor releases a key, so a retry after the lease finds only what the database
// kept. The retry must get the first answer, byte for byte, with Idempotent-Replayed, and the
// work must not run again (a route that keeps its answer only through the store runs twice here).
// A route that writes its answer to the database in a statement of its own after the work's
// commit would still be replayed here (nothing kills that write), yet a process dying between the
// two would lose it: so for a case whose work writes (`effects`), the transaction that made the
// key `done` must have written to another table too (triggers in this test's database note which
// transactions wrote what).
// On both stores: the database's, and Redis (the edge's), whose record vanishes with the lease.

import { sql } from 'kysely';
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
        const env: Record<string, string> = {
          REQUEST_TIMEOUT_MS: String(LEASE_MS),
          // startSyncRun's provider: a closed local port
          SYNC_HTTP_ALLOW_HOSTS: '127.0.0.1',
        };
        if (store === 'redis') {
          adapter = await startUpstashRestAdapter();
          env.UPSTASH_REDIS_REST_URL = adapter.url;
          env.UPSTASH_REDIS_REST_TOKEN = adapter.token;
          // the limits' Redis round trips through the in-process adapter: a busy machine must not
          // turn them into the 503 of a limiter out of reach (this file is not about that)
          env.RATE_LIMIT_TIMEOUT_MS = '5000';
        }
        h = await startHarness(env);
        const { services } = h.runtime;
        expect(services.idempotencyStore?.apartFromDatabase ?? false).toBe(store === 'redis');
        // which transaction made each key `done` (this test's database only)
        for (const statement of [
          'CREATE TABLE answered_in (idempotency_key text PRIMARY KEY, xid bigint NOT NULL)',
          'CREATE TABLE wrote_in (xid bigint PRIMARY KEY)',
          `CREATE FUNCTION note_answer() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             INSERT INTO answered_in VALUES (NEW.idempotency_key, txid_current()) ON CONFLICT DO NOTHING;
             RETURN NULL;
           END $$`,
          `CREATE FUNCTION note_write() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             INSERT INTO wrote_in VALUES (txid_current()) ON CONFLICT DO NOTHING;
             RETURN NULL;
           END $$`,
          `CREATE TRIGGER note_answer_insert AFTER INSERT ON idempotency_keys FOR EACH ROW
             WHEN (NEW.state = 'done') EXECUTE FUNCTION note_answer()`,
          `CREATE TRIGGER note_answer_update AFTER UPDATE ON idempotency_keys FOR EACH ROW
             WHEN (NEW.state = 'done' AND OLD.state <> 'done') EXECUTE FUNCTION note_answer()`,
          `DO $$ DECLARE r record; BEGIN
             FOR r IN SELECT c.relname FROM pg_class c
                       WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
                         AND NOT c.relispartition
                         AND c.relname NOT IN ('idempotency_keys', 'answered_in', 'wrote_in') LOOP
               EXECUTE format('CREATE TRIGGER note_write AFTER INSERT OR UPDATE OR DELETE ON %I
                               FOR EACH STATEMENT EXECUTE FUNCTION note_write()', r.relname);
             END LOOP;
           END $$`,
        ])
          await sql.raw(statement).execute(h.db);
        services.idempotencyStore = new DiesAfterWork(
          services.idempotencyStore ?? new DbIdempotencyStore(h.db),
        );
      }, 120_000);
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

      /** whether the transaction that wrote the key's answer wrote to another table too */
      const answeredWithWork = async (key: string) => {
        const found = await sql<{ n: string }>`
          SELECT count(*)::text AS n FROM answered_in a JOIN wrote_in w ON w.xid = a.xid
           WHERE a.idempotency_key = ${key}`.execute(h.db);
        return Number(found.rows[0]?.n ?? 0) > 0;
      };

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
          if (keyedCase.effects)
            expect(await answeredWithWork(key), 'the answer was committed by the work itself').toBe(true);
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
