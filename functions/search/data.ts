import { type RawBuilder, sql } from 'kysely';
import { companyView, contactView } from '../../shared/contacts/records';
import {
  CONVERSATION_CHANNELS,
  CONVERSATION_PRIORITIES,
  CONVERSATION_STATUSES,
  conversationView,
} from '../../shared/conversations/records';
import { WALK_ROWS_PER_ROW } from '../../shared/db/paging';
import type { Executor } from '../../shared/db/schema';
import { customFieldKey, type FieldDef, ticketFieldDefs } from '../../shared/helpdesk/fields';
import { highlightsOf, type Stems, type TextPattern, wordsOf } from '../../shared/search/highlight';
import {
  type FilterField,
  type FilterTerm,
  QuerySyntaxError,
  rangeBounds,
  type SearchQuery,
  type Term,
  type TextTerm,
} from '../../shared/search/query';
import { TICKET_PRIORITIES, TICKET_STATUSES, TICKET_TYPES } from '../../shared/tickets/schemas';
import { type TicketRow, ticketView } from '../../shared/tickets/tickets';
import type { SEARCH_SORTS, SearchType } from './schemas';

/**
 * Every query of the search function: a parsed query (shared/search/query.ts) compiled to SQL over
 * each record type's table, the page read in the search's order, and the hits' highlights.
 */

type Sql = RawBuilder<unknown>;

/** How one filter applies to one table. */
type FilterSpec =
  | { kind: 'enum'; column: string; values: readonly string[] }
  | { kind: 'ref'; column: string }
  | { kind: 'tag' }
  | { kind: 'time'; column: string }
  /** `custom_fields.<key>:<value>`: the tenant's ticket fields, through the list filter's index */
  | { kind: 'custom' };

/** Per record type: its table, the filters it has, its view and the fields a highlight may come from. */
interface TypeSpec {
  table: 'tickets' | 'conversations' | 'contacts' | 'companies';
  filters: Partial<Record<FilterField, FilterSpec>>;
  /** soft-deleted rows are not found */
  softDeleted?: true;
  /** extra columns the view reads */
  columns?: Sql;
  view: (row: never) => unknown;
  /** the record's own text fields, [highlight name, text] */
  texts: (row: never) => [string, string | null][];
  /** the table of the record's thread (replies, messages), searched too */
  thread?: { table: 'ticket_replies' | 'messages'; owner: 'ticket_id' | 'conversation_id'; field: string };
}

const time = (column: string): FilterSpec => ({ kind: 'time', column });
const CREATED_UPDATED = { created: time('created_at'), updated: time('updated_at') } as const;

const TYPES: Record<SearchType, TypeSpec> = {
  ticket: {
    table: 'tickets',
    filters: {
      status: { kind: 'enum', column: 'status', values: TICKET_STATUSES },
      priority: { kind: 'enum', column: 'priority', values: TICKET_PRIORITIES },
      type: { kind: 'enum', column: 'type', values: TICKET_TYPES },
      tag: { kind: 'tag' },
      assignee: { kind: 'ref', column: 'assignee_id' },
      team: { kind: 'ref', column: 'assignee_team_id' },
      requester: { kind: 'ref', column: 'requester_id' },
      custom_fields: { kind: 'custom' },
      ...CREATED_UPDATED,
    },
    view: (row: TicketRow) => ticketView(row),
    texts: (row: TicketRow) => [
      ['subject', row.subject],
      ['description', row.description],
    ],
    thread: { table: 'ticket_replies', owner: 'ticket_id', field: 'reply' },
  },
  conversation: {
    table: 'conversations',
    filters: {
      status: { kind: 'enum', column: 'status', values: CONVERSATION_STATUSES },
      priority: { kind: 'enum', column: 'priority', values: CONVERSATION_PRIORITIES },
      channel: { kind: 'enum', column: 'channel', values: CONVERSATION_CHANNELS },
      tag: { kind: 'tag' },
      assignee: { kind: 'ref', column: 'assignee_user_id' },
      team: { kind: 'ref', column: 'assignee_team_id' },
      requester: { kind: 'ref', column: 'contact_id' },
      ...CREATED_UPDATED,
    },
    view: conversationView as (row: never) => unknown,
    texts: (row: { subject: string | null }) => [['subject', row.subject]],
    thread: { table: 'messages', owner: 'conversation_id', field: 'message' },
  },
  contact: {
    table: 'contacts',
    softDeleted: true,
    filters: { tag: { kind: 'tag' }, ...CREATED_UPDATED },
    columns: sql`(select c.name from companies c where c.id = t.company_id and c.tenant_id = t.tenant_id) as joined_company_name`,
    view: contactView as (row: never) => unknown,
    texts: (row: {
      first_name: string | null;
      last_name: string | null;
      email: string | null;
      phone: string | null;
    }) => [
      ['name', [row.first_name, row.last_name].filter(Boolean).join(' ') || null],
      ['email', row.email],
      ['phone', row.phone],
    ],
  },
  company: {
    table: 'companies',
    softDeleted: true,
    filters: { tag: { kind: 'tag' }, ...CREATED_UPDATED },
    view: companyView as (row: never) => unknown,
    texts: (row: { name: string; domain: string | null }) => [
      ['name', row.name],
      ['domain', row.domain],
    ],
  },
};

/** Who searches: the tenant, and the session's user for `assignee:me` (null for an API key). */
export interface Searcher {
  tenantId: string;
  userId: string | null;
}

/** The searcher, with the tenant's ticket fields by key when the query filters on one. */
interface Who extends Searcher {
  fields: ReadonlyMap<string, FieldDef>;
  /** the tenant's text search configuration (schema/0036_search_locale.sql), as its rows are indexed */
  config: string;
}

// ---- compiling a query -----------------------------------------------------------------------

/** A tsquery for one text term; words with inner punctuation (`e-451`) match as the phrase they are. */
function tsqueryOf(term: TextTerm, config: string): Sql {
  if (term.prefix) {
    // a prefix of the word as written: the stemmed form may be shorter than the prefix typed
    const quoted = `'${term.text.replace(/\\/g, '\\\\').replace(/'/g, "''")}':*`;
    return sql`to_tsquery('simple', ${quoted})`;
  }
  const asWritten = sql`phraseto_tsquery('simple', ${term.text})`;
  if (config === 'simple') return asWritten;
  // the stemmed words or the words as written; a phrase with a stop word (`"fire on"`, which the
  // language drops) is matched as written alone, so its words keep their order and all count
  const stemmed = sql`phraseto_tsquery(${config}::regconfig, ${term.text})`;
  return sql`(case when numnode(${stemmed}) = numnode(${asWritten}) then ${stemmed} || ${asWritten} else ${asWritten} end)`;
}

const ref = (column: string) => sql.ref(`t.${column}`);

/** One filter on one type's table, or null when the value is not one this type has. */
function filterSql(spec: FilterSpec, term: FilterTerm, who: Who, now: Date): Sql | null {
  switch (spec.kind) {
    case 'enum': {
      const values = term.value.split(',');
      if (!values.every((v) => spec.values.includes(v))) return null;
      return sql`${ref(spec.column)} in (${sql.join(values)})`;
    }
    case 'ref': {
      if (term.value === 'none') return sql`${ref(spec.column)} is null`;
      if (term.value === 'me') {
        if (!who.userId)
          throw new QuerySyntaxError(
            "'assignee:me' needs a dashboard session (an API key is no one)",
            term.position,
          );
        return sql`${ref(spec.column)} = ${who.userId}`;
      }
      return sql`${ref(spec.column)} = ${term.value}`;
    }
    case 'tag':
      return sql`tenant_tag_keys(t.tenant_id, t.tags) @> ARRAY[${`${who.tenantId}:${term.value}`}]::text[]`;
    case 'time':
      return sql.join(
        rangeBounds(term, now).map((b) => sql`${ref(spec.column)} ${sql.raw(b.op)} ${b.at}`),
        sql` and `,
      );
    case 'custom': {
      // the list's `custom_fields.<key>=` means the same: equality, through the same GIN index
      const def = who.fields.get(term.key!);
      if (!def) throw new QuerySyntaxError(`unknown ticket field '${term.key}'`, term.position);
      const key = customFieldKey(def, who.tenantId, term.value);
      if (key === null)
        throw new QuerySyntaxError(
          `'${term.value}' is not a value of the ${def.type} field '${def.key}'`,
          term.position,
        );
      return sql`tenant_custom_field_keys(t.tenant_id, t.custom_fields) @> ARRAY[${key}]::text[]`;
    }
  }
}

/**
 * Checks every filter against the types searched before any SQL runs: a value that fits no type
 * (`status:opne`) or a filter none of them has (`channel:` over tickets alone) is the query's
 * mistake, a 422 at its position; a filter only some types have leaves the others out.
 */
function checkFilters(query: SearchQuery, types: readonly SearchType[], who: Who, now: Date) {
  for (const term of query.clauses.flat()) {
    if (term.kind !== 'filter') continue;
    const specs = types.map((t) => TYPES[t].filters[term.field]).filter((s) => s !== undefined);
    if (specs.length === 0)
      throw new QuerySyntaxError(
        `'${term.field}' is not a filter of ${types.length === 1 ? `a ${types[0]}` : 'the types searched'}`,
        term.position,
      );
    if (specs.every((s) => filterSql(s, term, who, now) === null)) {
      const values = [...new Set(specs.flatMap((s) => (s.kind === 'enum' ? s.values : [])))];
      throw new QuerySyntaxError(
        `'${term.value}' is not a ${term.field} (one of ${values.join(', ')})`,
        term.position,
      );
    }
  }
}

interface Compiled {
  /** every condition of the query on this type's rows (`t`), or null when no row of it can match */
  where: Sql | null;
  /** the positive words and phrases, OR'ed: what the rank and the highlights look for */
  rankQuery: Sql | null;
  /**
   * A query of filters alone, some of which only a GIN index serves (a required tag or custom
   * field value): `where` without them, and them. Its page is read by the lists' bounded walk
   * (readType), not left to the planner, which guesses such a condition's matches whatever the value.
   */
  walk?: { rest: Sql; gin: Sql };
}

/** The query as conditions on one type's table. */
function compile(query: SearchQuery, spec: TypeSpec, who: Who, now: Date): Compiled {
  const textOnly: Sql[] = [];
  const other: Sql[] = [];
  const positive: Sql[] = [];
  const gin: Sql[] = [];
  const matches = (q: Sql) => sql`t.search_vector @@ ${q}`;
  for (const clause of query.clauses) {
    const isText = (t: Term): t is TextTerm => t.kind === 'text';
    for (const t of clause) if (isText(t) && !t.negated) positive.push(tsqueryOf(t, who.config));
    if (clause.every(isText)) {
      // words and phrases join one tsquery, so one index scan answers all of them
      const parts = clause.map((t) =>
        t.negated ? sql`(!! ${tsqueryOf(t, who.config)})` : tsqueryOf(t, who.config),
      );
      textOnly.push(parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, sql` || `)})`);
      continue;
    }
    const alternatives: Sql[] = [];
    for (const t of clause) {
      let cond: Sql;
      if (t.kind === 'text') cond = matches(tsqueryOf(t, who.config));
      else {
        const filter = spec.filters[t.field];
        const compiled = filter ? filterSql(filter, t, who, now) : null;
        if (!compiled) {
          // a filter this type does not have: excluded, it holds; required, it cannot
          if (t.negated) {
            alternatives.push(sql`true`);
            continue;
          }
          continue;
        }
        cond = compiled;
      }
      alternatives.push(t.negated ? sql`not (${cond})` : cond);
    }
    if (alternatives.length === 0) return { where: null, rankQuery: null };
    const only = clause.length === 1 ? clause[0]! : null;
    const kind = only?.kind === 'filter' && !only.negated ? spec.filters[only.field]?.kind : undefined;
    if (alternatives.length === 1 && (kind === 'tag' || kind === 'custom')) {
      gin.push(alternatives[0]!);
      continue;
    }
    other.push(alternatives.length === 1 ? alternatives[0]! : sql`(${sql.join(alternatives, sql` or `)})`);
  }
  const conditions: Sql[] = [sql`t.tenant_id = ${who.tenantId}`];
  if (spec.softDeleted) conditions.push(sql`t.deleted_at is null`);
  if (textOnly.length > 0) {
    // the tenant-first full-text index (schema/0029_search.sql) reads this tenant's entries only
    conditions.push(sql`search_scope(t.tenant_id) = search_scope(${who.tenantId})`);
    conditions.push(matches(textOnly.length === 1 ? textOnly[0]! : sql`(${sql.join(textOnly, sql` && `)})`));
  }
  conditions.push(...other);
  const walk =
    gin.length > 0 && textOnly.length === 0 && positive.length === 0
      ? { rest: sql.join(conditions, sql` and `), gin: sql.join(gin, sql` and `) }
      : undefined;
  conditions.push(...gin);
  return {
    where: sql.join(conditions, sql` and `),
    ...(walk ? { walk } : {}),
    rankQuery:
      positive.length === 0
        ? null
        : positive.length === 1
          ? positive[0]!
          : sql`(${sql.join(positive, sql` || `)})`,
  };
}

// ---- reading a page --------------------------------------------------------------------------

/** How many of a query's newest matches are ranked by relevance (docs/search.md, "Order"). */
export const RANKED_MATCHES = 1000;

export type SearchSort = (typeof SEARCH_SORTS)[number];

/** Where a page starts: after this position (null: the first page). */
export interface After {
  phase: 'rank' | 'time';
  rank: string;
  key: string;
  id: string;
  window: Partial<Record<SearchType, [string, string] | null>>;
}

interface Candidate {
  type: SearchType;
  phase: 'rank' | 'time';
  rank: string;
  key: string;
  id: string;
  row: Record<string, unknown>;
  rankQuery: Sql | null;
}

export interface SearchPage {
  hits: { type: SearchType; record: unknown; highlights: ReturnType<typeof highlightsOf> }[];
  next: After | null;
}

const keyText = (column: string) =>
  sql<string>`to_char(${sql.ref(`t.${column}`)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * One page of hits over `types`: each type read in the page's order (at most limit + 1 rows past
 * the position), merged, cut at `limit`. The order is total over every type: rank, then the sort
 * timestamp, then the id (unique across tables), all descending.
 */
export async function searchPage(
  db: Executor,
  searcher: Searcher,
  query: SearchQuery,
  types: readonly SearchType[],
  sort: SearchSort,
  limit: number,
  after: After | null,
  now = new Date(),
): Promise<SearchPage> {
  const [fields, config] = await Promise.all([
    fieldsOf(db, searcher.tenantId, query, types),
    searchConfigOf(db, searcher.tenantId),
  ]);
  const who: Who = { ...searcher, fields, config };
  checkFilters(query, types, who, now);
  const column = sort === 'updated_at' ? 'updated_at' : 'created_at';
  const window: After['window'] = { ...(after?.window ?? {}) };
  const perType = await Promise.all(
    types.map(async (type) => {
      const spec = TYPES[type];
      const compiled = compile(query, spec, who, now);
      if (!compiled.where) return [] as Candidate[];
      const ranked = sort === 'relevance' && compiled.rankQuery !== null;
      if (ranked && !after) window[type] = await windowBound(db, spec, compiled.where);
      return readType(db, type, spec, compiled, ranked, column, limit, after, window[type] ?? null);
    }),
  );
  const merged = perType
    .flat()
    .sort(comparePositions)
    .slice(0, limit + 1);
  const page = merged.slice(0, limit);
  const last = page[page.length - 1];
  const next =
    merged.length > limit && last
      ? { phase: last.phase, rank: last.rank, key: last.key, id: last.id, window }
      : null;
  const threads = await threadTexts(db, who, page);
  const fieldsOfHit = page.map((c) => [...TYPES[c.type].texts(c.row as never), ...(threads.get(c.id) ?? [])]);
  const wanted = patterns(query);
  const stems = await stemsOf(db, who.config, wanted, fieldsOfHit.flat());
  const hits = page.map((c, i) => ({
    type: c.type,
    record: TYPES[c.type].view(c.row as never),
    highlights: highlightsOf(fieldsOfHit[i]!, wanted, stems),
  }));
  return { hits, next };
}

/** The tenant's ticket fields by key, read only when a ticket search filters on one. */
async function fieldsOf(db: Executor, tenantId: string, query: SearchQuery, types: readonly SearchType[]) {
  const wanted =
    types.includes('ticket') && query.clauses.some((c) => c.some((t) => t.kind === 'filter' && t.key));
  const defs = wanted ? await ticketFieldDefs(db, tenantId) : [];
  return new Map(defs.map((d) => [d.key, d]));
}

/** The configuration the tenant's rows are indexed with ('simple' for a tenant not found). */
async function searchConfigOf(db: Executor, tenantId: string): Promise<string> {
  const row = await sql<{ config: string }>`
    select search_config::text as config from tenants where id = ${tenantId}`.execute(db);
  return row.rows[0]?.config ?? 'simple';
}

/** Descending by phase (ranked first), rank, key, id. */
function comparePositions(a: Candidate, b: Candidate): number {
  if (a.phase !== b.phase) return a.phase === 'rank' ? -1 : 1;
  if (a.rank !== b.rank) return Number(b.rank) - Number(a.rank);
  if (a.key !== b.key) return a.key < b.key ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * The oldest of the newest RANKED_MATCHES matches (null: fewer match, all are ranked). Read once,
 * on a query's first page, and carried by its cursor: later pages rank the same rows.
 */
async function windowBound(db: Executor, spec: TypeSpec, where: Sql): Promise<[string, string] | null> {
  const row = await sql<{ key: string; id: string }>`
    select ${keyText('created_at')} as key, t.id from ${sql.table(spec.table)} t where ${where}
    order by t.created_at desc, t.id desc offset ${RANKED_MATCHES - 1} limit 1`.execute(db);
  const found = row.rows[0];
  return found ? [found.key, found.id] : null;
}

/** One type's rows of the page: the ranked ones (if the position is still among them), then the rest. */
async function readType(
  db: Executor,
  type: SearchType,
  spec: TypeSpec,
  compiled: Compiled,
  ranked: boolean,
  column: string,
  limit: number,
  after: After | null,
  bound: [string, string] | null,
): Promise<Candidate[]> {
  const where = compiled.where!;
  const columns = spec.columns ? sql`, ${spec.columns}` : sql``;
  const select = (rank: Sql) =>
    sql`select t.*, ${rank} as search_rank, ${keyText(column)} as search_key${columns} from ${sql.table(spec.table)} t`;
  const out: Candidate[] = [];
  const push = (rows: Record<string, unknown>[], phase: 'rank' | 'time') => {
    for (const row of rows) {
      const { search_rank, search_key, ...record } = row;
      out.push({
        type,
        phase,
        rank: Number(search_rank).toFixed(6),
        key: String(search_key),
        id: String(record.id),
        row: record,
        rankQuery: compiled.rankQuery,
      });
    }
  };
  // every match of this type was ranked: nothing of it lies past the ranked ones
  if (ranked && !bound && after?.phase === 'time') return out;
  const inWindow = bound ? sql`(t.created_at, t.id) >= (${bound[0]}::timestamptz, ${bound[1]})` : sql`true`;
  if (ranked && (!after || after.phase === 'rank')) {
    const rank = sql`round(ts_rank(t.search_vector, ${compiled.rankQuery})::numeric, 6)`;
    const past = after
      ? sql`(${rank}, t.created_at, t.id) < (${after.rank}::numeric, ${after.key}::timestamptz, ${after.id})`
      : sql`true`;
    const rows = await sql<Record<string, unknown>>`${select(rank)}
      where ${where} and ${inWindow} and ${past}
      order by search_rank desc, t.created_at desc, t.id desc limit ${limit + 1}`.execute(db);
    push(rows.rows, 'rank');
    if (rows.rows.length > limit || !bound) return out;
  }
  // past the ranked matches (or not ranking at all): newest first by the sort's timestamp
  const beyond =
    ranked && bound ? sql`(t.created_at, t.id) < (${bound[0]}::timestamptz, ${bound[1]})` : sql`true`;
  const past =
    after && after.phase === 'time'
      ? sql`(${sql.ref(`t.${column}`)}, t.id) < (${after.key}::timestamptz, ${after.id})`
      : sql`true`;
  const take = limit + 1 - out.length;
  const order = sql`order by ${sql.ref(`t.${column}`)} desc, t.id desc`;
  const rows = compiled.walk
    ? await sql<Record<string, unknown>>`${select(sql`0`)}
        where ${compiled.walk.rest} and t.id in ${walkedIds(spec, compiled.walk, past, column, take)}
        ${order} limit ${take}`.execute(db)
    : await sql<Record<string, unknown>>`${select(sql`0`)}
        where ${where} and ${beyond} and ${past} ${order} limit ${take}`.execute(db);
  push(rows.rows, 'time');
  return out;
}

/**
 * The ids of one page of a filter-only query, newest first by `column`: ginPageIds's plan written
 * over a search's table. The walk reads the tenant's `column` index at most WALK_ROWS_PER_ROW rows
 * per row wanted (a common tag fills the page there); only when it comes up short are every match
 * read through the GIN index (the few rows a rare value has) and sorted. Both branches are in the
 * plan and the walk's count picks one, so the rows and their order are the plain query's.
 */
function walkedIds(spec: TypeSpec, walk: { rest: Sql; gin: Sql }, past: Sql, column: string, take: number) {
  const table = sql.table(spec.table);
  const key = sql.ref(`t.${column}`);
  return sql`(
    with walked as materialized (
           select w.id, w.k from (
             select t.id, ${key} as k, (${walk.gin}) as hit from ${table} t where ${walk.rest} and ${past}
             order by ${key} desc, t.id desc limit ${take * WALK_ROWS_PER_ROW}
           ) w where w.hit limit ${take}),
         matched as materialized (
           select t.id, ${key} as k from ${table} t where ${walk.rest} and ${past} and ${walk.gin})
    (select id from walked where (select count(*) from walked) = ${take} order by k desc, id desc limit ${take})
    union all
    (select id from matched where (select count(*) from walked) < ${take} order by k desc, id desc limit ${take}))`;
}

/** The first reply or message of each ticket or conversation hit that matches, for its highlight. */
async function threadTexts(db: Executor, who: Who, page: Candidate[]) {
  const tenantId = who.tenantId;
  const found = new Map<string, [string, string][]>();
  const byTable = new Map<TypeSpec['thread'] & object, Candidate[]>();
  for (const c of page) {
    const thread = TYPES[c.type].thread;
    if (!thread || !c.rankQuery) continue;
    byTable.set(thread, [...(byTable.get(thread) ?? []), c]);
  }
  for (const [thread, hits] of byTable) {
    const rankQuery = hits[0]!.rankQuery!;
    const rows = await sql<{ owner: string; body: string }>`
      select distinct on (m.${sql.ref(thread.owner)}) m.${sql.ref(thread.owner)} as owner, m.body
      from ${sql.table(thread.table)} m
      where m.tenant_id = ${tenantId} and m.${sql.ref(thread.owner)} in (${sql.join(hits.map((h) => h.id))})
        and search_text(${who.config}::regconfig, m.body) @@ ${rankQuery}
      order by m.${sql.ref(thread.owner)}, m.created_at, m.id`.execute(db);
    for (const r of rows.rows) found.set(r.owner, [[thread.field, r.body]]);
  }
  return found;
}

/**
 * The lexemes of every word of the page's texts and of the query under the tenant's language, in
 * one statement, so a highlight marks the words the stemmed index matched (`printers` for
 * `printer`). None for `simple`, where a word matches only as written.
 */
async function stemsOf(
  db: Executor,
  config: string,
  wanted: readonly TextPattern[],
  fields: readonly (readonly [string, string | null])[],
): Promise<Stems | undefined> {
  if (config === 'simple' || wanted.length === 0) return undefined;
  const words = [...wordsOf([...wanted.map((p) => p.text), ...fields.map(([, text]) => text ?? '')])];
  if (words.length === 0) return undefined;
  const rows = await sql<{ word: string; lexemes: string[] }>`
    select w as word, tsvector_to_array(to_tsvector(${config}::regconfig, w)) as lexemes
    from unnest(${words}::text[]) as w`.execute(db);
  return new Map(rows.rows.map((r) => [r.word, r.lexemes]));
}

/** The positive words and phrases as the highlighter looks for them. */
function patterns(query: SearchQuery): TextPattern[] {
  return query.clauses
    .flat()
    .filter((t): t is TextTerm => t.kind === 'text' && !t.negated)
    .map((t) => ({ text: t.text, prefix: t.prefix }));
}
