import type { Context } from 'hono';
import { validator } from 'hono/validator';
import type { ZodError, ZodType, z } from 'zod';
import { JSON_INVALID, type ValidationIssue, validationError } from './errors';

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

/** Reads a JSON body whatever the Content-Type (curl -d sends form encoding); empty body is `undefined`. */
async function readJsonBody(c: Context, parsedByHono: unknown): Promise<unknown> {
  if (c.req.header('Content-Type')?.toLowerCase().includes('json')) return parsedByHono;
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw validationError(JSON_INVALID);
  }
}

export function parseOrThrow<S extends ZodType>(schema: S, input: unknown, root: string): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw validationError(toValidationIssues(result.error, root));
  return result.data;
}

/** `validate('json', Schema)`: typed `c.req.valid('json')` in the handler, 422 on failure. */
export const validate = <T extends Target, S extends ZodType>(target: T, schema: S) =>
  validator(target, async (value, c) => {
    const input = target === 'json' ? await readJsonBody(c, value) : value;
    return parseOrThrow(schema, input, LOC_ROOT[target]) as z.output<S>;
  });
