/**
 * How hard a new dashboard password is to guess, by zxcvbn (@zxcvbn-ts: pattern matching against
 * dictionaries, keyboard walks, sequences, repeats and dates, with the person's own e-mail address
 * and name as extra words), beside the fixed rules of password-policy.ts. A score under 3 of 4
 * (fewer than about 10^8 guesses) is refused with zxcvbn's own warning, in words a person reads.
 *
 * The dictionaries are most of a megabyte (password-estimator.ts, password-words.ts), and their
 * word lists are decoded when their module is evaluated (tens of milliseconds of CPU): only the
 * sign-in function (functions/auth) imports this file, so no other Worker carries them, and they
 * are imported dynamically, on the first password set, so the auth Worker's startup (and every
 * sign-in on a fresh isolate) never evaluates them. The bundler keeps a dynamically imported
 * module's top level unevaluated until that import runs.
 */
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

export const MIN_PASSWORD_SCORE = 3;

let factory: Promise<ZxcvbnFactory> | undefined;
const estimator = () => {
  factory ??= import('./password-estimator').then(({ createEstimator }) => createEstimator());
  // a failed import is not remembered: the next password set tries again
  factory.catch(() => {
    factory = undefined;
  });
  return factory;
};

/** The words of the person's own that a password must not be built from: the address, its parts, the name. */
function userInputs(person: { email: string; name?: string | null }): string[] {
  const email = person.email.toLowerCase();
  const [local = '', domain = ''] = email.split('@');
  const words = [email, local, domain, ...local.split(/[^a-z0-9]+/), ...domain.split('.')];
  if (person.name) words.push(person.name, ...person.name.toLowerCase().split(/\s+/));
  return [...new Set(words.filter((w) => w.length >= 3))];
}

/** Why `password` is too easy to guess for this person, or null when it is strong enough. */
export async function passwordWeakness(
  password: string,
  person: { email: string; name?: string | null },
): Promise<string | null> {
  const result = (await estimator()).check(password, userInputs(person));
  if (result.score >= MIN_PASSWORD_SCORE) return null;
  const warning = result.feedback.warning;
  const suggestion = result.feedback.suggestions[0];
  return [
    'Password is too easy to guess',
    warning ? `: ${warning.replace(/\.$/, '')}` : '',
    suggestion ? `. ${suggestion.replace(/\.$/, '')}` : '. Add more words that are less common',
  ].join('');
}
