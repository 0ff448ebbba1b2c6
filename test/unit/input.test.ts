import { describe, expect, it } from 'vitest';
import { decodeUtf8, hostileInputIssues, MAX_JSON_DEPTH } from '../../shared/http/input';

const nest = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};

describe('hostile input guard (shared/http/input.ts)', () => {
  it('finds NUL and lone surrogates in values and keys, located like zod', () => {
    expect(hostileInputIssues({ a: 'x\u0000', b: ['ok', '\udc00'], ['k\ud800']: 1 }, 'body')).toEqual([
      { loc: ['body', 'a'], msg: expect.any(String), type: 'string_nul' },
      { loc: ['body', 'b', 1], msg: expect.any(String), type: 'string_unicode' },
      { loc: ['body', 'k\ud800'], msg: expect.any(String), type: 'string_unicode' },
    ]);
  });

  it('passes surrogate pairs, RTL, zero-width and every other ordinary text', () => {
    expect(
      hostileInputIssues({ s: '😀 \u202e\u200b é 中', n: 1e300, z: -0, t: true, u: null }, 'body'),
    ).toEqual([]);
    expect(hostileInputIssues('😀', 'query')).toEqual([]);
  });

  it(`allows ${MAX_JSON_DEPTH} levels of containers, refuses one more`, () => {
    expect(hostileInputIssues(nest(MAX_JSON_DEPTH), 'body')).toEqual([]);
    const [issue, ...rest] = hostileInputIssues(nest(MAX_JSON_DEPTH + 1), 'body');
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ type: 'json_too_deep' });
    expect(issue?.loc).toEqual(['body', ...Array(MAX_JSON_DEPTH).fill(0)]);
  });

  it('a 100,000-deep document costs the limit, not its depth', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(hostileInputIssues(deep, 'body')[0]?.type).toBe('json_too_deep');
  });

  it('query and path objects: each value named', () => {
    expect(hostileInputIssues({ q: 'a\u0000', tag: ['x', 'y\u0000'] }, 'query').map((i) => i.loc)).toEqual([
      ['query', 'q'],
      ['query', 'tag', 1],
    ]);
  });

  it('decodes strict UTF-8 only', () => {
    expect(decodeUtf8(new TextEncoder().encode('héllo 😀').buffer as ArrayBuffer)).toBe('héllo 😀');
    expect(decodeUtf8(new Uint8Array([0x61, 0xff, 0x62]).buffer)).toBeNull();
    expect(decodeUtf8(new Uint8Array([0xed, 0xa0, 0x80]).buffer)).toBeNull(); // a UTF-8-encoded surrogate
  });
});
