import type { Context, MiddlewareHandler } from 'hono';
import { JSON_INVALID, validationError } from './errors';
import { HOSTILE_TEXT, MAX_JSON_DEPTH, type ValidationIssue } from './issues';
import { LOC_ROOT, type Target } from './validation';

/**
 * What no request may carry, whatever its schema says (docs/input.md): checked once, by the
 * middleware in front of each route's zValidator (`inputGuard`, shared/http/route.ts), before zod
 * and long before Postgres, which refuses NUL in `text` and `jsonb` and lone surrogates in `jsonb`.
 */

export { HOSTILE_TEXT, MAX_JSON_DEPTH };

// With the `u` flag a surrogate pair is one code point, so the class matches lone halves only.
const FORBIDDEN_CHAR = /[\0\ud800-\udfff]/u;

function textIssue(text: string, loc: (string | number)[]): ValidationIssue | null {
  const hit = FORBIDDEN_CHAR.exec(text);
  if (!hit) return null;
  return { loc, ...(hit[0] === '\0' ? HOSTILE_TEXT.nul : HOSTILE_TEXT.surrogate) };
}

/**
 * Every string (object keys too: they land in jsonb), every number and the nesting of `value`, as
 * 422 issues located like zod's (`["body", "custom_attrs", "a"]`). Stops at the first problem of
 * each string; never descends past MAX_JSON_DEPTH, so a 10,000-deep document costs 32 steps down
 * one branch.
 */
export function hostileInputIssues(value: unknown, root: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  visit(value, [root], 0, issues);
  return issues;
}

// A module-level function, not a closure made per call: every request's parameters come through
// here, and under tsx (`npm start`) each closure created also pays a `__name` property definition.
function visit(v: unknown, loc: (string | number)[], depth: number, issues: ValidationIssue[]): void {
  if (typeof v === 'string') {
    const issue = textIssue(v, loc);
    if (issue) issues.push(issue);
    return;
  }
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) issues.push({ loc, ...HOSTILE_TEXT.notFinite });
    return;
  }
  if (v === null || typeof v !== 'object') return;
  if (depth >= MAX_JSON_DEPTH) {
    issues.push({ loc, ...HOSTILE_TEXT.tooDeep });
    return;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) visit(v[i], [...loc, i], depth + 1, issues);
    return;
  }
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    // the path is built only for what is looked into: a plain string value needs none unless it fails
    const child = (v as Record<string, unknown>)[key];
    if (FORBIDDEN_CHAR.test(key)) {
      issues.push(textIssue(key, [...loc, key])!);
      continue;
    }
    if (typeof child === 'string') {
      if (FORBIDDEN_CHAR.test(child)) issues.push(textIssue(child, [...loc, key])!);
    } else if (typeof child === 'number') {
      if (!Number.isFinite(child)) issues.push({ loc: [...loc, key], ...HOSTILE_TEXT.notFinite });
    } else if (child !== null && typeof child === 'object') visit(child, [...loc, key], depth + 1, issues);
  }
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body's bytes as text; `null` when they are not UTF-8 (no silent U+FFFD in stored data). */
export function decodeUtf8(bytes: ArrayBuffer): string | null {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
}

/** Hono's validator reads a body as JSON only for these media types (hono/validator). */
const JSON_MEDIA = /^application\/([\w.-]+\+)?json$/i;
const mediaType = (contentType: string | undefined) => contentType?.split(';', 1)[0]?.trim() ?? '';

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
 * The body, read and checked here, is what the zValidator behind reads: Hono's JSON validator asks
 * `c.req.json()` (answered with this value, not parsed again) and only under a JSON media type, so
 * a body sent under another type is handed on as the JSON it is, as Hono's bodyLimit hands on its
 * own reading of a body (a new `c.req.raw`).
 */
function handOn(c: Context, body: unknown): void {
  if (!JSON_MEDIA.test(mediaType(c.req.header('content-type')))) {
    const headers = new Headers(c.req.raw.headers);
    headers.set('content-type', 'application/json');
    c.req.raw = new Request(c.req.raw, {
      headers,
      body: body === undefined ? null : JSON.stringify(body),
      duplex: 'half',
    } as RequestInit);
  }
  c.req.json = <T>() => Promise.resolve(body as T);
}

/** A query string as Hono's validator hands it to zod: one value a string, a repeated one a list. */
const queryOf = (c: Context) =>
  Object.fromEntries(Object.entries(c.req.queries()).map(([k, v]) => [k, v.length === 1 ? v[0] : v]));

/** What each target's zValidator will read, for the checks zod cannot make. */
const INPUT_OF: Record<Target, (c: Context) => unknown> = {
  param: (c) => c.req.param(),
  query: queryOf,
  json: readJsonBody,
};

/**
 * The middleware in front of a route's zValidator for `target` (path, query or JSON body): 422
 * when the input has hostile text, nests too deep, or (a body) is not UTF-8 or not JSON.
 */
export function inputGuard(target: Target): MiddlewareHandler {
  const read = INPUT_OF[target];
  const root = LOC_ROOT[target];
  return async function inputGuard(c, next) {
    const input = await read(c);
    const hostile = hostileInputIssues(input, root);
    if (hostile.length > 0) throw validationError(hostile);
    if (target === 'json') handOn(c, input);
    await next();
  };
}
