/** @jsxImportSource hono/jsx/dom */
// The tenant's conversations, newest first, filtered by status and channel; each subject opens the
// conversation's page (conversation.tsx).
import { useState } from 'hono/jsx/dom';
import { api, type components, must } from '../api';
import { Badge, ListPage, RecordsTable, Time } from '../components';
import { SlaBadge } from './sla-badge';

type Conversation = components['schemas']['Conversation'];
type Filters = { status?: Conversation['status']; channel?: Conversation['channel'] };

export const isClosed = (status: string) => status === 'resolved' || status === 'closed';
export const subjectOf = (c: Conversation) => c.subject || 'No subject';

// every value the API takes (a Record over the generated type: one missing fails the typecheck),
// written here rather than imported, which would bundle zod into the console
const STATUSES: Record<Conversation['status'], true> = {
  open: true,
  waiting: true,
  resolved: true,
  closed: true,
};
const CHANNELS: Record<Conversation['channel'], true> = {
  email: true,
  widget: true,
  whatsapp: true,
  phone: true,
  api: true,
};

/** The two filters: the API's query parameter, its label, the "any" choice and the values. */
const FILTERS = [
  { key: 'status', label: 'Status', any: 'Any status', values: Object.keys(STATUSES) },
  { key: 'channel', label: 'Channel', any: 'Any channel', values: Object.keys(CHANNELS) },
] as const;

export function ConversationsPage() {
  const [filters, setFilters] = useState<Filters>({});
  return (
    <ListPage<Conversation>
      title="Conversations"
      intro="Threads with your contacts on every channel, newest first; open one to read its messages and files."
      what="conversations"
      load={async (page) => {
        const query = { ...page, ...filters };
        const answer = await must(api.GET('/api/v2/conversations', { params: { query } }));
        return { items: answer.conversations, total: answer.total };
      }}
      filters={[filters.status, filters.channel]}
      toolbar={<FilterForm filters={filters} onChange={setFilters} />}
      empty={
        filters.status || filters.channel ? 'No conversations match these filters.' : 'No conversations yet.'
      }
      table={(list) => <ConversationsTable list={list} />}
    />
  );
}

function FilterForm(props: { filters: Filters; onChange: (f: Filters) => void }) {
  return (
    <form class="filters" aria-label="Filter the conversations" onSubmit={(e: Event) => e.preventDefault()}>
      {FILTERS.map((f) => (
        <span class="filter" key={f.key}>
          <label for={`conversations-${f.key}`}>{f.label}</label>
          <select
            id={`conversations-${f.key}`}
            onChange={(e: Event) =>
              props.onChange({
                ...props.filters,
                [f.key]: (e.target as HTMLSelectElement).value || undefined,
              })
            }
          >
            <option value="">{f.any}</option>
            {f.values.map((v) => (
              <option key={v} value={v} selected={props.filters[f.key] === v}>
                {v}
              </option>
            ))}
          </select>
        </span>
      ))}
    </form>
  );
}

function ConversationsTable(props: { list: Conversation[] }) {
  return (
    <RecordsTable name="conversations" columns={['Subject', 'Status', 'Channel', 'Priority', 'Updated']}>
      {props.list.map((c) => (
        <tr key={c.id} data-conversation={c.id}>
          <td data-label="Subject">
            <a href={`/console/conversations/${encodeURIComponent(c.id)}`}>{subjectOf(c)}</a>
          </td>
          <td data-label="Status">
            <Badge tone={isClosed(c.status) ? 'neutral' : 'ok'}>{c.status}</Badge>{' '}
            <SlaBadge sla={c.sla} resolved={isClosed(c.status)} />
          </td>
          <td data-label="Channel">{c.channel}</td>
          <td data-label="Priority">
            <Priority value={c.priority} />
          </td>
          <td data-label="Updated">
            <Time iso={c.updated_at} />
          </td>
        </tr>
      ))}
    </RecordsTable>
  );
}

export function Priority(props: { value: Conversation['priority'] }) {
  return <Badge tone={props.value === 'urgent' ? 'bad' : 'neutral'}>{props.value}</Badge>;
}
