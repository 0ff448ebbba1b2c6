/** @jsxImportSource hono/jsx/dom */
// Search: one box over tickets, conversations, contacts and companies in the API's query language
// (docs/search.md), the hits with their highlights marked, more by the answer's cursor. The query
// and the types are in the address, so a search can be shared and survives a reload.
import type { Child } from 'hono/jsx';
import { useEffect, useState } from 'hono/jsx/dom';
import type { SearchHit } from '../../../../clients/typescript/index';
import { ApiError, api, must } from '../api';
import { Badge, Empty, ErrorText, PageHead, Time } from '../components';
import { SlaBadge } from './sla-badge';

const TYPES = [
  ['ticket', 'Tickets'],
  ['conversation', 'Conversations'],
  ['contact', 'Contacts'],
  ['company', 'Companies'],
] as const;
type Type = (typeof TYPES)[number][0];
const PAGE = 20;

/** The query and types the address holds (`?q=…&types=ticket,contact`). */
function fromAddress(): { q: string; types: Type[] } {
  const params = new URLSearchParams(location.search);
  const named = (params.get('types') ?? '').split(',').filter((t): t is Type => TYPES.some(([k]) => k === t));
  return { q: params.get('q') ?? '', types: named.length > 0 ? named : TYPES.map(([k]) => k) };
}

function toAddress(q: string, types: Type[]) {
  const params = new URLSearchParams();
  if (q) params.set('q', q);
  if (types.length < TYPES.length) params.set('types', types.join(','));
  const search = params.toString();
  history.replaceState(null, '', `${location.pathname}${search ? `?${search}` : ''}`);
}

/** The fragment with each match in a <mark>: text nodes only, so nothing from a record is markup. */
export function Marked(props: { fragment: string; matches: [number, number][] }) {
  const parts: Child[] = [];
  let at = 0;
  for (const [start, end] of props.matches) {
    if (start < at || end > props.fragment.length) continue;
    parts.push(props.fragment.slice(at, start), <mark>{props.fragment.slice(start, end)}</mark>);
    at = end;
  }
  parts.push(props.fragment.slice(at));
  return <>{parts}</>;
}

/** What a hit is called in the list: the subject, the person's or company's name. */
function titleOf(hit: SearchHit): string {
  switch (hit.type) {
    case 'ticket':
      return hit.record.subject;
    case 'conversation':
      return hit.record.subject ?? `Conversation on ${hit.record.channel}`;
    case 'contact':
      return (
        [hit.record.first_name, hit.record.last_name].filter(Boolean).join(' ') ||
        (hit.record.email ?? hit.record.id)
      );
    case 'company':
      return hit.record.name;
  }
}

function statusOf(hit: SearchHit): string | null {
  return hit.type === 'ticket' || hit.type === 'conversation' ? hit.record.status : null;
}

const isDone = (status: string) => status === 'resolved' || status === 'closed';

/** A ticket's title opens the ticket's page (its fields, SLA and attachments). */
function HitTitle(props: { hit: SearchHit }) {
  const { hit } = props;
  if (hit.type !== 'ticket') return <strong>{titleOf(hit)}</strong>;
  return (
    <a href={`/console/tickets/${encodeURIComponent(hit.record.id)}`}>
      <strong>{titleOf(hit)}</strong>
    </a>
  );
}

/** The hits, each with its type, title, status, time and marked fragments. */
function SearchHits(props: { hits: SearchHit[]; busy: boolean }) {
  const { hits, busy } = props;
  return (
    <ol class="search-hits" aria-label="Search results" aria-busy={busy ? 'true' : undefined}>
      {hits.map((hit) => (
        <li key={`${hit.type}:${hit.record.id}`} class="search-hit">
          <div class="hit-head">
            <Badge tone="neutral">{hit.type}</Badge> <HitTitle hit={hit} />
            {statusOf(hit) ? <span class="muted small"> · {statusOf(hit)}</span> : null}
            {hit.type === 'ticket' || hit.type === 'conversation' ? (
              <>
                {' '}
                <SlaBadge sla={hit.record.sla} resolved={isDone(hit.record.status)} />
              </>
            ) : null}
            <span class="muted small">
              {' '}
              · <Time iso={hit.record.created_at} />
            </span>
            <div class="mono small muted">{hit.record.id}</div>
          </div>
          {hit.highlights.map((h) => (
            <p key={h.field} class="hit-fragment small">
              <span class="muted">{h.field}: </span>
              <Marked fragment={h.fragment} matches={h.matches as [number, number][]} />
            </p>
          ))}
        </li>
      ))}
    </ol>
  );
}

/** One tick per record type. */
function TypeChoices(props: { types: Type[]; onToggle: (type: Type) => void }) {
  return (
    <fieldset class="search-types">
      <legend class="sr-only">Types to search</legend>
      {TYPES.map(([type, label]) => (
        <label key={type}>
          <input type="checkbox" checked={props.types.includes(type)} onChange={() => props.onToggle(type)} />{' '}
          {label}
        </label>
      ))}
    </fieldset>
  );
}

/** The pages of hits of `asked` over `types`, read again when either changes; `more` follows the cursor. */
function useSearch(asked: string, types: Type[]) {
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const load = async (query: string, cursor: string | null) => {
    setBusy(true);
    setError(undefined);
    try {
      const page = await must(
        api.search(query, { types, limit: PAGE, ...(cursor ? { cursor } : {}) }).then((data) => ({ data })),
      );
      setHits((before) => (cursor ? [...before, ...page.hits] : page.hits));
      setNext(page.next_cursor);
    } catch (e) {
      if (!cursor) setHits([]);
      setNext(null);
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    toAddress(asked, types);
    if (asked.trim()) void load(asked, null);
    else {
      setHits([]);
      setNext(null);
    }
  }, [asked, types.join(',')]);

  return { hits, next, error, busy, more: () => (next ? load(asked, next) : Promise.resolve()) };
}

export function SearchPage() {
  const initial = fromAddress();
  const [draft, setDraft] = useState(initial.q);
  const [types, setTypes] = useState<Type[]>(initial.types);
  const [asked, setAsked] = useState(initial.q);
  const { hits, next, error, busy, more } = useSearch(asked, types);

  const toggle = (type: Type) =>
    setTypes((now) => {
      const nextTypes = now.includes(type) ? now.filter((t) => t !== type) : [...now, type];
      // at least one type: unticking the last one leaves it ticked
      return nextTypes.length === 0 ? now : TYPES.map(([k]) => k).filter((k) => nextTypes.includes(k));
    });

  return (
    <section aria-labelledby="page-title">
      <PageHead
        title="Search"
        intro={
          <>
            Words and <code>"phrases"</code> over tickets, conversations, contacts and companies, with filters
            such as <code>status:open</code>, <code>tag:vip</code>, <code>assignee:me</code>,{' '}
            <code>created&gt;7d</code>; <code>-</code> excludes, <code>OR</code> joins.
          </>
        }
      />
      <search>
        <form
          class="search-form"
          onSubmit={(e: Event) => {
            e.preventDefault();
            setAsked(draft.trim());
          }}
        >
          <label for="search-query" class="sr-only">
            Search query
          </label>
          <input
            id="search-query"
            type="search"
            value={draft}
            maxLength={1000}
            placeholder='printer "on fire" status:open'
            aria-describedby={error ? 'search-error' : undefined}
            aria-invalid={error ? 'true' : undefined}
            onInput={(e: Event) => setDraft((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="primary" disabled={busy}>
            Search
          </button>
          <TypeChoices types={types} onToggle={toggle} />
        </form>
      </search>
      <ErrorText id="search-error" message={error} />
      {asked && !error && !busy && hits.length === 0 ? (
        <Empty>
          Nothing matches <q>{asked}</q>.
        </Empty>
      ) : null}
      <SearchHits hits={hits} busy={busy} />
      {next ? (
        <button type="button" disabled={busy} onClick={() => void more()}>
          More results
        </button>
      ) : null}
    </section>
  );
}
