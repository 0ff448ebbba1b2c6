// The auth Worker's zxcvbn reads word lists without the entries another list outranks
// (shared/auth/password-words.ts): the lists must be exactly what the installed packages give less
// those entries, and zxcvbn must judge every password as it does with the packages' own lists.
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as en from '@zxcvbn-ts/language-en';
import { describe, expect, it } from 'vitest';
import { DEDUPED, withoutShadowedWords } from '../../shared/auth/password-words';
import { adjacencyGraphs, dictionary, translations } from '../../shared/auth/password-words.gen';

const packaged = { ...common.dictionary, ...en.dictionary };
const full = new ZxcvbnFactory({
  translations: en.translations,
  graphs: common.adjacencyGraphs,
  dictionary: packaged,
});
const ours = new ZxcvbnFactory({ translations, graphs: adjacencyGraphs, dictionary });

/** What a person is told and what is stored as the verdict: the score, guesses and feedback, and how it was reached. */
const verdict = (estimator: ZxcvbnFactory, password: string, inputs: string[] = []) => {
  const r = estimator.check(password, inputs);
  return {
    score: r.score,
    guesses: r.guesses,
    feedback: r.feedback,
    sequence: r.sequence.map((m) => [m.pattern, m.token, m.dictionaryName, m.rank, m.reversed, m.l33t]),
  };
};

// a fixed sample (the same every run): a seeded generator over the blanked words
let seed = 20261203;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;

describe('withoutShadowedWords', () => {
  // 60 filler words so that ranks past zxcvbn's floor of 50 guesses exist
  const filler = (tag: string) => Array.from({ length: 60 }, (_, i) => `${tag}${i}`);
  it('blanks a word where another list ranks it better, past the floor, keeping every rank', () => {
    const lists = withoutShadowedWords({
      'passwords-common': ['dragon', ...filler('p'), 'castle', 'twice', 'tied'],
      'lastnames-en': [...filler('l'), 'dragon', 'castle', ...filler('m'), 'twice', 'tied'],
      'wikipedia-en': ['castle', 'tied', ...filler('w')],
      'cardinalNumbers-en': [...filler('c'), 'dragon'],
    });
    // dragon: rank 1 in passwords; outranked past the floor in lastnames; a word-sequence list keeps it
    expect(lists['passwords-common']![0]).toBe('dragon');
    expect(lists['lastnames-en']![60]).toBe('');
    expect(lists['cardinalNumbers-en']![60]).toBe('dragon');
    // castle: wikipedia's rank 1 wins; ranks 62 and 62 lose; every list keeps its length
    expect(lists['passwords-common']![61]).toBe('');
    expect(lists['lastnames-en']![61]).toBe('');
    expect(lists['wikipedia-en']![0]).toBe('castle');
    expect(lists['lastnames-en']).toHaveLength(124);
    // tied: rank 2 in wikipedia, better than 64 and 124
    expect(lists['wikipedia-en']![1]).toBe('tied');
    expect(lists['passwords-common']![63]).toBe('');
  });

  it('keeps entries within the floor, and a word a list loses loses all its entries there', () => {
    const lists = withoutShadowedWords({
      'wikipedia-en': ['early', 'late', ...filler('w')],
      // 'early' at 3 (within the floor: kept though wikipedia ranks it 1); 'late' at 5 and again
      // at 70: zxcvbn ranks it 70 here (the last entry), outranked, so both go, not just the 70th
      'commonWords-en': ['a1', 'a2', 'early', 'a4', 'late', ...filler('c'), 'late'],
    });
    expect(lists['commonWords-en']![2]).toBe('early');
    expect(lists['commonWords-en']![4]).toBe('');
    expect(lists['commonWords-en']![65]).toBe('');
    expect(lists['wikipedia-en']!.slice(0, 2)).toEqual(['early', 'late']);
  });
});

describe('password word lists', () => {
  it('are the packages lists less the outranked entries, in the same order, with their graphs and feedback', () => {
    expect(translations).toEqual(en.translations);
    expect(adjacencyGraphs).toEqual(common.adjacencyGraphs);
    expect(Object.keys(dictionary)).toEqual(Object.keys(packaged));
    expect(dictionary).toEqual(withoutShadowedWords(packaged));
    // ranks are kept: every list as long as the package's
    for (const [name, words] of Object.entries(packaged)) expect(dictionary[name]).toHaveLength(words.length);
    const blanked = DEDUPED.reduce((n, name) => n + dictionary[name]!.filter((w) => w === '').length, 0);
    expect(blanked).toBeGreaterThan(40_000);
  });

  it('give zxcvbn the same verdict as the packages lists', () => {
    const blanked = Object.entries(packaged).flatMap(([name, words]) =>
      words.map(String).filter((w, i) => dictionary[name]![i] === '' && w.length >= 3),
    );
    // words well ranked in more than one list: as a part of a password they tie at zxcvbn's floor
    const shared = Object.values(packaged)
      .flatMap((words) => words.slice(0, 200).map(String))
      .filter((w, i, all) => all.indexOf(w) !== i && w.length >= 2);
    const passwords = [
      'correct horse battery staple',
      'Tr0ub4dor&3',
      'onetwothree',
      'mondaytuesday',
      'p@ssw0rd',
    ];
    for (const word of new Set(shared)) passwords.push(`${word}${pick(blanked)}`, `${pick(blanked)}${word}`);
    for (let i = 0; i < 100; i++) {
      const a = pick(blanked);
      const b = pick(blanked);
      passwords.push(
        a,
        a[0]!.toUpperCase() + a.slice(1),
        [...a].reverse().join(''),
        a.replace(/a/g, '@').replace(/e/g, '3').replace(/o/g, '0'),
        `${a}${Math.floor(random() * 10000)}`,
        `${a}${b}`,
        `${a} ${b} ${pick(blanked)}`,
      );
    }
    const differing = passwords.filter(
      (p) => JSON.stringify(verdict(full, p, ['smith'])) !== JSON.stringify(verdict(ours, p, ['smith'])),
    );
    expect(differing).toEqual([]);
    // the sample reaches the blanked entries: the packages' lists match them
    expect(passwords.length).toBeGreaterThan(900);
  }, 60_000);
});
