/**
 * What a new dashboard password must be (NIST SP 800-63B: length and a blocklist, not composition
 * rules): at least 12 characters, counted after NFKC normalisation with the default-ignorable code
 * points (zero-width spaces and joiners, soft hyphens, variation selectors) removed, since those
 * show as nothing and add nothing a guesser must try; not whitespace alone, not one character
 * repeated, not a repeated two-character pattern, and not among
 * the most common passwords (common-passwords.gen.ts: every password of 12 characters or more among
 * SecLists' 100,000 most common, so also every one of the 10,000 most common that the length rule
 * lets through). Each failure has its own message: the 422 says why.
 */
import { COMMON_PASSWORDS } from './common-passwords.gen';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;

let common: Set<string> | undefined;
/** Built on first use: a sign-in never pays for it. */
const commonPasswords = () => {
  common ??= new Set(COMMON_PASSWORDS.split('\n'));
  return common;
};

/** Code points that render as nothing (Unicode's Default_Ignorable_Code_Point). */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

/** The password as its strength is judged: NFKC, invisible code points removed, as code points. */
export const countedCharacters = (password: string): string[] => [
  ...password.normalize('NFKC').replace(INVISIBLE, ''),
];

export const PASSWORD_TOO_SHORT = `Password must be at least ${PASSWORD_MIN_LENGTH} characters`;

/** The rules after the length, in order, on the counted characters: the first that fails is the reason given. */
export const PASSWORD_RULES: { test: (chars: string[]) => boolean; reason: string }[] = [
  { test: (c) => c.join('').trim() !== '', reason: 'Password must not be only whitespace' },
  {
    // refused, not trimmed: a password kept with a space the person did not mean to type would not
    // be the one they type next time, and one trimmed in silence is not the one they chose
    test: (c) => c.join('') === c.join('').trim(),
    reason: 'Password must not begin or end with a space or other white space',
  },
  { test: (c) => new Set(c).size > 1, reason: 'Password must not be one repeated character' },
  {
    test: (c) => !c.every((ch, i) => ch === c[i % 2]),
    reason: 'Password must not be a repeated two-character pattern',
  },
  {
    test: (c) => !commonPasswords().has(c.join('').toLowerCase()),
    reason: 'Password is too common: choose one that is not on lists of leaked passwords',
  },
];

/** Why `password` is refused beyond its length, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  const chars = countedCharacters(password);
  for (const rule of PASSWORD_RULES) if (!rule.test(chars)) return rule.reason;
  return null;
}
