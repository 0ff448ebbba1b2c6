import { describe, expect, it } from 'vitest';
import { API_KEY_PATTERN, generateApiKey, isWellFormedApiKey } from '../../shared/auth/key-format';
import { KeyCache, verifyApiKey } from '../../shared/auth/key-verify';

describe('API key format', () => {
  it('is itsm_sk_{env}_ + 32 random + 6 checksum characters', () => {
    for (const env of ['live', 'test'] as const) {
      const k = generateApiKey(env);
      expect(k.apiKey).toMatch(API_KEY_PATTERN);
      expect(k.apiKey.startsWith(`itsm_sk_${env}_`)).toBe(true);
      expect(k.keyPrefix).toBe(k.apiKey.slice(`itsm_sk_${env}_`.length).slice(0, 12));
      expect(isWellFormedApiKey(k.apiKey)).toBe(true);
    }
  });

  it('keys are unique', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey('live').apiKey));
    expect(keys.size).toBe(2000);
  });

  it('the checksum catches every single-character change and an altered env', () => {
    const { apiKey } = generateApiKey('live');
    expect(isWellFormedApiKey(apiKey.replace('_live_', '_test_'))).toBe(false);
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const start = 'itsm_sk_live_'.length;
    for (let i = start; i < apiKey.length; i++) {
      const ch = apiKey[i]!;
      const other = alphabet[(alphabet.indexOf(ch) + 7) % 62]!;
      expect(isWellFormedApiKey(apiKey.slice(0, i) + other + apiKey.slice(i + 1))).toBe(false);
    }
  });

  it('a malformed or mis-checksummed key is refused without any lookup', async () => {
    let lookups = 0;
    const db = new Proxy(
      {},
      {
        get: () => {
          throw new Error('the database must not be touched');
        },
      },
    ) as never;
    const deps = { db, hashSecret: 's', cache: new KeyCache(), onLookup: () => lookups++ };
    const { apiKey } = generateApiKey('live');
    for (const bad of [
      apiKey.replace('_live_', '_test_'),
      // the checksum's last character changed (to another one: a random key may end in '0')
      `${apiKey.slice(0, -1)}${apiKey.endsWith('0') ? '1' : '0'}`,
      'itsm_sk_live_short',
      '',
    ]) {
      await expect(verifyApiKey(deps, bad)).rejects.toMatchObject({ status: 401, detail: 'Invalid API key' });
    }
    expect(lookups).toBe(0);
  });
});
