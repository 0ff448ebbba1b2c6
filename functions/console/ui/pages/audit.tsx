/** @jsxImportSource hono/jsx/dom */
// The audit log: who did what to which key, webhook or member, by name rather than by id, narrowed
// by actor, action and dates (the API's filters), in pages of 50.
import { useState } from 'hono/jsx/dom';
import { AUDIT_ACTIONS } from '../../../../shared/audit/actions';
import { allowed } from '../access';
import { api, type components, isMemberId, must } from '../api';
import {
  Breakable,
  Empty,
  ErrorText,
  LoadError,
  Loading,
  NotForYourRole,
  PageHead,
  Pager,
  RecordsTable,
  Time,
  useLoad,
} from '../components';
import { currentIdentity } from '../session';

type Entry = components['schemas']['AuditEntry'];
type Action = (typeof AUDIT_ACTIONS)[number];

const PAGE = 50;
/** Members read for names: the API's largest page; older members beyond it show as their id. */
const MEMBERS_PAGE = 100;

interface Filters {
  actor: string;
  action: '' | Action;
  /** `YYYY-MM-DD` in the browser's time zone, inclusive */
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { actor: '', action: '', from: '', to: '' };
/** The date boxes' range: what a date input and the API's instants both hold. */
const FIRST_DAY = '2000-01-01';
const LAST_DAY = '9999-12-31';
const LAST_INSTANT = '9999-12-31T23:59:59.999Z';
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The filters kept in the address (`?actor=…&action=…&from=…&to=…`), so a filtered log can be
 * shared and survives a reload; a value that is not one (an unknown action, a malformed day) is dropped.
 */
function filtersFromUrl(): Filters {
  const q = new URLSearchParams(location.search);
  const action = q.get('action') ?? '';
  const day = (v: string | null) => (v && DAY.test(v) ? v : '');
  return {
    actor: q.get('actor') ?? '',
    action: (AUDIT_ACTIONS as readonly string[]).includes(action) ? (action as Action) : '',
    from: day(q.get('from')),
    to: day(q.get('to')),
  };
}

function filtersToUrl(f: Filters) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) q.set(k, v);
  const search = q.toString();
  history.replaceState(null, '', `${location.pathname}${search ? `?${search}` : ''}`);
}

/** Why the dates select nothing, before asking: the window is empty. */
const windowProblem = (f: Filters) =>
  f.from && f.to && f.from > f.to ? 'From is later than To: pick a From on or before the To date.' : '';

export function AuditPage() {
  if (!allowed('audit')) return <NotForYourRole title="Audit log" action="audit" />;
  return <AuditList />;
}

/** Local calendar days as the API's instants: `from` at its midnight, `to` up to the next one. */
function timeWindow(f: Filters) {
  // the day after the last one has no instant the API takes (year 10000): the last instant instead
  const midnight = (day: string, plus = 0) => {
    const d = new Date(`${day}T00:00:00`);
    d.setDate(d.getDate() + plus);
    return d.getUTCFullYear() > 9999 ? LAST_INSTANT : d.toISOString();
  };
  return {
    ...(f.from ? { since: midnight(f.from) } : {}),
    ...(f.to ? { until: midnight(f.to, 1) } : {}),
  };
}

/** Names for the ids the log holds: members by email, keys by name, webhooks by URL. */
function useNames() {
  const names = useLoad(async () => {
    const [team, keys, hooks] = await Promise.all([
      must(api.GET('/api/v1/tenant/users', { params: { query: { limit: MEMBERS_PAGE } } })).catch(() => null),
      must(api.GET('/api/v1/api-keys')).catch(() => null),
      must(api.GET('/api/v1/webhooks')).catch(() => null),
    ]);
    const map = new Map<string, string>();
    for (const u of team?.users ?? []) map.set(`user:${u.id}`, u.email);
    // a rotation keeps the name: the prefix tells the generations apart
    for (const k of keys?.api_keys ?? [])
      map.set(`api_key:${k.id}`, `API key “${k.name}” (${k.key_prefix}…)`);
    for (const w of hooks?.webhooks ?? []) map.set(`webhook:${w.id}`, w.url);
    return map;
  });
  const me = currentIdentity()?.userId;
  const map = names.data ?? new Map<string, string>();
  /** `kind:id` as a person reads it; the raw id stays in the cell's title */
  const name = (ref: string) => {
    if (ref === `user:${me}`) return `you${map.get(ref) ? ` (${map.get(ref)})` : ''}`;
    const known = map.get(ref);
    if (known) return known;
    const [kind, id = ''] = ref.split(/:(.*)/);
    if (kind === 'user' && !isMemberId(id)) return 'CLI token';
    if (kind === 'user') return 'a removed member';
    if (kind === 'api_key') return 'a deleted API key';
    if (kind === 'webhook') return 'a deleted webhook';
    return ref;
  };
  return { name, actors: [...map.keys()].filter((k) => k.startsWith('user:') || k.startsWith('api_key:')) };
}

function AuditList() {
  const [filters, setFilters] = useState<Filters>(filtersFromUrl);
  const [offset, setOffset] = useState(0);
  const problem = windowProblem(filters);
  const log = useLoad(
    () =>
      problem
        ? Promise.resolve(null)
        : must(
            api.GET('/api/v2/audit-log', {
              params: {
                query: {
                  limit: PAGE,
                  offset,
                  ...(filters.action ? { action: filters.action } : {}),
                  ...(filters.actor ? { actor: filters.actor } : {}),
                  ...timeWindow(filters),
                },
              },
            }),
          ),
    [filters, offset],
  );
  const names = useNames();
  const entries = log.data?.entries ?? [];
  const seen = [...new Set([...names.actors, ...entries.map((e) => e.actor)])];
  return (
    <section aria-labelledby="page-title">
      <PageHead
        title="Audit log"
        intro="Every change to API keys, webhooks and the team, and every sign-in: who, what, when and from where."
      />
      <AuditFilters
        filters={filters}
        actors={seen}
        name={names.name}
        onChange={(next) => {
          filtersToUrl(next);
          setFilters(next);
          setOffset(0);
        }}
      />
      <ErrorText message={problem} id="audit-window-error" />
      <LoadError load={log} />
      {log.loading && !log.data ? <Loading what="the audit log" /> : null}
      {log.data && entries.length === 0 ? <Empty>Nothing recorded that matches.</Empty> : null}
      {entries.length > 0 && log.data ? (
        <>
          <AuditTable entries={entries} name={names.name} />
          <Pager
            offset={offset}
            shown={entries.length}
            total={log.data.total as number}
            size={PAGE}
            onMove={setOffset}
            labels={['Newer', 'Older']}
          />
        </>
      ) : null}
    </section>
  );
}

function AuditFilters(props: {
  filters: Filters;
  actors: string[];
  name: (ref: string) => string;
  onChange: (f: Filters) => void;
}) {
  const { filters } = props;
  const set = (patch: Partial<Filters>) => props.onChange({ ...filters, ...patch });
  const value = (e: Event) => (e.target as HTMLInputElement | HTMLSelectElement).value;
  return (
    <form class="filters" aria-label="Filter the audit log" onSubmit={(e: Event) => e.preventDefault()}>
      <span class="filter">
        <label for="audit-actor">Actor</label>
        <select id="audit-actor" onChange={(e: Event) => set({ actor: value(e) })}>
          <option value="">Anyone</option>
          {props.actors.map((a) => (
            <option key={a} value={a} selected={a === filters.actor}>
              {props.name(a)}
            </option>
          ))}
        </select>
      </span>
      <span class="filter">
        <label for="audit-action">Action</label>
        <select id="audit-action" onChange={(e: Event) => set({ action: value(e) as Filters['action'] })}>
          <option value="">All actions</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a} selected={a === filters.action}>
              {a}
            </option>
          ))}
        </select>
      </span>
      {/* each label with its box: they wrap onto the next line together, never apart */}
      <span class="filter">
        <label for="audit-from">From</label>
        <input
          id="audit-from"
          type="date"
          value={filters.from}
          min={FIRST_DAY}
          max={LAST_DAY}
          aria-describedby={windowProblem(filters) ? 'audit-window-error' : undefined}
          onChange={(e: Event) => set({ from: value(e) })}
        />
      </span>
      <span class="filter">
        <label for="audit-to">To</label>
        <input
          id="audit-to"
          type="date"
          value={filters.to}
          min={FIRST_DAY}
          max={LAST_DAY}
          aria-describedby={windowProblem(filters) ? 'audit-window-error' : undefined}
          onChange={(e: Event) => set({ to: value(e) })}
        />
      </span>
      {Object.values(filters).every((v) => v === '') ? null : (
        <button type="button" onClick={() => props.onChange(NO_FILTERS)}>
          Clear filters
        </button>
      )}
    </form>
  );
}

/** An entry's details (`metadata`), ids in it named like the rest. */
const details = (e: Entry, name: (ref: string) => string) =>
  Object.entries(e.metadata)
    .map(([k, v]) => {
      if (k === 'replaced_by' && typeof v === 'string') return `replaced by ${name(`api_key:${v}`)}`;
      return `${k.replace(/_/g, ' ')}: ${typeof v === 'string' ? v : JSON.stringify(v)}`;
    })
    .join(' · ');

function AuditTable(props: { entries: Entry[]; name: (ref: string) => string }) {
  const { name } = props;
  return (
    <RecordsTable name="audit" columns={['When', 'Actor', 'Action', 'Target', 'Details', 'Source IP']}>
      {props.entries.map((e) => (
        <tr key={e.id} data-audit-id={e.id}>
          <td data-label="When">
            <Time iso={e.created_at} />
          </td>
          <td data-label="Actor" title={e.actor} class="actor">
            <Breakable text={name(e.actor)} />
          </td>
          <td data-label="Action">
            <span class="chip">{e.action}</span>
          </td>
          <td data-label="Target" title={e.target_id} class="target">
            <Breakable text={name(`${e.target_type}:${e.target_id}`)} />
          </td>
          <td data-label="Details" class="small details">
            <Breakable text={details(e, name)} />
          </td>
          <td data-label="Source IP" class="mono">
            {e.source_ip ?? '—'}
          </td>
        </tr>
      ))}
    </RecordsTable>
  );
}
