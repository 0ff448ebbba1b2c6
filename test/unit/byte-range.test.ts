import { describe, expect, it } from 'vitest';
import { byteRangeOf } from '../../shared/http/byte-range';

describe('byteRangeOf: the one byte range a Range header asks (RFC 9110)', () => {
  const SIZE = 1000;
  it.each([
    ['bytes=0-99', { offset: 0, length: 100 }],
    ['bytes=900-', { offset: 900, length: 100 }],
    ['bytes=-100', { offset: 900, length: 100 }],
    ['bytes=-5000', { offset: 0, length: 1000 }],
    ['bytes=990-5000', { offset: 990, length: 10 }],
    ['bytes=999-999', { offset: 999, length: 1 }],
    ['BYTES=0-0', { offset: 0, length: 1 }],
  ])('%s', (header, range) => {
    expect(byteRangeOf(header, SIZE)).toEqual(range);
  });

  it.each(['bytes=1000-', 'bytes=5000-6000', 'bytes=-0'])('%s: unsatisfiable (416)', (header) => {
    expect(byteRangeOf(header, SIZE)).toBe('unsatisfiable');
  });

  it.each([undefined, '', 'bytes=-', 'bytes=10-5', 'bytes=0-1,5-6', 'items=0-1', 'bytes=a-b', 'bytes= 0-1'])(
    '%s: no range, the whole file',
    (header) => {
      expect(byteRangeOf(header, SIZE)).toBeNull();
    },
  );
});
