import { describe, expect, it } from 'vitest';
import { KeyCache, type VerifiedKey } from '../../shared/auth/key-verify';
import { WriteWatch } from '../../shared/db/write-watch';

const key = (id: string): VerifiedKey => ({
  id,
  tenantId: 'ten_a',
  scopes: new Set(['tickets:read']),
  expiresAt: null,
  revoked: false,
  keyHash: 'h',
});

describe('KeyCache', () => {
  it("following other processes' key changes: evicts what they change; serves and keeps nothing while deaf", () => {
    const watch = new WriteWatch(false);
    const cache = new KeyCache();
    cache.follow(watch);
    // not listening yet: nothing kept, nothing served
    cache.set('itsm_sk_test_a', key('key_a'), cache.generation);
    expect(cache.get('itsm_sk_test_a')).toBeUndefined();
    watch.setOthersHeard(true);
    watch.setKeyLease(performance.now() + 60_000);
    cache.set('itsm_sk_test_a', key('key_a'), cache.generation);
    cache.set('itsm_sk_test_b', key('key_b'), cache.generation);
    watch.keyChanged('key_a'); // another process revoked it
    expect(cache.get('itsm_sk_test_a')).toBeUndefined();
    expect(cache.get('itsm_sk_test_b')?.id).toBe('key_b');
    // the session drops: a notice could be missed from now on, so the cache empties and stands aside
    watch.setOthersHeard(false);
    expect(cache.get('itsm_sk_test_b')).toBeUndefined();
    // listening again: what was cached before is gone (a revoke in the gap cannot survive)
    watch.setOthersHeard(true);
    expect(cache.get('itsm_sk_test_b')).toBeUndefined();
  });

  it('following other processes: serves hits only while its lease holds (a lapsed one stands the cache aside)', () => {
    const watch = new WriteWatch(false);
    const cache = new KeyCache();
    cache.follow(watch);
    watch.setOthersHeard(true);
    // listening, but no renewal answered yet: a change committed before it may still be unheard
    cache.set('itsm_sk_test_a', key('key_a'), cache.generation);
    expect(cache.get('itsm_sk_test_a')).toBeUndefined();
    watch.setKeyLease(performance.now() + 60_000);
    expect(cache.get('itsm_sk_test_a')?.id).toBe('key_a');
    // the renewal stopped answering: its last lease ran out
    watch.setKeyLease(performance.now() - 1);
    expect(cache.get('itsm_sk_test_a')).toBeUndefined();
    // renewed (every notice queued before it handled): served again
    watch.setKeyLease(performance.now() + 60_000);
    expect(cache.get('itsm_sk_test_a')?.id).toBe('key_a');
  });

  it('a revoke waits for every other process (the feed) before forgetKey resolves', async () => {
    const watch = new WriteWatch(true);
    const cache = new KeyCache();
    cache.follow(watch);
    watch.setKeyLease(performance.now() + 60_000);
    let told = () => {};
    watch.setKeyAnnouncer(
      () =>
        new Promise<void>((resolve) => {
          told = resolve;
        }),
    );
    cache.set('itsm_sk_test_a', key('key_a'), cache.generation);
    let done = false;
    const evicting = cache.evictEverywhere('key_a').then(() => (done = true));
    expect(cache.get('itsm_sk_test_a')).toBeUndefined(); // here at once
    await Promise.resolve();
    expect(done).toBe(false); // the others not yet
    told();
    await evicting;
    expect(done).toBe(true);
  });

  it('serves what a lookup cached', () => {
    const cache = new KeyCache();
    cache.set('itsm_sk_test_a', key('key_a'), cache.generation);
    expect(cache.get('itsm_sk_test_a')?.id).toBe('key_a');
  });

  it('evicts a revoked key by id', () => {
    const cache = new KeyCache();
    cache.set('itsm_sk_test_a', key('key_a'));
    cache.evict('key_a');
    expect(cache.get('itsm_sk_test_a')).toBeUndefined();
  });

  it('does not cache what a lookup read before an eviction it raced with (revoke during the lookup)', () => {
    const cache = new KeyCache();
    const before = cache.generation; // the lookup starts, reads the row while it is still active...
    cache.evict('key_a'); // ...the revoke commits and evicts (nothing cached yet)...
    cache.set('itsm_sk_test_a', key('key_a'), before); // ...then the lookup finishes
    expect(cache.get('itsm_sk_test_a')).toBeUndefined();
    // a lookup that starts after the eviction caches as usual
    cache.set('itsm_sk_test_a', key('key_a'), cache.generation);
    expect(cache.get('itsm_sk_test_a')?.id).toBe('key_a');
  });
});
