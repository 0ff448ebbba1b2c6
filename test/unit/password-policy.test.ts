import { describe, expect, it } from 'vitest';
import { COMMON_PASSWORDS } from '../../shared/auth/common-passwords.gen';
import { passwordProblem } from '../../shared/auth/password-policy';

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
