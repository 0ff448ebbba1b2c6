import { describe, expect, it } from 'vitest';
import { COMMON_PASSWORDS } from '../../shared/auth/common-passwords.gen';
import { countedCharacters, passwordProblem } from '../../shared/auth/password-policy';

describe('password policy', () => {
  it('refuses whitespace alone, one repeated character and common passwords, each saying why', () => {
    expect(passwordProblem(' '.repeat(12))).toBe('Password must not be only whitespace');
    expect(passwordProblem('\t \n'.repeat(4))).toBe('Password must not be only whitespace');
    expect(passwordProblem('aaaaaaaaaaaa')).toBe('Password must not be one repeated character');
    for (const common of ['password1234', '123456789012', 'Password1234', 'qwertyuiopasdfgh'])
      expect(passwordProblem(common)).toBe(
        'Password is too common: choose one that is not on lists of leaked passwords',
      );
  });

  it('judges the password as NFKC without invisible code points: patterns and repeats behind them are refused', () => {
    expect(countedCharacters('\u200b\u200c'.repeat(6))).toEqual([]);
    expect(countedCharacters('\u00ad\u200b'.repeat(6))).toEqual([]);
    expect(countedCharacters('\ufb01x\u2060')).toEqual(['f', 'i', 'x']);
    expect(passwordProblem('abababababab')).toBe('Password must not be a repeated two-character pattern');
    expect(passwordProblem('121212121212')).toBe('Password must not be a repeated two-character pattern');
    expect(passwordProblem('ab\u200bababab\u00adababab')).toBe(
      'Password must not be a repeated two-character pattern',
    );
    expect(passwordProblem('\uff41'.repeat(12))).toBe('Password must not be one repeated character');
    expect(passwordProblem(' \u200b'.repeat(12))).toBe('Password must not be only whitespace');
    // a three-character cycle is not this rule's (nor too weak to be refused by the list alone)
    expect(passwordProblem('abcabcabcabc')).not.toBe('Password must not be a repeated two-character pattern');
  });

  it('accepts a long uncommon password', () => {
    expect(passwordProblem('correct horse battery')).toBeNull();
    expect(passwordProblem('a1b2c3d4e5f6g7-violet')).toBeNull();
  });

  it('the list: every entry a password the length rule lets through, lower-cased, small enough for a Worker', () => {
    const list = COMMON_PASSWORDS.split('\n');
    expect(list.length).toBeGreaterThan(400);
    for (const p of list) {
      expect(p.length).toBeGreaterThanOrEqual(12);
      expect(p).toBe(p.toLowerCase());
    }
    expect(COMMON_PASSWORDS.length).toBeLessThan(16 * 1024);
  });
});
