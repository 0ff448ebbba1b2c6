import type { Context } from 'hono';
import { Hono } from 'hono';
import type { AppEnv } from '../../shared/context/app-env';
import { filtersHash } from '../../shared/db/paging';
import { validationError } from '../../shared/http/errors';
import { CURSOR_MALFORMED, CURSOR_MISMATCH } from '../../shared/http/pagination';
import { register } from '../../shared/http/route';
import { readSearchCursor, writeSearchCursor } from '../../shared/search/cursor';
import { parseQuery, QuerySyntaxError } from '../../shared/search/query';
import { type After, type Searcher, type SearchSort, searchPage } from './data';
import * as routes from './routes';
import { SEARCH_TYPES, type SearchType } from './schemas';

export const app = new Hono<AppEnv>();

/** Who searches: the credential's tenant, and a session's user (`assignee:me`). */
function searcherOf(c: Context<AppEnv>): Searcher {
  const auth = c.get('auth');
  if (auth.kind === 'dashboard') return { tenantId: auth.tenantId, userId: auth.userId };
  if (auth.kind === 'api_key') return { tenantId: auth.tenantId, userId: null };
  throw new Error('search: the gate let through a credential without a tenant');
}

interface Request {
  query: string;
  types: readonly SearchType[];
  sort: SearchSort;
  limit: number;
  cursor?: string | undefined;
}

/** Parse, check the cursor against the request it was made for, read the page, write the next cursor. */
async function runSearch(c: Context<AppEnv>, r: Request) {
  let parsed: ReturnType<typeof parseQuery>;
  try {
    parsed = parseQuery(r.query);
  } catch (err) {
    throw syntaxError(err);
  }
  const scope = filtersHash({ query: r.query, types: [...r.types].join(','), sort: r.sort }, []);
  let after: After | null = null;
  if (r.cursor !== undefined) {
    const position = readSearchCursor(r.cursor);
    if (!position) throw cursorError(CURSOR_MALFORMED);
    if (position.scope !== scope) throw cursorError(CURSOR_MISMATCH);
    after = position;
  }
  try {
    const page = await searchPage(
      c.get('services').db,
      searcherOf(c),
      parsed,
      r.types,
      r.sort,
      r.limit,
      after,
    );
    return { hits: page.hits, next_cursor: page.next && writeSearchCursor({ scope, ...page.next }) };
  } catch (err) {
    throw syntaxError(err);
  }
}

const syntaxError = (err: unknown) =>
  err instanceof QuerySyntaxError
    ? validationError([{ loc: ['query', 'query'], msg: err.message, type: 'query_syntax' }])
    : err;
const cursorError = (msg: string) =>
  validationError([{ loc: ['query', 'cursor'], msg, type: 'value_error' }]);

register(app, routes.searchTickets, async (c) => {
  const q = c.req.valid('query');
  return c.json(await runSearch(c, { ...q, types: ['ticket'] }));
});

register(app, routes.search, async (c) => {
  const q = c.req.valid('query');
  // the order asked for does not matter: the types are searched in their own order
  const types = SEARCH_TYPES.filter((t) => (q.types ?? SEARCH_TYPES).includes(t));
  return c.json(await runSearch(c, { ...q, types }));
});
