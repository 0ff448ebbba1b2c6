/**
 * The shared verified-key cache (Redis, as on the edge: no in-process cache), read in the rate
 * limit's round trip: a warm key costs no database lookup, and a revoke, rotation or deletion
 * refuses the key on the very next request although its record was cached. Against this machine's
 * real Redis, through the Upstash REST adapter and as a plain Redis (REDIS_URL); skipped without
 * Redis (CI requires it).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../shared/auth/key-format';
import type { KeyRecord } from '../../shared/context/rate-limiter';
import { KEY_RECORD_TTL_MS, RATE_LIMITS, type UpstashRateLimiter } from '../../shared/ratelimit';
import type { RedisClient } from '../../shared/redis/client';
import { type Harness, postgresUnavailable } from '../support/harness';
import { type SharedKeyHarness, startSharedKeyHarness } from '../support/shared-key-harness';
import { REDIS_PROTOCOLS, redisForTests, type UpstashRestAdapter } from '../support/upstash-rest-adapter';

const redisUp = await redisForTests();

for (const protocol of REDIS_PROTOCOLS)
  describe.skipIf(postgresUnavailable() || !redisUp)(
    `shared key cache in Redis (the edge path, ${protocol})`,
    () => {
      let stack: SharedKeyHarness | undefined;
      let adapter: UpstashRestAdapter | undefined;
      let h: Harness;
      let redis: RedisClient;
      let lookups = 0;

      beforeAll(async () => {
        // the rate limiter's own round trips only: the tenant's database share (taken in the key's
        // script, released after the answer) is tested in key-share.test.ts, db-share.test.ts and
        // tenant-share-processes.test.ts
        stack = await startSharedKeyHarness(protocol, { TENANT_DB_SHARE: '0' });
        ({ h, adapter, redis } = stack);
      }, 120_000);
      afterAll(async () => {
        await stack?.close();
      });
      beforeEach(() => {
        lookups = 0;
      });

      const entryOf = async (key: string) =>
        redis.get<string>(`kc:${await hashApiKey(h.config.API_KEY_HASH_SECRET, key)}`);
      /** the first request's record is written after its response: wait for it */
      const warm = async (key: string) => {
        for (let i = 0; i < 100 && !(await entryOf(key)); i++) await new Promise((r) => setTimeout(r, 20));
        expect(await entryOf(key)).toBeTruthy();
      };
      const read = (key: string) => h.request('GET', '/api/v1/tickets', { apiKey: key });
      const countLookups = () => {
        const db = h.runtime.services.db;
        const original = db.selectFrom.bind(db);
        (db as { selectFrom: unknown }).selectFrom = ((table: string) => {
          if (String(table) === 'api_keys') lookups++;
          return original(table as never);
        }) as never;
        return () => {
          (db as { selectFrom: unknown }).selectFrom = original;
        };
      };
      /** a read answered 200 from the shared cache: no lookup in the database */
      const readCached = async (key: string) => {
        const restore = countLookups();
        try {
          expect((await read(key)).status).toBe(200);
          expect(lookups).toBe(0);
        } finally {
          restore();
        }
      };
      const keyIdOf = async (t: { adminToken: string }, name: string) => {
        const list = await h.request('GET', '/api/v1/api-keys', { bearer: t.adminToken });
        return (list.body.api_keys as { id: string; name: string }[]).find((k) => k.name === name)!.id;
      };

      it('a warm key is verified and rate-limited in one Redis round trip, without a database lookup', async () => {
        const t = await h.tenant({ plan: 'free' });
        const key = await t.key(['tickets:read']);
        expect((await read(key)).status).toBe(200);
        await warm(key);
        const restore = countLookups();
        try {
          const evals = adapter?.commands.length ?? 0;
          const first = await read(key);
          const second = await read(key);
          expect([first.status, second.status]).toEqual([200, 200]);
          expect(lookups).toBe(0);
          // one script per request: the record and the counters in the same call
          if (adapter)
            expect(adapter.commands.slice(evals).filter((c) => c === 'evalsha' || c === 'eval')).toHaveLength(
              2,
            );
          const { per10s } = RATE_LIMITS.free.read;
          expect(Number(first.headers.get('x-ratelimit-remaining'))).toBeLessThan(per10s);
          expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(
            Number(first.headers.get('x-ratelimit-remaining')) - 1,
          );
        } finally {
          restore();
        }
      });

      it('revoke: the very next request is 401 although the record was cached', async () => {
        const t = await h.tenant();
        const key = await t.key(['tickets:read']);
        expect((await read(key)).status).toBe(200);
        await warm(key);
        await readCached(key);
        const id = await keyIdOf(t, 'test key');
        expect(
          (await h.request('POST', `/api/v1/api-keys/${id}/revoke`, { bearer: t.adminToken })).status,
        ).toBe(204);
        const after = await read(key);
        expect(after.status).toBe(401);
        expect(after.body).toEqual({ detail: 'Invalid API key' });
      });

      it('rotate and delete: the old key is 401 on the next request; the new one works', async () => {
        const t = await h.tenant();
        const key = await t.key(['tickets:read']);
        await read(key);
        await warm(key);
        await readCached(key);
        const id = await keyIdOf(t, 'test key');
        const rotated = await h.request('POST', `/api/v1/api-keys/${id}/rotate`, { bearer: t.adminToken });
        expect(rotated.status).toBe(200);
        expect((await read(key)).status).toBe(401);
        const fresh = rotated.body.api_key as string;
        expect((await read(fresh)).status).toBe(200);
        await warm(fresh);
        await readCached(fresh);
        expect(
          (await h.request('DELETE', `/api/v1/api-keys/${rotated.body.id}`, { bearer: t.adminToken })).status,
        ).toBe(204);
        expect((await read(fresh)).status).toBe(401);
      });

      it('a fill that read the key before the revoke committed cannot bring it back', async () => {
        const t = await h.tenant();
        const key = await t.key(['tickets:read']);
        await read(key);
        await warm(key);
        const hash = await hashApiKey(h.config.API_KEY_HASH_SECRET, key);
        const stale = JSON.parse(String(await entryOf(key)).split('\t')[3]!) as KeyRecord;
        const id = await keyIdOf(t, 'test key');
        await h.request('POST', `/api/v1/api-keys/${id}/revoke`, { bearer: t.adminToken });
        // the racing lookup lands its (pre-revoke) record after the revoke
        await (h.runtime.services.rateLimiter as UpstashRateLimiter).keyRecords.fill(hash, stale);
        expect((await read(key)).status).toBe(401);
      });

      it('expiry is checked on read: an expired record is refused and not counted', async () => {
        const t = await h.tenant();
        const key = await t.key(['tickets:read']);
        await read(key);
        await warm(key);
        const hash = await hashApiKey(h.config.API_KEY_HASH_SECRET, key);
        const record = JSON.parse(String(await entryOf(key)).split('\t')[3]!) as KeyRecord;
        const expired = { ...record, expiresAt: Date.now() - 1000 };
        await redis.set(
          `kc:${hash}`,
          `${record.tenantId}\t${record.plan}\t${expired.expiresAt}\t${JSON.stringify(expired)}`,
          {
            px: KEY_RECORD_TTL_MS,
          },
        );
        expect((await read(key)).status).toBe(401);
      });

      it('a forged key (well-formed, unknown) is 401 cold and warm', async () => {
        const t = await h.tenant();
        const key = await t.key(['tickets:read']);
        const forged = `${key.slice(0, -8)}${key.slice(-8).split('').reverse().join('')}`;
        expect((await read(forged)).status).toBe(401);
        expect((await read(forged)).status).toBe(401);
      });
    },
  );
