import { describe, expect, it } from 'vitest';
import { highlightsOf, matchesIn } from '../../shared/search/highlight';
import { MAX_TERMS, parseQuery, QuerySyntaxError, rangeBounds } from '../../shared/search/query';

const parse = (q: string) => parseQuery(q).clauses;
const failure = (q: string) => {
  try {
    parseQuery(q);
  } catch (err) {
    if (err instanceof QuerySyntaxError)
      return { what: err.what, position: err.position, message: err.message };
    throw err;
  }
  throw new Error(`parsed: ${q}`);
};

describe('search query parser: every construct', () => {
  it('words: each its own clause (all must match)', () => {
    expect(parse('printer  fire')).toEqual([
      [{ kind: 'text', text: 'printer', phrase: false, prefix: false, negated: false, position: 0 }],
      [{ kind: 'text', text: 'fire', phrase: false, prefix: false, negated: false, position: 9 }],
    ]);
  });

  it('phrases keep their inner spaces; a prefix word drops its *', () => {
    expect(parse('"on fire" print*')).toEqual([
      [{ kind: 'text', text: 'on fire', phrase: true, prefix: false, negated: false, position: 0 }],
      [{ kind: 'text', text: 'print', phrase: false, prefix: true, negated: false, position: 10 }],
    ]);
  });

  it('- excludes a word, a phrase or a filter', () => {
    const [a, b, c, d] = parse('printer -smoke -"on fire" -tag:spam');
    expect(a![0]).toMatchObject({ text: 'printer', negated: false });
    expect(b![0]).toMatchObject({ text: 'smoke', negated: true, position: 8 });
    expect(c![0]).toMatchObject({ text: 'on fire', phrase: true, negated: true, position: 15 });
    expect(d![0]).toMatchObject({ kind: 'filter', field: 'tag', value: 'spam', negated: true, position: 26 });
  });

  it('OR joins its neighbours into one clause, chained', () => {
    const clauses = parse('vpn OR wifi OR status:open printer');
    expect(clauses).toHaveLength(2);
    expect(clauses[0]!.map((t) => (t.kind === 'text' ? t.text : t.field))).toEqual(['vpn', 'wifi', 'status']);
    expect(clauses[1]![0]).toMatchObject({ text: 'printer' });
  });

  it('a lower-case or, and OR inside a phrase, are words', () => {
    expect(parse('vpn or wifi')).toHaveLength(3);
    expect(parse('"this OR that"')[0]![0]).toMatchObject({ text: 'this OR that', phrase: true });
  });

  it('filters: field:value, comma lists kept for the compiler, quoted values, custom_fields.<key>', () => {
    expect(parse('status:open,pending')[0]![0]).toEqual({
      kind: 'filter',
      field: 'status',
      op: '=',
      value: 'open,pending',
      negated: false,
      position: 0,
    });
    expect(parse('tag:"needs review"')[0]![0]).toMatchObject({ field: 'tag', value: 'needs review' });
    expect(parse('custom_fields.order_no:A-17')[0]![0]).toMatchObject({
      field: 'custom_fields',
      key: 'order_no',
      value: 'A-17',
    });
    expect(parse('assignee:me')[0]![0]).toMatchObject({ field: 'assignee', value: 'me' });
  });

  it('ranges: created and updated with > >= < <=, written directly or after a colon', () => {
    for (const [q, op] of [
      ['created>7d', '>'],
      ['created>=2026-01-01', '>='],
      ['updated<24h', '<'],
      ['updated<=2026-01-01T10:00:00Z', '<='],
      ['created:>30m', '>'],
      ['created:2026-01-01', '='],
    ] as const)
      expect(parse(q)[0]![0]).toMatchObject({ kind: 'filter', op });
  });

  it('a colon not after a field-shaped name is part of the word', () => {
    expect(parse('10:30')[0]![0]).toMatchObject({ kind: 'text', text: '10:30' });
  });

  it('positions are UTF-16 offsets', () => {
    expect(parse('😀x café')[1]![0]).toMatchObject({ text: 'café', position: 4 });
  });
});

describe('search query parser: every error names what and where', () => {
  it.each([
    ['', 'empty query', 0],
    ['   ', 'empty query', 0],
    ['"open', 'unterminated phrase', 0],
    ['printer "on fire', 'unterminated phrase', 8],
    ['""', 'empty phrase', 0],
    ['"on fire"x', 'a phrase must be followed by a space or the end of the query', 9],
    ['x"on fire"', 'a phrase must stand apart from the word before it', 1],
    ['OR printer', "'OR' needs a term before it", 0],
    ['printer OR', "'OR' needs a term after it", 8],
    ['a OR OR b', "'OR' needs a term before it", 5],
    ['printer -', "'-' needs a term after it", 8],
    ['- printer', "'-' needs a term after it", 0],
    ['-printer', 'a query needs at least one term that is not excluded with -', 0],
    ['-printer OR -fire', 'a query needs at least one term that is not excluded with -', 0],
    ['pri*nt', "'*' goes at the end of a word", 0],
    ['*', "'*' goes at the end of a word", 0],
    ['printer a*', "'a*': a prefix needs at least 3 letters or digits before '*'", 8],
    ['-e-4*', "'e-4*': a prefix needs at least 3 letters or digits before '*'", 0],
    ['!!!', "'!!!' has no letter or digit to search for", 0],
    [
      'colour:red',
      "unknown filter 'colour' (one of status, priority, type, tag, assignee, requester, team, channel, custom_fields, created, updated)",
      0,
    ],
    ['x status.sub:open', "unknown filter 'status.sub'", 2],
    ['custom_fields:1', "'custom_fields' needs a key: custom_fields.<key>:<value>", 0],
    ['status:', "'status' needs a value", 7],
    ['tag:"x"y', 'a phrase must be followed by a space or the end of the query', 7],
    ['status>open', "'status' takes ':' only (comparisons are for created and updated)", 6],
  ])('%j -> %s at position %d', (q, what, position) => {
    expect(failure(q)).toEqual({ what, position, message: `${what} at position ${position}` });
  });

  it('too long and too many terms', () => {
    expect(failure('a'.repeat(1001)).what).toBe('query longer than 1000 characters');
    expect(failure(Array.from({ length: MAX_TERMS + 1 }, (_, i) => `w${i}`).join(' ')).what).toBe(
      `more than ${MAX_TERMS} terms`,
    );
  });
});

describe('range bounds', () => {
  const now = new Date('2026-06-15T12:00:00.000Z');
  const bounds = (q: string) =>
    rangeBounds(parseQuery(q).clauses[0]![0] as never, now).map((b) => [b.op, b.at.toISOString()]);

  it('relative: the instant that long before now (created>7d is within the last 7 days)', () => {
    expect(bounds('created>7d')).toEqual([['>', '2026-06-08T12:00:00.000Z']]);
    expect(bounds('created<24h')).toEqual([['<', '2026-06-14T12:00:00.000Z']]);
    expect(bounds('updated>=30m')).toEqual([['>=', '2026-06-15T11:30:00.000Z']]);
  });

  it('a bound past years 0001-9999 is the same condition at the edge, never a value Postgres refuses', () => {
    const latest = '9999-12-31T23:59:59.999Z';
    const earliest = '0001-01-01T00:00:00.000Z';
    expect(bounds('created>9999-12-31')).toEqual([['>', latest]]);
    expect(bounds('created<=9999-12-31')).toEqual([['<=', latest]]);
    expect(bounds('created:9999-12-31')).toEqual([
      ['>=', '9999-12-31T00:00:00.000Z'],
      ['<=', latest],
    ]);
    expect(bounds('created:0000-01-01')).toEqual([
      ['>=', earliest],
      ['<', earliest],
    ]);
    expect(bounds('created>999999d')).toEqual([['>=', earliest]]);
    expect(bounds('created<999999d')).toEqual([['<', earliest]]);
    expect(bounds('created>9999-12-31T23:59:59-12:00')).toEqual([['>', latest]]);
  });

  it('a date is its whole UTC day', () => {
    expect(bounds('created:2026-05-01')).toEqual([
      ['>=', '2026-05-01T00:00:00.000Z'],
      ['<', '2026-05-02T00:00:00.000Z'],
    ]);
    expect(bounds('created>2026-05-01')).toEqual([['>=', '2026-05-02T00:00:00.000Z']]);
    expect(bounds('created<=2026-05-01')).toEqual([['<', '2026-05-02T00:00:00.000Z']]);
    expect(bounds('created<2026-05-01')).toEqual([['<', '2026-05-01T00:00:00.000Z']]);
    expect(bounds('created>=2026-05-01')).toEqual([['>=', '2026-05-01T00:00:00.000Z']]);
  });

  it('a date-time with its offset', () => {
    expect(bounds('updated<2026-05-01T10:00:00+02:00')).toEqual([['<', '2026-05-01T08:00:00.000Z']]);
  });

  it.each(['created>yesterday', 'created>2026-02-30', 'created>7w', 'created>2026-05-01T10:00'])(
    '%s is refused at the term',
    (q) => {
      expect(() => bounds(q)).toThrow(QuerySyntaxError);
    },
  );
});

describe('highlights', () => {
  it('whole words, case-folded; prefixes; phrases as a run of words', () => {
    expect(matchesIn('Printer on fire, printers too', [{ text: 'printer', prefix: false }])).toEqual([
      [0, 7],
    ]);
    expect(matchesIn('Printer on fire, printers too', [{ text: 'print', prefix: true }])).toEqual([
      [0, 7],
      [17, 25],
    ]);
    expect(matchesIn('the printer on fire', [{ text: 'on fire', prefix: false }])).toEqual([[12, 19]]);
  });

  it('offsets count UTF-16 code units', () => {
    const text = '😀 Café au lait';
    const [[s, e]] = matchesIn(text, [{ text: 'café', prefix: false }]) as [[number, number]];
    expect(text.slice(s, e)).toBe('Café');
    expect([s, e]).toEqual([3, 7]);
  });

  it('a long field is cut to a window around its first match, offsets into the window', () => {
    const text = `${'lorem ipsum '.repeat(40)}the printer is here${' dolor sit'.repeat(40)}`;
    const [h] = highlightsOf([['description', text]], [{ text: 'printer', prefix: false }]);
    expect(h!.fragment.length).toBeLessThanOrEqual(200);
    const [[s, e]] = h!.matches as [[number, number]];
    expect(h!.fragment.slice(s, e)).toBe('printer');
  });

  it("a word matches by a shared stem when the language's stems are given, phrases included", () => {
    const stems = new Map([
      ['printers', ['printer']],
      ['printer', ['printer']],
      ['jamming', ['jam']],
      ['jams', ['jam']],
      ['on', []],
      ['hold', ['hold']],
    ]);
    const text = 'All printers on hold, jamming';
    const at = (ms: [number, number][]) => ms.map(([s, e]) => text.slice(s, e));
    expect(at(matchesIn(text, [{ text: 'printer', prefix: false }], stems))).toEqual(['printers']);
    expect(at(matchesIn(text, [{ text: 'jams', prefix: false }], stems))).toEqual(['jamming']);
    expect(at(matchesIn(text, [{ text: 'printer on hold', prefix: false }], stems))).toEqual([
      'printers on hold',
    ]);
    // a stop word has no stem: it matches as written only
    expect(matchesIn('printers in hold', [{ text: 'printer on hold', prefix: false }], stems)).toEqual([]);
    // without stems, only the words as written
    expect(matchesIn(text, [{ text: 'printer', prefix: false }])).toEqual([]);
  });

  it('fields without a match give no highlight', () => {
    expect(
      highlightsOf(
        [
          ['subject', 'VPN drops'],
          ['description', null],
        ],
        [{ text: 'printer', prefix: false }],
      ),
    ).toEqual([]);
  });
});
