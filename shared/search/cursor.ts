/**
 * The position a search page ends at, as the opaque `next_cursor`. A search is ordered by relevance
 * (a rank fixed to 6 decimals, so the same row always compares the same) then recency, or by a
 * timestamp alone; ids break ties across every type (they are unique across tables). `window` holds,
 * per type, the oldest row of the matches ranked on the first page (docs/search.md, "Order"), so
 * later pages rank the same rows however many are written in between. `scope` binds the cursor to
 * its query, types and sort.
 */
export interface SearchPosition {
  scope: string;
  /** 'rank': still among the ranked matches; 'time': past them, in recency order */
  phase: 'rank' | 'time';
  rank: string;
  key: string;
  id: string;
  window: Record<string, [string, string] | null>;
}

const RANK = /^\d{1,3}\.\d{6}$/;
const KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ID = /^[A-Za-z0-9_-]{1,128}$/;
const SCOPE = /^[0-9a-f]{8}$/;
const TYPE = /^[a-z]{1,20}$/;

const toBase64Url = (text: string) => btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

export function writeSearchCursor(p: SearchPosition): string {
  return toBase64Url(JSON.stringify([2, p.scope, p.phase, p.rank, p.key, p.id, p.window]));
}

/** The position a cursor names, or null when it is not one this API wrote. */
export function readSearchCursor(cursor: string): SearchPosition | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(atob(cursor.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 7 || parsed[0] !== 2) return null;
  const [, scope, phase, rank, key, id, window] = parsed as unknown[];
  const fits = (v: unknown, re: RegExp) => typeof v === 'string' && re.test(v);
  if (!fits(scope, SCOPE) || (phase !== 'rank' && phase !== 'time')) return null;
  if (!fits(rank, RANK) || !fits(key, KEY) || !fits(id, ID)) return null;
  if (typeof window !== 'object' || window === null || Array.isArray(window)) return null;
  for (const [type, bound] of Object.entries(window)) {
    if (!TYPE.test(type)) return null;
    if (
      bound !== null &&
      !(Array.isArray(bound) && bound.length === 2 && fits(bound[0], KEY) && fits(bound[1], ID))
    )
      return null;
  }
  const position = { scope, phase, rank, key, id, window } as SearchPosition;
  // one spelling per position: the round trip must give the same text
  return writeSearchCursor(position) === cursor ? position : null;
}
