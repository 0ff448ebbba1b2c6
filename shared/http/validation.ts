import type { Hook } from '@hono/zod-validator';
import type { z } from 'zod';
import type { AppEnv } from '../context/app-env';
import { type ValidationIssue, validationError } from './errors';

/**
 * The one hook every `zValidator` of a route takes (shared/http/route.ts): zod's issues become the
 * spec's 422 `{"detail": [{"loc": ["body", "name"], "msg": "...", "type": "..."}]}`, with the type
 * names FastAPI/pydantic clients already know. What zod cannot see (the body's bytes, NUL, depth)
 * is refused before it, by shared/http/input.ts.
 */
export type Target = 'json' | 'query' | 'param';
export const LOC_ROOT: Record<Target, string> = { json: 'body', query: 'query', param: 'path' };

type Issue = z.core.$ZodIssue;
type Bounded = Extract<Issue, { code: 'too_small' | 'too_big' }>;

/** A bound's type by what it bounds: a string's length, a list's size, or a number (`>` or `>=`). */
const boundType =
  (words: { string: string; list: string; exclusive: string; inclusive: string }) => (issue: Issue) => {
    const { origin, inclusive } = issue as Bounded;
    if (origin === 'string') return words.string;
    if (origin === 'array' || origin === 'set') return words.list;
    return inclusive === false ? words.exclusive : words.inclusive;
  };

/** zod issue code -> the 422 `type`; a code not listed is a `value_error`. */
const ISSUE_TYPE: Partial<Record<Issue['code'], (issue: Issue) => string>> = {
  invalid_type: (issue) =>
    issue.input === undefined
      ? 'missing'
      : `${(issue as Extract<Issue, { code: 'invalid_type' }>).expected}_type`,
  too_small: boundType({
    string: 'string_too_short',
    list: 'too_short',
    exclusive: 'greater_than',
    inclusive: 'greater_than_equal',
  }),
  too_big: boundType({
    string: 'string_too_long',
    list: 'too_long',
    exclusive: 'less_than',
    inclusive: 'less_than_equal',
  }),
  unrecognized_keys: () => 'extra_forbidden',
  invalid_value: () => 'enum',
  invalid_format: (issue) =>
    (issue as Extract<Issue, { code: 'invalid_format' }>).format === 'url' ? 'url_parsing' : 'value_error',
  not_multiple_of: () => 'multiple_of',
};

/** The message of a type where it is not zod's own (an unknown key is one issue per key). */
const MESSAGE = {
  missing: 'Field required',
  extra_forbidden: 'Extra inputs are not permitted',
} as const;

/** What a value of zod's `expected` is, in words: `Input should be a valid ${...}`. */
const KIND: Record<string, string> = {
  string: 'string',
  number: 'number',
  int: 'integer',
  bigint: 'integer',
  boolean: 'boolean',
  array: 'list',
  object: 'object',
  record: 'object',
  map: 'object',
  date: 'date',
};
/** `a string`, `an integer`, `null`: a kind as one branch of a union names it */
const aKind = (expected: string) =>
  expected === 'null'
    ? 'null'
    : /^[aeiou]/.test(KIND[expected] ?? expected)
      ? `an ${KIND[expected] ?? expected}`
      : `a ${KIND[expected] ?? expected}`;

/** What an invalid_format's `format` asks for, in words (a format not listed: "a valid <format>"). */
const A_FORMAT: Record<string, string> = {
  email: 'a valid email address',
  url: 'a valid URL',
  datetime: 'an ISO 8601 date-time (2026-03-14T09:26:53Z)',
  date: 'a date (YYYY-MM-DD)',
  time: 'a time (HH:MM:SS)',
  uuid: 'a valid UUID',
};
const aFormat = (format: string) => A_FORMAT[format] ?? `a valid ${format}`;

const quoted = (v: unknown) => (typeof v === 'string' ? `'${v}'` : String(v));
/** `['a', 'b', 'c']` -> `a, b or c` */
const orList = (words: readonly string[]) =>
  words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
const plural = (n: unknown, word: string) => `${String(n)} ${word}${n === 1 || n === 1n ? '' : 's'}`;

/** What one branch of a union wanted, from its first issue, where that can be said in a few words. */
function branchWanted(issues: readonly Issue[]): string | null {
  const [first] = issues;
  if (!first) return null;
  const inList = first.path.length === 1 && typeof first.path[0] === 'number';
  if (first.code === 'invalid_type' && first.path.length === 0) return aKind(first.expected);
  if (first.code === 'invalid_type' && inList) return `a list of ${KIND[first.expected] ?? first.expected}s`;
  if (first.code === 'invalid_format' && first.path.length === 0) return aFormat(first.format);
  if (first.code === 'invalid_value' && first.path.length === 0) return orList(first.values.map(quoted));
  return null;
}

/** The schema of a union, as the error map sees it (its raw issue carries the schema). */
type SchemaDef = { _zod: { def: { type: string; element?: SchemaDef; options?: SchemaDef[] } } };
type UnionInst = { inst?: SchemaDef };

/** `a list of strings` for a union's list branch, which its issue alone ("not a list") cannot say */
function listOf(option: SchemaDef | undefined): string | null {
  const element = option?._zod.def.type === 'array' ? option._zod.def.element?._zod.def.type : undefined;
  return element && KIND[element] ? `a list of ${KIND[element]}s` : null;
}

/** A bound in words: a string's characters, a list's items, or a number's limit. */
function boundMessage(issue: Bounded): string {
  const small = issue.code === 'too_small';
  const limit = small ? issue.minimum : issue.maximum;
  const most = small ? 'at least' : 'at most';
  if (issue.origin === 'string') return `String should have ${most} ${plural(limit, 'character')}`;
  if (issue.origin === 'array' || issue.origin === 'set')
    return `List should have ${most} ${plural(limit, 'item')}`;
  const than = small ? 'greater than' : 'less than';
  return `Input should be ${than}${issue.inclusive === false ? '' : ' or equal to'} ${String(limit)}`;
}

/**
 * The message of every zod issue a schema gives no message of its own, in the words FastAPI/pydantic
 * clients know ("Input should be a valid integer"): zod's defaults ("Invalid input: expected int,
 * received number", "Too small: expected string to have >=1 characters", "Invalid option: expected
 * one of …") never reach a 422. A schema's own message (`.max(200, '…')`, a refine's) wins over these.
 */
const MESSAGE_OF: { [C in Issue['code']]: (issue: Extract<Issue, { code: C }>) => string } = {
  invalid_type: (issue) =>
    issue.input === undefined
      ? MESSAGE.missing
      : issue.expected === 'null'
        ? 'Input should be null'
        : `Input should be a valid ${KIND[issue.expected] ?? issue.expected}`,
  too_small: boundMessage,
  too_big: boundMessage,
  invalid_value: (issue) => `Input should be ${orList(issue.values.map(quoted))}`,
  invalid_format: (issue) =>
    issue.format === 'regex' ||
    issue.format === 'starts_with' ||
    issue.format === 'ends_with' ||
    issue.format === 'includes'
      ? `String should match pattern ${issue.pattern ?? ''}`.trim()
      : `Input should be ${aFormat(issue.format)}`,
  not_multiple_of: (issue) => `Input should be a multiple of ${String(issue.divisor)}`,
  unrecognized_keys: () => MESSAGE.extra_forbidden,
  invalid_union: (issue) => {
    // a discriminated union names the field that picks the variant
    if ('options' in issue && Array.isArray(issue.options))
      return `Input should be ${orList(issue.options.map(quoted))}`;
    const options = (issue as UnionInst).inst?._zod.def.options ?? [];
    const wanted = issue.errors.map((errors, i) => listOf(options[i]) ?? branchWanted(errors));
    if (wanted.length > 0 && wanted.every((w) => w !== null))
      return `Input should be ${orList([...new Set(wanted)])}`;
    return 'Input matches none of the accepted forms (the schema lists them)';
  },
  invalid_key: (issue) => `Key ${quoted(issue.input)} is not valid: ${issue.issues[0]?.message ?? 'refused'}`,
  invalid_element: (issue) =>
    `Element ${quoted(issue.input)} is not valid: ${issue.issues[0]?.message ?? 'refused'}`,
  custom: () => 'Value is not valid',
};

/** zod's per-parse error map: consulted only for the issues a schema left without a message. */
const errorMap = (issue: z.core.$ZodRawIssue) =>
  (MESSAGE_OF[issue.code as Issue['code']] as ((i: z.core.$ZodRawIssue) => string) | undefined)?.(issue);

/**
 * A query parameter given more than once reaches its schema as a list (`?limit=1&limit=2`), where
 * "Input should be a valid string" would puzzle whoever wrote it once per value.
 */
const REPEATED_PARAMETER =
  'Input should be one value: give the parameter once (a comma list where it takes several)';
const repeatedParameter = (issue: Issue, root: string) =>
  root === LOC_ROOT.query &&
  issue.code === 'invalid_type' &&
  issue.expected !== 'array' &&
  issue.path.length === 1 &&
  Array.isArray(issue.input);

export function toValidationIssues(error: z.core.$ZodError, root: string): ValidationIssue[] {
  return error.issues.flatMap((issue) => {
    const loc = [root, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    const type = ISSUE_TYPE[issue.code]?.(issue) ?? 'value_error';
    const msg = repeatedParameter(issue, root)
      ? REPEATED_PARAMETER
      : ((MESSAGE as Record<string, string | undefined>)[type] ?? issue.message);
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({ loc: [...loc, key], msg, type }));
    return [{ loc, msg, type }];
  });
}

/** The hook: 422 in the spec's shape on failure; on success zValidator stores the parsed value. */
// biome-ignore lint/complexity/noBannedTypes: zValidator's type for "no typed response"
export const toSpecShape: Hook<unknown, AppEnv, string, Target, {}, z.ZodType> = (result) => {
  if (!result.success) throw validationError(toValidationIssues(result.error, LOC_ROOT[result.target]));
};

/**
 * zValidator's parse: without options first, since any parse option takes zod off its compiled
 * fast path (a tenth of the time for a path parameter); only a refusal parses again, with the
 * inputs its issues report (a missing field is told from a wrong one by its input) and the messages
 * of MESSAGE_OF where the schema has none.
 */
export const parseFast = <S extends z.ZodType>(schema: S, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? result : schema.safeParse(value, { reportInput: true, error: errorMap });
};
