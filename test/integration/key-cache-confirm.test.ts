/**
 * Several processes on one Postgres: a revoke another process answered must bite here on the next
 * request even when its notice has not been heard yet. The process's key cache follows a feed that
 * never delivers (a notice still on its way), the key is revoked in the database as another
 * process would, and the next request through this process is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyCache } from '../../shared/auth/key-verify';
import { type Harness, startHarness, TEST_DB } from '../support/harness';

describe.skipIf(TEST_DB !== 'postgres')('key cache on a shared Postgres: hits confirmed by the row', () => {
  let h: Harness;
  let cache: KeyCache;

  beforeAll(async () => {
    h = await startHarness();
    cache = new KeyCache();
    // heard, but silent: as if another process's notice had not arrived yet
    cache.follow({ followKeyChanges: (follower) => follower.heard(true) });
    (h.runtime.services as { keyCache: unknown }).keyCache = cache;
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  const read = (key: string) => h.request('GET', '/api/v1/tickets', { apiKey: key });

  it('a key revoked by another process is refused on the next request, its notice unheard', async () => {
    const tenant = await h.tenant();
    const key = await tenant.key(['tickets:read']);
    expect((await read(key)).status).toBe(200);
    expect((await read(key)).status).toBe(200);
    expect(cache.misses).toBe(1);
    await h.runtime.services.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date() })
      .where('tenant_id', '=', tenant.id)
      .execute();
    expect((await read(key)).status).toBe(401);
  });

  it('a scope taken away by another process is refused on the next request', async () => {
    const tenant = await h.tenant();
    const key = await tenant.key(['tickets:read']);
    expect((await read(key)).status).toBe(200);
    const looked = cache.misses;
    expect((await read(key)).status).toBe(200);
    expect(cache.misses).toBe(looked); // served from the cache: the hit is what must be confirmed
    await h.runtime.services.db
      .updateTable('api_keys')
      .set({ scopes: ['calls:read'] })
      .where('tenant_id', '=', tenant.id)
      .execute();
    expect((await read(key)).status).toBe(403);
  });
});
