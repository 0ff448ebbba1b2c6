/** What a form shows when the session ended under it; hidden again once the user signs back in. */
export const SESSION_ENDED = 'Your session ended. Sign in again, then retry.';

/** What a call says when no answer came at all (the browser's own words are "Failed to fetch"). */
export const NETWORK_DOWN =
  'The server could not be reached: check your connection (or whether the server is running), then retry.';

/** The field a 422 issue is about, as a person names it: `["body","expires_in_days"]` -> "Expires in days". */
function fieldName(loc: unknown[]): string {
  const last = [...loc.slice(1)].reverse().find((p) => typeof p === 'string') as string | undefined;
  if (!last) return 'The request';
  const words = last.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The API's generic wording ("String should have at most 200 characters", "Field required"; zod's
 * older "Too small: expected string to have >=1 characters" too) as a phrase after the field's name.
 */
function phrase(msg: string): string {
  if (msg === 'Field required') return 'is required';
  const [, most, count, unit] =
    msg.match(/^(?:String|List) should have (at least|at most) (\d+) (character|item)/) ?? [];
  if (most === 'at least' && count === '1') return 'is required';
  if (most) return `must be ${most} ${count} ${unit}${count === '1' ? '' : 's'}`;
  if (/^Input should be /.test(msg)) return msg.replace(/^Input should be /, 'should be ');
  const [, kind, , n] = msg.match(/^Too (small|big): expected (string|array) to have [<>]=(\d+)/) ?? [];
  const what = msg.includes('array') ? 'item' : 'character';
  if (kind === 'small') return n === '1' ? 'is required' : `must be at least ${n} ${what}s`;
  if (kind === 'big') return `must be at most ${n} ${what}${n === '1' ? '' : 's'}`;
  if (/expected \w+, received undefined/.test(msg)) return 'is required';
  if (/^Invalid (email|url)/i.test(msg))
    return `is not a valid ${msg.replace(/^Invalid /i, '').toLowerCase()}`;
  return `: ${msg.charAt(0).toLowerCase()}${msg.slice(1)}`;
}

/** One 422 issue as a sentence that names the field ("Name must be at most 200 characters."). */
function issueSentence(issue: { loc?: unknown[]; msg?: string }): string {
  const field = fieldName(issue.loc ?? []);
  const msg = (issue.msg ?? 'is not valid').replace(/\.$/, '');
  // the API's own sentences already name the field ("Password must be at least 12 characters")
  if (msg.toLowerCase().startsWith(field.toLowerCase())) return `${msg}.`;
  const said = phrase(msg);
  return `${field}${said.startsWith(':') ? '' : ' '}${said}.`;
}

/** The API's `detail` as one sentence: a string, or the 422 list of issues, each naming its field. */
export function describeError(body: unknown, status: number): string {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return detail.map(issueSentence).join(' ');
  return `The request failed (HTTP ${status}).`;
}
