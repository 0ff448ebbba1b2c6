import type { Context, MiddlewareHandler } from 'hono';
import { validator } from 'hono/validator';
import type { ZodError, ZodType, z } from 'zod';
import { JSON_INVALID, type ValidationIssue, validationError } from './errors';
import { decodeUtf8, HOSTILE_TEXT, hostileInputIssues } from './input';

/**
 * Request validation that answers the spec's 422 shape everywhere:
 * `{"detail": [{"loc": ["body", "name"], "msg": "...", "type": "..."}]}`.
 * `@hono/zod-validator` would answer 400 with zod's raw result; this is the one hook instead.
 */
type Target = 'json' | 'query' | 'param';
const LOC_ROOT: Record<Target, string> = { json: 'body', query: 'query', param: 'path' };

/** zod issue codes mapped to the type names FastAPI/pydantic clients already know. */
function issueType(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'missing';
      return `${issue.expected}_type`;
    case 'too_small':
      if (issue.origin === 'string') return 'string_too_short';
      if (issue.origin === 'array' || issue.origin === 'set') return 'too_short';
      return issue.inclusive === false ? 'greater_than' : 'greater_than_equal';
    case 'too_big':
      if (issue.origin === 'string') return 'string_too_long';
      if (issue.origin === 'array' || issue.origin === 'set') return 'too_long';
      return issue.inclusive === false ? 'less_than' : 'less_than_equal';
    case 'unrecognized_keys':
      return 'extra_forbidden';
    case 'invalid_value':
      return 'enum';
    case 'invalid_format':
      return issue.format === 'url' ? 'url_parsing' : 'value_error';
    case 'not_multiple_of':
      return 'multiple_of';
    default:
      return 'value_error';
  }
}

export function toValidationIssues(error: ZodError, root: string): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of error.issues) {
    const loc = [root, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        out.push({ loc: [...loc, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
      continue;
    }
    const type = issueType(issue);
    out.push({ loc, msg: type === 'missing' ? 'Field required' : issue.message, type });
  }
  return out;
}

/**
 * The JSON body whatever the Content-Type (curl -d sends form encoding); an empty body is
 * `undefined`. Read from the bytes, not through Hono's `c.req.json()`, which would decode invalid
 * UTF-8 to U+FFFD and store the damage silently.
 */
async function readJsonBody(c: Context): Promise<unknown> {
  const text = decodeUtf8(await c.req.arrayBuffer());
  if (text === null) throw validationError([{ loc: ['body'], ...HOSTILE_TEXT.notUtf8 }]);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw validationError(JSON_INVALID);
  }
}

/**
 * 422 unless `input` is free of hostile text (NUL, lone surrogates, deep nesting: shared/http/input.ts)
 * and matches `schema`. Every body, query and path parameter goes through here.
 */
export function parseOrThrow<S extends ZodType>(schema: S, input: unknown, root: string): z.output<S> {
  const hostile = hostileInputIssues(input, root);
  if (hostile.length > 0) throw validationError(hostile);
  // without options first: any parse option takes zod off its compiled fast path (a tenth of the
  // time for a path parameter); only a refusal parses again, for the inputs its issues report
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const reported = schema.safeParse(input, { reportInput: true });
  throw validationError(toValidationIssues(reported.error ?? result.error, root));
}

/** `validate('json', Schema)`: typed `c.req.valid('json')` in the handler, 422 on failure. */
export const validate = <T extends Target, S extends ZodType>(target: T, schema: S) => {
  const typed = validator(target, (value) => parseOrThrow(schema, value, LOC_ROOT[target]) as z.output<S>);
  if (target !== 'json') return typed;
  // Hono's validator would parse a JSON body itself (lossily, see readJsonBody): same contract, own reader
  const jsonBody: MiddlewareHandler = async (c, next) => {
    // Hono stores whatever its validator returns (an optional body's `undefined` too); its type says `{}`
    c.req.addValidatedData('json', parseOrThrow(schema, await readJsonBody(c), 'body') as object);
    await next();
  };
  return jsonBody as unknown as typeof typed;
};
