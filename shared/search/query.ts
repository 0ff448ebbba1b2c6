/**
 * The search query language (docs/search.md), parsed once here for every search endpoint:
 *
 *   query   = clause { space clause }            every clause must hold
 *   clause  = term { space "OR" space term }     any term of a clause may hold
 *   term    = [ "-" ] ( phrase | filter | word )
 *   phrase  = '"' { any but '"' } '"'
 *   filter  = field ( ":" value | op value )     op: > >= < <= (created, updated; also after ":")
 *   word    = { any but space and '"' } [ "*" ]  a trailing * matches the word as a prefix
 *
 * Positions are offsets into the query in UTF-16 code units, from 0 (what JavaScript's own string
 * indexes count), so an error's position can be used on the client as it is.
 */

import { EARLIEST_MS, LATEST_MS } from '../http/instants';

export const FILTER_FIELDS = [
  'status',
  'priority',
  'type',
  'tag',
  'assignee',
  'requester',
  'team',
  'channel',
  'custom_fields',
  'created',
  'updated',
] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

export const RANGE_FIELDS: readonly FilterField[] = ['created', 'updated'];
export type Comparison = '=' | '>' | '>=' | '<' | '<=';

export interface TextTerm {
  kind: 'text';
  /** the word or the phrase as written (a prefix word without its `*`) */
  text: string;
  phrase: boolean;
  prefix: boolean;
  negated: boolean;
  position: number;
}

export interface FilterTerm {
  kind: 'filter';
  field: FilterField;
  /** `custom_fields.<key>`: the key */
  key?: string;
  op: Comparison;
  value: string;
  negated: boolean;
  position: number;
}

export type Term = TextTerm | FilterTerm;

/** Every clause must hold; a clause holds when any of its terms does. */
export interface SearchQuery {
  clauses: Term[][];
}

/** What is wrong with a query and where: answered as a 422 at `["query", "query"]`. */
export class QuerySyntaxError extends Error {
  constructor(
    readonly what: string,
    readonly position: number,
  ) {
    super(`${what} at position ${position}`);
  }
}

export const MAX_QUERY_LENGTH = 1000;
export const MAX_TERMS = 32;
/** letters or digits a prefix word (`pri*`) holds at least */
export const MIN_PREFIX = 3;

const SPACE = /\s/;
const FIELD_NAME = /^([a-z_]+)(?:\.([a-z0-9_]{1,64}))?$/;
const COMPARISONS: readonly Comparison[] = ['>=', '<=', '>', '<'];

/** Parses a query, or throws QuerySyntaxError naming the first thing wrong and its position. */
export function parseQuery(input: string): SearchQuery {
  if (input.length > MAX_QUERY_LENGTH)
    throw new QuerySyntaxError(`query longer than ${MAX_QUERY_LENGTH} characters`, MAX_QUERY_LENGTH);
  const tokens = tokenize(input);
  if (tokens.length === 0) throw new QuerySyntaxError('empty query', 0);
  const clauses: Term[][] = [];
  let pendingOr: Token | null = null;
  for (const token of tokens) {
    if (token.kind === 'or') {
      if (clauses.length === 0 || pendingOr)
        throw new QuerySyntaxError("'OR' needs a term before it", token.position);
      pendingOr = token;
      continue;
    }
    if (pendingOr) clauses[clauses.length - 1]!.push(token.term);
    else clauses.push([token.term]);
    pendingOr = null;
  }
  if (pendingOr) throw new QuerySyntaxError("'OR' needs a term after it", pendingOr.position);
  const count = clauses.reduce((n, c) => n + c.length, 0);
  if (count > MAX_TERMS) throw new QuerySyntaxError(`more than ${MAX_TERMS} terms`, 0);
  if (!clauses.some((c) => c.every((t) => !t.negated)))
    throw new QuerySyntaxError('a query needs at least one term that is not excluded with -', 0);
  return { clauses };
}

type Token = { kind: 'or'; position: number } | { kind: 'term'; term: Term; position: number };

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    if (SPACE.test(input[i]!)) {
      i++;
      continue;
    }
    const start = i;
    const negated = input[i] === '-';
    if (negated) {
      i++;
      if (i >= input.length || SPACE.test(input[i]!))
        throw new QuerySyntaxError("'-' needs a term after it", start);
    }
    if (input[i] === '"') {
      const { text, end } = readPhrase(input, i);
      if (text.trim() === '') throw new QuerySyntaxError('empty phrase', i);
      tokens.push({ kind: 'term', position: start, term: textTerm(text, true, false, negated, start) });
      i = end;
      continue;
    }
    let end = i;
    while (
      end < input.length &&
      !SPACE.test(input[end]!) &&
      input[end] !== '"' &&
      !isOperatorAt(input, end, i)
    )
      end++;
    const word = input.slice(i, end);
    const op = operatorAt(input, end);
    if (op || input[end] === ':') {
      const { term, next } = readFilter(input, word, i, end, op, negated, start);
      tokens.push({ kind: 'term', position: start, term });
      i = next;
      continue;
    }
    if (input[end] === '"')
      throw new QuerySyntaxError('a phrase must stand apart from the word before it', end);
    if (word === 'OR' && !negated) tokens.push({ kind: 'or', position: start });
    else tokens.push({ kind: 'term', position: start, term: wordTerm(word, negated, start) });
    i = end;
  }
  return tokens;
}

/**
 * `:` or a comparison right after something shaped like a field name ends the name
 * (`created>=2026-01-01`, `status:open`); elsewhere it is part of a word (`10:30`).
 */
function isOperatorAt(input: string, at: number, wordStart: number): boolean {
  const c = input[at];
  if (c !== ':' && c !== '>' && c !== '<') return false;
  return FIELD_NAME.test(input.slice(wordStart, at));
}

function operatorAt(input: string, at: number): Comparison | null {
  for (const op of COMPARISONS) if (input.startsWith(op, at)) return op;
  return null;
}

function readPhrase(input: string, quote: number): { text: string; end: number } {
  const close = input.indexOf('"', quote + 1);
  if (close < 0) throw new QuerySyntaxError('unterminated phrase', quote);
  const after = input[close + 1];
  if (after !== undefined && !SPACE.test(after))
    throw new QuerySyntaxError('a phrase must be followed by a space or the end of the query', close + 1);
  return { text: input.slice(quote + 1, close), end: close + 1 };
}

function readFilter(
  input: string,
  name: string,
  nameStart: number,
  nameEnd: number,
  directOp: Comparison | null,
  negated: boolean,
  start: number,
): { term: FilterTerm; next: number } {
  const match = FIELD_NAME.exec(name);
  const field = match?.[1] as FilterField | undefined;
  if (!match || !field || !FILTER_FIELDS.includes(field))
    throw new QuerySyntaxError(`unknown filter '${name}' (one of ${FILTER_FIELDS.join(', ')})`, nameStart);
  const key = match[2];
  if (field === 'custom_fields' && !key)
    throw new QuerySyntaxError("'custom_fields' needs a key: custom_fields.<key>:<value>", nameStart);
  if (field !== 'custom_fields' && key) throw new QuerySyntaxError(`unknown filter '${name}'`, nameStart);
  let at = nameEnd;
  let op: Comparison = '=';
  if (directOp) {
    op = directOp;
    at += directOp.length;
  } else {
    at += 1; // the ':'
    const after = operatorAt(input, at);
    if (after) {
      op = after;
      at += after.length;
    }
  }
  if (op !== '=' && !RANGE_FIELDS.includes(field))
    throw new QuerySyntaxError(
      `'${field}' takes ':' only (comparisons are for created and updated)`,
      nameEnd,
    );
  let value: string;
  let next: number;
  if (input[at] === '"') {
    const phrase = readPhrase(input, at);
    value = phrase.text;
    next = phrase.end;
  } else {
    next = at;
    while (next < input.length && !SPACE.test(input[next]!) && input[next] !== '"') next++;
    value = input.slice(at, next);
    if (input[next] === '"')
      throw new QuerySyntaxError('a phrase must stand apart from the value before it', next);
  }
  if (value === '') throw new QuerySyntaxError(`'${name}' needs a value`, at);
  const term: FilterTerm = { kind: 'filter', field, op, value, negated, position: start };
  if (key) term.key = key;
  return { term, next };
}

function wordTerm(word: string, negated: boolean, position: number): TextTerm {
  const prefix = word.endsWith('*');
  const text = prefix ? word.slice(0, -1) : word;
  if (text === '' || text.includes('*'))
    throw new QuerySyntaxError("'*' goes at the end of a word", position);
  // a prefix reads every indexed word it starts: one or two characters start most of a tenant's
  if (prefix && (text.match(/[\p{L}\p{N}]/gu)?.length ?? 0) < MIN_PREFIX)
    throw new QuerySyntaxError(
      `'${word}': a prefix needs at least ${MIN_PREFIX} letters or digits before '*'`,
      position,
    );
  return textTerm(text, false, prefix, negated, position);
}

function textTerm(
  text: string,
  phrase: boolean,
  prefix: boolean,
  negated: boolean,
  position: number,
): TextTerm {
  if (!/[\p{L}\p{N}]/u.test(text))
    throw new QuerySyntaxError(`'${text}' has no letter or digit to search for`, position);
  return { kind: 'text', text, phrase, prefix, negated, position };
}

const RELATIVE = /^(\d{1,6})([dhm])$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;
const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000 } as const;

/**
 * The bounds a `created`/`updated` term puts on its column. A relative value is the instant that
 * long before now, so `created>7d` reads "created after the instant 7 days ago": within the last 7
 * days, and `created<7d` before it. A date is a whole day in UTC: `created:2026-05-01` is that day,
 * `created<=2026-05-01` includes it (before the next midnight), `created>2026-05-01` starts after it.
 */
export function rangeBounds(term: FilterTerm, now: Date): Bound[] {
  return unclampedBounds(term, now).map(storableBound);
}

type Bound = { op: Exclude<Comparison, '='>; at: Date };

/**
 * A bound past the instants a column can hold (years 0001-9999: shared/http/instants.ts) as the same
 * condition at the range's edge: `created>9999-12-31` starts at 10000-01-01, and `created>999999d`
 * or a date in year 0000 before year 1, which Postgres would refuse as a parameter.
 */
function storableBound({ op, at }: Bound): Bound {
  const ms = at.getTime();
  if (ms > LATEST_MS) return { op: op === '>' || op === '>=' ? '>' : '<=', at: new Date(LATEST_MS) };
  if (ms < EARLIEST_MS) return { op: op === '<' || op === '<=' ? '<' : '>=', at: new Date(EARLIEST_MS) };
  return { op, at };
}

function unclampedBounds(term: FilterTerm, now: Date): Bound[] {
  const relative = RELATIVE.exec(term.value);
  if (relative) {
    const at = new Date(now.getTime() - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS]);
    return [{ op: term.op === '=' ? '>=' : term.op, at }];
  }
  if (DATE.test(term.value)) {
    const day = new Date(`${term.value}T00:00:00Z`);
    if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== term.value)
      throw new QuerySyntaxError(`'${term.value}' is not a date`, term.position);
    const next = new Date(day.getTime() + UNIT_MS.d);
    const bounds = {
      '>': [{ op: '>=', at: next }],
      '>=': [{ op: '>=', at: day }],
      '<': [{ op: '<', at: day }],
      '<=': [{ op: '<', at: next }],
      '=': [
        { op: '>=', at: day },
        { op: '<', at: next },
      ],
    } as const;
    return [...bounds[term.op]];
  }
  if (INSTANT.test(term.value)) {
    const at = new Date(term.value);
    if (!Number.isNaN(at.getTime()))
      return term.op === '='
        ? [
            { op: '>=', at },
            { op: '<=', at },
          ]
        : [{ op: term.op, at }];
  }
  throw new QuerySyntaxError(
    `'${term.value}' is not a date (YYYY-MM-DD), a date-time or a relative time (7d, 24h, 30m)`,
    term.position,
  );
}
