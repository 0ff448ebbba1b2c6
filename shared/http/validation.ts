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
const MESSAGE: Record<string, string> = {
  missing: 'Field required',
  extra_forbidden: 'Extra inputs are not permitted',
};

export function toValidationIssues(error: z.core.$ZodError, root: string): ValidationIssue[] {
  return error.issues.flatMap((issue) => {
    const loc = [root, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    const type = ISSUE_TYPE[issue.code]?.(issue) ?? 'value_error';
    const msg = MESSAGE[type] ?? issue.message;
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
 * inputs its issues report (a missing field is told from a wrong one by its input).
 */
export const parseFast = <S extends z.ZodType>(schema: S, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? result : schema.safeParse(value, { reportInput: true });
};
