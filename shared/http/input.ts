import type { ValidationIssue } from './errors';

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
} as const;

// With the `u` flag a surrogate pair is one code point, so the class matches lone halves only.
const FORBIDDEN_CHAR = /[\0\ud800-\udfff]/u;

function textIssue(text: string, loc: (string | number)[]): ValidationIssue | null {
  const hit = FORBIDDEN_CHAR.exec(text);
  if (!hit) return null;
  return { loc, ...(hit[0] === '\0' ? HOSTILE_TEXT.nul : HOSTILE_TEXT.surrogate) };
}

/**
 * Every string (object keys too: they land in jsonb) and the nesting of `value`, as 422 issues
 * located like zod's (`["body", "custom_attrs", "a"]`). Stops at the first problem of each string;
 * never descends past MAX_JSON_DEPTH, so a 10,000-deep document costs 32 steps down one branch.
 */
export function hostileInputIssues(value: unknown, root: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const visit = (v: unknown, loc: (string | number)[], depth: number): void => {
    if (typeof v === 'string') {
      const issue = textIssue(v, loc);
      if (issue) issues.push(issue);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    if (depth >= MAX_JSON_DEPTH) {
      issues.push({ loc, ...HOSTILE_TEXT.tooDeep });
      return;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) visit(v[i], [...loc, i], depth + 1);
      return;
    }
    for (const [key, child] of Object.entries(v)) {
      const keyIssue = textIssue(key, [...loc, key]);
      if (keyIssue) issues.push(keyIssue);
      else visit(child, [...loc, key], depth + 1);
    }
  };
  visit(value, [root], 0);
  return issues;
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
