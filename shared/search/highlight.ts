/**
 * Highlights as plain text: a fragment of a matched field and where each match stands in it, as
 * [start, end) offsets in UTF-16 code units (what a JavaScript string indexes), so a client marks
 * them up itself and nothing needs escaping. Words are runs of letters and digits, lower-cased, as
 * the database's `simple` configuration splits them; a word also matches by its stems under the
 * tenant's language (`printers` where the query says `printer`), when the caller passes them, so a
 * hit that the stemmed index found is marked where it matched.
 */

export interface TextPattern {
  text: string;
  prefix: boolean;
}

export interface Highlight {
  field: string;
  fragment: string;
  matches: [number, number][];
}

/** A field longer than this is cut to a window around its first match. */
export const FRAGMENT_LENGTH = 200;
const LEAD = 60;
const WORD = /[\p{L}\p{N}]+/gu;

interface Token {
  text: string;
  start: number;
  end: number;
}

/**
 * Each word's lexemes under the tenant's language (the database's stemming, read once per page):
 * two words are the same word when they share one. A word the language drops (a stop word) has none.
 */
export type Stems = ReadonlyMap<string, readonly string[]>;

const tokensOf = (text: string): Token[] =>
  [...text.matchAll(WORD)].map((m) => ({
    text: m[0].toLowerCase(),
    start: m.index,
    end: m.index + m[0].length,
  }));

/** The distinct words of `texts`, lower-cased, as the highlighter compares them. */
export const wordsOf = (texts: readonly string[]): Set<string> =>
  new Set(texts.flatMap((t) => tokensOf(t).map((w) => w.text)));

const sameStem = (stems: Stems | undefined, a: string, b: string) => {
  const of = stems?.get(a);
  return !!of && of.length > 0 && (stems?.get(b) ?? []).some((l) => of.includes(l));
};

/** Where each pattern's words stand in `text`, in order, overlaps merged. */
export function matchesIn(text: string, patterns: readonly TextPattern[], stems?: Stems): [number, number][] {
  const tokens = tokensOf(text);
  const spans: [number, number][] = [];
  for (const p of patterns) {
    const words = tokensOf(p.text).map((t) => t.text);
    if (words.length === 0) continue;
    for (let i = 0; i + words.length <= tokens.length; i++) {
      const fits = words.every((w, k) => {
        const token = tokens[i + k]!.text;
        if (p.prefix && k === words.length - 1) return token.startsWith(w);
        // a number matches the end of a longer one, as the index keeps a phone number's endings
        if (token === w || sameStem(stems, token, w)) return true;
        return words.length === 1 && /^\d{6,}$/.test(w) && token.endsWith(w);
      });
      if (!fits) continue;
      const first = tokens[i]!;
      const last = tokens[i + words.length - 1]!;
      // a number found at the end of a longer one is marked where it stands in it
      const w = words[0]!;
      const endOfNumber =
        words.length === 1 && !p.prefix && first.text !== w && !sameStem(stems, first.text, w);
      const start = endOfNumber ? first.end - w.length : first.start;
      spans.push([start, last.end]);
    }
  }
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1]);
    else merged.push([s[0], s[1]]);
  }
  return merged;
}

/** One highlight per field with a match: the field whole when short, else a window around the first match. */
export function highlightsOf(
  fields: readonly [string, string | null][],
  patterns: readonly TextPattern[],
  stems?: Stems,
): Highlight[] {
  const out: Highlight[] = [];
  for (const [field, text] of fields) {
    if (!text) continue;
    const matches = matchesIn(text, patterns, stems);
    if (matches.length === 0) continue;
    if (text.length <= FRAGMENT_LENGTH) {
      out.push({ field, fragment: text, matches });
      continue;
    }
    let start = Math.max(0, matches[0]![0] - LEAD);
    // start at a word's beginning, never inside a surrogate pair
    while (start > 0 && /[\p{L}\p{N}]/u.test(text[start - 1]!)) start--;
    if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start]!)) start--;
    let end = Math.min(text.length, start + FRAGMENT_LENGTH);
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
    const fragment = text.slice(start, end);
    out.push({
      field,
      fragment,
      matches: matches
        .filter(([s, e]) => s >= start && e <= end)
        .map(([s, e]) => [s - start, e - start] as [number, number]),
    });
  }
  return out;
}
