import { describe, expect, it } from 'vitest';
import { KeyCache, type VerifiedKey } from '../../shared/auth/key-verify';

const key = (id: string): VerifiedKey => ({
  id,
  tenantId: 'ten_a',
  scopes: new Set(['tickets:read']),
  expiresAt: null,
  revoked: false,
  keyHash: 'h',
});

describe('KeyCache', () => {
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
