import type { ValidationIssue } from './issues';

/**
 * What no request may carry, whatever its schema says (docs/input.md): checked once, where a JSON
 * body, a query string or a path parameter enters (shared/http/validation.ts), before zod and long
 * before Postgres, which refuses NUL in `text` and `jsonb` and lone surrogates in `jsonb`.
 */

/**
 * Containers (objects and arrays) a JSON body may nest, the body itself counting as one. Real
 * documents (custom attributes, message metadata) use a handful; 32 stays far below every consumer
 * of what we store (Postgres jsonb, JSON.stringify in webhook payloads, clients' own parsers:
 * serde_json's default 128, Python's recursion limit ~1000), so a stored document can always be
 * read back and delivered.
 */
export const MAX_JSON_DEPTH = 32;

/** The problems and the issue each becomes. */
export const HOSTILE_TEXT = {
  nul: { msg: 'Text must not contain the NUL character (U+0000)', type: 'string_nul' },
  surrogate: { msg: 'Text must be valid Unicode (lone surrogate)', type: 'string_unicode' },
  tooDeep: { msg: `JSON must not nest deeper than ${MAX_JSON_DEPTH} levels`, type: 'json_too_deep' },
  notUtf8: { msg: 'Request body is not valid UTF-8', type: 'json_invalid' },
  // JSON.parse reads 1e309 as Infinity, which JSON cannot write back: stored as-is it comes back null
  notFinite: { msg: 'Number is out of range (larger than a double can hold)', type: 'number_not_finite' },
} as const;

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
