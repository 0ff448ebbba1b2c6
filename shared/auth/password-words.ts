/**
 * The zxcvbn word lists (@zxcvbn-ts/language-common and -en) with every word that another list
 * ranks better blanked out, for the auth Worker's 1 MiB budget: about a fifth of their entries are
 * words two lists share (a common word is also a password, a surname, a Wikipedia word).
 *
 * zxcvbn scores a dictionary word by its rank alone (guesses = rank times its capital, l33t and
 * reversed variations, which are the same whichever list matched), and keeps the match with the
 * fewest guesses; on a tie, the list that comes first. So a word's entry in any list but its best
 * one is never the match that counts, and the estimate, its guesses and its feedback are the same
 * without it. A blanked word becomes an empty string, not a removal: a word's rank is its place in
 * its list, and every word after it keeps its place. Within a list the last of a word's entries is
 * the one zxcvbn keeps (a ranked list is built by overwriting), so that one counts as its rank.
 * Entries ranked GUESS_FLOOR or better are kept wherever they are: zxcvbn raises a part of a
 * password to at least that many guesses, so two such entries of one word tie, and which list wins
 * the tie (its name picks the warning a person reads) is zxcvbn's to say, not ours.
 *
 * The word-sequence lists (numbers, days, months, ... that zxcvbn also reads on their own, to find
 * "onetwothree") are kept whole: only the lists named in DEDUPED lose words.
 */
export const DEDUPED = [
  'diceware-common',
  'passwords-common',
  'commonWords-en',
  'firstnames-en',
  'lastnames-en',
  'wikipedia-en',
] as const;

/** zxcvbn's least guesses for a part of a password longer than one character (its MIN_SUBMATCH_GUESSES_MULTI_CHAR) */
export const GUESS_FLOOR = 50;

export function withoutShadowedWords(
  dictionary: Readonly<Record<string, readonly (string | number)[]>>,
): Record<string, string[]> {
  const lists = Object.entries(dictionary).map(([name, words]) => [name, words.map(String)] as const);
  // each list's rank of each word (its last entry's place), and each word's best list and rank:
  // the lowest rank, the earlier list on a tie
  const ranks = lists.map(([, words]) => new Map(words.map((word, index) => [word, index + 1])));
  const best = new Map<string, { list: number; rank: number }>();
  ranks.forEach((rankIn, list) => {
    for (const [word, rank] of rankIn) {
      const held = best.get(word);
      if (!held || rank < held.rank) best.set(word, { list, rank });
    }
  });
  const deduped = new Set<string>(DEDUPED);
  return Object.fromEntries(
    lists.map(([name, words], list) => {
      if (!deduped.has(name)) return [name, [...words]];
      // a word the list keeps keeps all its entries there; one it loses loses all of them, so no
      // earlier entry of the word becomes its rank in the list
      const keeps = (word: string) => {
        const rank = ranks[list]!.get(word)!;
        const held = best.get(word)!;
        return rank <= GUESS_FLOOR || (held.list === list && held.rank === rank);
      };
      return [name, words.map((word) => (keeps(word) ? word : ''))];
    }),
  );
}
