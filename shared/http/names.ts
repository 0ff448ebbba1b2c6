import * as z from 'zod';

/**
 * A name the caller must give (a key's, a tenant's, a person's): trimmed before it is checked, so a
 * name of whitespace alone is empty and a 422 like a missing one, and what is stored has no padding.
 */
export const requiredName = (max: number) =>
  z.string().trim().min(1, 'Must not be empty or whitespace only').max(max);

/**
 * Control characters (C0, DEL, C1), the Unicode line and paragraph separators, and the bidirectional
 * embedding, override and isolate controls: none belongs in a name, and each lets a name that is
 * shown in a mail (a tenant's, a person's) start a line of its own or reorder what is read.
 */
const NOT_IN_NAMES = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
export const NAME_CHARACTERS_RULE = 'Must not contain control characters or line breaks';

/** A name that reaches mail (a tenant's, a tenant user's): a required name on one line, of visible text. */
export const mailedName = (max: number) =>
  requiredName(max).refine((name) => !NOT_IN_NAMES.test(name), NAME_CHARACTERS_RULE);
