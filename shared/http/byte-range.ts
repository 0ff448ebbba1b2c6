import type { ByteRange } from '../storage/port';

const RANGE = /^bytes=(\d*)-(\d*)$/i;

/**
 * The one byte range a `Range` header asks of `size` bytes (RFC 9110, 14.1.2): `bytes=first-last`,
 * `bytes=first-` or `bytes=-suffix`, a last past the end meaning the end. `null` when there is no
 * range to serve: no header, another unit, several ranges or a malformed one, for which the whole
 * file is the answer, as the RFC allows. `'unsatisfiable'` for a range that starts past the end, or
 * a zero-length suffix (416).
 */
export function byteRangeOf(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  const m = header ? RANGE.exec(header.trim()) : null;
  if (!m) return null;
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Math.min(Number(last), size);
    return suffix === 0 ? 'unsatisfiable' : { offset: size - suffix, length: suffix };
  }
  const from = Number(first);
  const to = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < from) return null;
  if (from >= size) return 'unsatisfiable';
  return { offset: from, length: to - from + 1 };
}
