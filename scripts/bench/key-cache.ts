/**
 * What a warm keyed verification costs (`verifyApiKey` with the key in the process's cache), on
 * PGlite's one process and on a Postgres that several processes share. On a shared Postgres a hit
 * reads nothing either: it is served while the process's lease holds (the revoke pays for
 * revocation, waiting for every live process to evict the key), so the only cost added is the
 * lease's clock read. Times both, interleaved, on a throwaway database of this machine's Postgres,
 * each beside its ceiling. Usage: npm run bench:key-cache   (BENCH_PG_ADMIN_URL, default the local postgres)
 */
import { KeyCache, type VerifiedKey, verifyApiKey } from '../../shared/auth/key-verify';
import { createPostgresHandle } from '../../shared/db/adapters/pg';
import { migrate } from '../../shared/db/migrate';
import { readMigrations } from '../../shared/db/migrations-fs';
import { adminQuery, benchDatabaseUrl } from './postgres';

const ROUNDS = 7;
/** requests in flight at once */
const CONCURRENCY = 16;
const CALLS = 4_000;
/** per warm keyed verification on this shared 2-core machine */
const CEILING_NS = { memory: 1_000, leased: 1_000 } as const;

const TOKEN = 'itsm_sk_live_bench0000000000000000000000';
const key: VerifiedKey = {
  id: 'key_bench',
  tenantId: 'ten_bench',
  scopes: new Set(['tickets:read']),
  expiresAt: null,
  revoked: false,
  keyHash: 'bench-hash',
};

const admin = adminQuery;

const name = `spa_bench_keys_${process.pid}`;
await admin(`CREATE DATABASE ${name}`);
const handle = createPostgresHandle(benchDatabaseUrl(name), { listen: false });
try {
  await migrate(handle, readMigrations());
  await handle.db
    .insertInto('tenants')
    .values({ id: key.tenantId, name: 'bench', plan: 'pro', environment: 'production' })
    .execute();
  await handle.db
    .insertInto('api_keys')
    .values({
      id: key.id,
      tenant_id: key.tenantId,
      name: 'bench',
      description: null,
      key_prefix: 'itsm_sk_live_ben',
      key_hash: key.keyHash,
      environment: 'live',
      scopes: [...key.scopes],
      created_by: 'bench',
      expires_at: null,
      last_used_at: null,
      revoked_at: null,
    })
    .execute();

  const cacheOf = (leased: boolean) => {
    const cache = new KeyCache();
    if (leased)
      cache.follow({
        followKeyChanges: (follower) => {
          follower.heard(true);
          follower.leased(Number.POSITIVE_INFINITY);
        },
      });
    cache.set(TOKEN, key, cache.generation);
    return cache;
  };
  const caches = { memory: cacheOf(false), leased: cacheOf(true) };

  async function time(kind: keyof typeof caches): Promise<number> {
    const deps = { db: handle.db, hashSecret: 's', cache: caches[kind] };
    const calls = CALLS * 250;
    let served = 0;
    const started = process.hrtime.bigint();
    const worker = async (n: number) => {
      for (let i = 0; i < n; i++) if ((await verifyApiKey(deps, TOKEN)).id === key.id) served++;
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, () => worker(calls / CONCURRENCY)));
    if (served !== calls || caches[kind].misses !== 0)
      throw new Error('a warm key was not served from the cache');
    return Number(process.hrtime.bigint() - started) / calls;
  }

  const results: Record<keyof typeof caches, number[]> = { memory: [], leased: [] };
  await time('memory'); // warm-up (JIT, connections)
  await time('leased');
  for (let round = 0; round < ROUNDS; round++)
    for (const kind of round % 2 ? (['leased', 'memory'] as const) : (['memory', 'leased'] as const))
      results[kind].push(await time(kind));

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  console.log(
    `warm keyed verification (verifyApiKey, key in the process's cache), median of ${ROUNDS} rounds, ${CONCURRENCY} in flight`,
  );
  console.log('case                                        ns/call   ceiling');
  for (const [kind, label] of [
    ['memory', 'cache alone (PGlite, one process)'],
    ['leased', 'cache under its lease (shared Postgres)'],
  ] as const) {
    const ns = median(results[kind]);
    console.log(
      `${label.padEnd(44)} ${ns.toFixed(0).padStart(8)}   ${CEILING_NS[kind]} ${ns <= CEILING_NS[kind] ? 'ok' : 'OVER'}`,
    );
  }
  console.log('statements per warm keyed read: 0 on PGlite and on a shared Postgres');
} finally {
  await handle.close();
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
