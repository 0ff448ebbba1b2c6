// Idempotency-Keys under a lease, on both stores: a lapsed lease is taken over and its old holder
// can neither complete, release nor commit under the key; a renewed one is kept, also by the
// middleware's own timer while its request runs past the lease; an answer
// committed in the database is replayed when the Redis record has vanished with its lease.

import { Hono } from 'hono';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEnv } from '../../shared/context/app-env';
import { openBody } from '../../shared/http/answer-seal';
import { workUnderClaim } from '../../shared/http/answer-with-work';
import { handleError } from '../../shared/http/errors';
import type { IdempotencyClaim, IdempotencyStore } from '../../shared/http/idempotency';
import { DbIdempotencyStore, idempotency } from '../../shared/http/idempotency';
import { redisKeyPrefix } from '../../shared/redis/client';
import { createTicket, ticketCreatedAnswer } from '../../shared/tickets/tickets';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';
import {
  PLAIN_REDIS_URL,
  redisForTests,
  startUpstashRestAdapter,
  type UpstashRestAdapter,
} from '../support/upstash-rest-adapter';

const redisUp = await redisForTests();

// long enough for two round trips to the store on a busy machine, short enough to wait out
const LEASE_MS = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ANSWER = { status: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"x"}' };

for (const name of ['database', 'redis', 'plain redis'] as const) {
  const inRedis = name !== 'database';
  describe.skipIf(postgresUnavailable() || (inRedis && !redisUp))(
    `Idempotency-Key leases (${name} store)`,
    () => {
      let h: Harness;
      let t: TestTenant;
      let store: IdempotencyStore;
      let adapter: UpstashRestAdapter | undefined;
      const run = Math.random().toString(36).slice(2, 8);
      const claim = (key: string, token: string): IdempotencyClaim => ({
        scope: { tenantId: t.id, credential: 'api_key:lease', key: `${run}-${key}` },
        fingerprint: 'same request',
        token,
        leaseMs: LEASE_MS,
        sealKey: 'idempotency-lease-test-seal',
      });
      const ticketCount = async (subject: string) =>
        Number(
          (
            await h.db
              .selectFrom('tickets')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('tenant_id', '=', t.id)
              .where('subject', '=', subject)
              .executeTakeFirstOrThrow()
          ).n,
        );

      beforeAll(async () => {
        const env: Record<string, string> = { REQUEST_TIMEOUT_MS: String(LEASE_MS) };
        if (name === 'plain redis') env.REDIS_URL = PLAIN_REDIS_URL;
        if (name === 'redis') {
          adapter = await startUpstashRestAdapter();
          env.UPSTASH_REDIS_REST_URL = adapter.url;
          env.UPSTASH_REDIS_REST_TOKEN = adapter.token;
        }
        h = await startHarness(env);
        t = await h.tenant();
        store = h.runtime.services.idempotencyStore ?? new DbIdempotencyStore(h.db);
        expect(store.apartFromDatabase).toBe(inRedis);
      });
      afterAll(async () => {
        await h?.close();
        await adapter?.close();
      });

      it('a lapsed lease is taken over; its old holder can no longer complete or release the key', async () => {
        const a = claim('lapse', 'holder-a');
        const b = claim('lapse', 'holder-b');
        const c = claim('lapse', 'holder-c');
        expect(await store.begin(a)).toEqual({ kind: 'new' });
        expect(await store.begin(b)).toEqual({ kind: 'in_progress' });
        await sleep(LEASE_MS + 150);
        expect(await store.begin(b)).toEqual({ kind: 'new' });
        expect(await store.renew(a)).toBe(false);
        await store.complete(a, ANSWER);
        await store.release(a);
        expect(await store.begin(c)).toEqual({ kind: 'in_progress' });
        await store.complete(b, ANSWER);
        expect(await store.begin(c)).toEqual({ kind: 'replay', response: ANSWER });
      });

      it('a renewed lease outlasts its length', async () => {
        const a = claim('renewed', 'holder-a');
        expect(await store.begin(a)).toEqual({ kind: 'new' });
        for (let i = 0; i < 4; i++) {
          await sleep(LEASE_MS / 2);
          expect(await store.renew(a)).toBe(true);
        }
        expect(await store.begin(claim('renewed', 'holder-b'))).toEqual({ kind: 'in_progress' });
      });

      it("a keyed request slower than its lease keeps its key by the middleware's own renewal: a duplicate after one lease is 409, the first commits", async () => {
        // the middleware on its own Hono app, so the endpoint can be slower than the lease; the
        // renewal is the middleware's timer, nothing renews by hand
        let ran = 0;
        const app = new Hono<AppEnv>();
        app.onError(handleError);
        app.use(async (c, next) => {
          c.set('services', h.runtime.services);
          c.set('auth', { kind: 'api_key', tenantId: t.id, keyId: `held-${run}`, scopes: new Set() });
          await next();
        });
        app.use(idempotency(() => true));
        app.post('/slow', async (c) => {
          const n = ++ran;
          await sleep(LEASE_MS * 2.5);
          return c.json({ run: n }, 201);
        });
        const post = () =>
          app.request('/slow', {
            method: 'POST',
            headers: { 'Idempotency-Key': `${run}-held`, 'content-type': 'application/json' },
            body: '{}',
          });
        const first = post();
        await sleep(LEASE_MS * 1.3);
        const duplicate = await post();
        expect(duplicate.status).toBe(409);
        const answered = await first;
        expect(answered.status).toBe(201);
        expect(await answered.json()).toEqual({ run: 1 });
        expect(ran).toBe(1);
        const replay = await post();
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(await replay.json()).toEqual({ run: 1 });
      });

      it('one ticket per key: a holder that lost the key commits nothing (409); the other commits its answer', async () => {
        const a = claim('ticket', 'holder-a');
        const b = claim('ticket', 'holder-b');
        const actor = { createdBy: 'api_key:lease', source: 'api' as const };
        const subject = `lease ${run}`;
        expect(await store.begin(a)).toEqual({ kind: 'new' });
        await sleep(LEASE_MS + 150);
        expect(await store.begin(b)).toEqual({ kind: 'new' });
        // one ticket for the key either way: in the database store the holder that lost the lease
        // commits nothing; with Redis the database knows no holder, and the first to commit wins
        const [loser, winner] = name === 'database' ? [a, b] : [b, a];
        const create = async (holder: IdempotencyClaim) =>
          (
            await workUnderClaim(
              h.db,
              holder,
              (trx) => createTicket(trx, t.id, { subject }, actor),
              ticketCreatedAnswer,
            )
          ).result;
        if (inRedis) await create(winner);
        await expect(create(loser)).rejects.toMatchObject({ status: 409 });
        const row = name === 'database' ? await create(winner) : null;
        expect(await ticketCount(subject)).toBe(1);
        const record = await h.db
          .selectFrom('idempotency_keys')
          .select(['state', 'response_status', 'response_body'])
          .where('idempotency_key', '=', b.scope.key)
          .executeTakeFirstOrThrow();
        expect(record).toMatchObject({ state: 'done', response_status: 201 });
        const stored = await h.db.selectFrom('tickets').select('id').where('subject', '=', subject).execute();
        // stored sealed (no answer is kept readable), opened as a replay opens it
        expect(record.response_body).toMatch(/^sealed-answer:/);
        expect(JSON.parse(await openBody(b, record.response_body ?? '')).id).toBe(row?.id ?? stored[0]?.id);
      });

      if (inRedis)
        it('a key whose Redis record vanished with its lease replays the answer its work committed', async () => {
          const key = await t.key(['tickets:write']);
          const post = () =>
            h.request('POST', '/api/v1/tickets', {
              apiKey: key,
              body: { subject: `vanished ${run}` },
              headers: { 'Idempotency-Key': `${run}-vanished` },
            });
          const first = await post();
          expect(first.status).toBe(201);
          // as if the holder died after its statement committed, before its answer reached Redis
          // this machine's Redis itself (the REST stand-in fronts the same one)
          const redis = new Redis(PLAIN_REDIS_URL);
          try {
            const [found] = await redis.keys(`${redisKeyPrefix(h.config)}idem:${t.id}:*:${run}-vanished`);
            expect(found).toBeDefined();
            await redis.del(found!);
          } finally {
            redis.disconnect();
          }
          const again = await post();
          expect(again.status).toBe(201);
          expect(again.headers.get('idempotent-replayed')).toBe('true');
          expect(again.body.id).toBe(first.body.id);
          expect(await ticketCount(`vanished ${run}`)).toBe(1);
        });
    },
  );
}
