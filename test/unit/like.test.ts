import { describe, expect, it } from 'vitest';
import { containsPattern } from '../../shared/db/like';

describe('containsPattern: user text matched literally inside LIKE', () => {
  it.each([
    ['acme', '%acme%'],
    ['50%', '%50\\%%'],
    ['a_b', '%a\\_b%'],
    ['back\\slash', '%back\\\\slash%'],
  ])('%s -> %s', (text, pattern) => {
    expect(containsPattern(text)).toBe(pattern);
  });
});
