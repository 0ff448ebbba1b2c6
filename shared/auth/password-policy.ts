/**
 * What a new dashboard password must be (NIST SP 800-63B: length and a blocklist, not composition
 * rules): at least 12 characters, not one character repeated, not whitespace alone, and not among
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

/** The rules after the length, in order: the first that fails is the reason given. */
export const PASSWORD_RULES: { test: (password: string) => boolean; reason: string }[] = [
  { test: (p) => p.trim() !== '', reason: 'Password must not be only whitespace' },
  { test: (p) => new Set(p).size > 1, reason: 'Password must not be one repeated character' },
  {
    test: (p) => !commonPasswords().has(p.toLowerCase()),
    reason: 'Password is too common: choose one that is not on lists of leaked passwords',
  },
];

/** Why `password` is refused (beyond its length), or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  for (const rule of PASSWORD_RULES) if (!rule.test(password)) return rule.reason;
  return null;
}
