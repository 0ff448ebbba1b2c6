/** One problem of a refused request, in the spec's 422 shape: `{"loc": ["body", "name"], "msg", "type"}`. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

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
