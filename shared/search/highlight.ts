/**
 * Highlights as plain text: a fragment of a matched field and where each match stands in it, as
 * [start, end) offsets in UTF-16 code units (what a JavaScript string indexes), so a client marks
 * them up itself and nothing needs escaping. Words are compared as the database's `simple` text
 * search configuration compares them: runs of letters and digits, lower-cased.
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

const tokensOf = (text: string): Token[] =>
  [...text.matchAll(WORD)].map((m) => ({
    text: m[0].toLowerCase(),
    start: m.index,
    end: m.index + m[0].length,
  }));

/** Where each pattern's words stand in `text`, in order, overlaps merged. */
export function matchesIn(text: string, patterns: readonly TextPattern[]): [number, number][] {
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
        return token === w || (words.length === 1 && /^\d{6,}$/.test(w) && token.endsWith(w));
      });
      if (!fits) continue;
      const first = tokens[i]!;
      const last = tokens[i + words.length - 1]!;
      // a number found at the end of a longer one is marked where it stands in it
      const start =
        words.length === 1 && first.text !== words[0] && !p.prefix
          ? first.end - words[0]!.length
          : first.start;
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
): Highlight[] {
  const out: Highlight[] = [];
  for (const [field, text] of fields) {
    if (!text) continue;
    const matches = matchesIn(text, patterns);
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
