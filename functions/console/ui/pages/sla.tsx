/** @jsxImportSource hono/jsx/dom */
// Business hours and SLA policies on one page: the policies, in the order they are tried, name the
// hours their minutes count in. Both lists are short (the API caps them), so neither pages.
import { useState } from 'hono/jsx/dom';
import { allowed, whyNot } from '../access';
import { api, must } from '../api';
import { Confirm, Empty, LoadError, Loading, PageHead, RecordsTable, RowMenu, useLoad } from '../components';
import { HoursDialog } from './sla-hours';
import { PolicyDialog } from './sla-policy';
import { dayName, type Hours, minutesText, type Policy } from './sla-text';

export const loadHours = () => must(api.GET('/api/v2/business-hours'));

export function SlaPage() {
  const hours = useLoad(loadHours);
  const policies = useLoad(() => must(api.GET('/api/v2/sla-policies')));
  const manage = allowed('sla.manage');
  const [notice, setNotice] = useState('');
  return (
    <section aria-labelledby="page-title">
      <PageHead
        title="SLA"
        intro="Targets for the first response and the resolution, counted in business minutes of the hours a policy names, in their time zone."
      />
      {manage ? null : <p class="muted role-note">{whyNot('sla.manage')}</p>}
      <p class="notice" role="status">
        {notice}
      </p>
      <PoliciesSection
        load={policies}
        hours={hours.data?.business_hours ?? []}
        manage={manage}
        say={setNotice}
      />
      <HoursSection load={hours} manage={manage} say={setNotice} />
    </section>
  );
}

type Load<T> = ReturnType<typeof useLoad<T>>;

function SectionHead(props: { title: string; action?: string; onAction: () => void }) {
  return (
    <div class="section-head">
      <h2 class="section-title">{props.title}</h2>
      {props.action ? (
        <button type="button" class="primary" onClick={props.onAction}>
          {props.action}
        </button>
      ) : null}
    </div>
  );
}

function conditionsText(c: Policy['conditions']): string {
  const parts = [
    c.priorities?.length ? `priority ${c.priorities.join(' or ')}` : '',
    c.channels?.length ? `channel ${c.channels.join(' or ')}` : '',
    c.tags?.length ? `tag ${c.tags.join(' or ')}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'every ticket and conversation';
}

function PoliciesSection(props: {
  load: Load<{ sla_policies: Policy[] }>;
  hours: Hours[];
  manage: boolean;
  say: (s: string) => void;
}) {
  const { load } = props;
  const [editing, setEditing] = useState<Policy | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Policy | null>(null);
  const list = load.data?.sla_policies;
  const hoursName = (id: string | null) =>
    id === null ? 'around the clock' : (props.hours.find((h) => h.id === id)?.name ?? id);
  return (
    <>
      <SectionHead
        title="SLA policies"
        action={props.manage ? 'New policy' : undefined}
        onAction={() => setEditing('new')}
      />
      <p class="muted small">The first policy, by position, whose conditions match a record applies to it.</p>
      <LoadError load={load} />
      {load.loading && !list ? <Loading what="SLA policies" /> : null}
      {list && list.length === 0 ? (
        <Empty>No SLA policies yet: tickets and conversations have no due times.</Empty>
      ) : null}
      {list && list.length > 0 ? (
        <PoliciesTable
          list={list}
          hoursName={hoursName}
          manage={props.manage}
          onEdit={setEditing}
          onDelete={setDeleting}
        />
      ) : null}
      {editing ? (
        <PolicyDialog
          policy={editing === 'new' ? undefined : editing}
          hours={props.hours}
          onClose={() => setEditing(null)}
          onSaved={(p, created) => {
            setEditing(null);
            props.say(created ? `Policy ${p.name} created.` : `Policy ${p.name} saved.`);
            load.reload();
          }}
        />
      ) : null}
      {deleting ? (
        <Confirm
          title="Delete SLA policy"
          message={`${deleting.name} is deleted and no longer chosen for tickets and conversations.`}
          action="Delete"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await must(api.DELETE('/api/v2/sla-policies/{id}', { params: { path: { id: deleting.id } } }));
            props.say(`Policy ${deleting.name} deleted.`);
            load.reload();
          }}
        />
      ) : null}
    </>
  );
}

function PoliciesTable(props: {
  list: Policy[];
  hoursName: (id: string | null) => string;
  manage: boolean;
  onEdit: (p: Policy) => void;
  onDelete: (p: Policy) => void;
}) {
  return (
    <RecordsTable
      name="sla-policies"
      columns={['#', 'Policy', 'Applies to', 'Targets', 'Hours']}
      actions={props.manage}
    >
      {props.list.map((p) => (
        <tr key={p.id} data-policy={p.name}>
          <td data-label="Position">{p.position}</td>
          <td data-label="Policy">
            <strong>{p.name}</strong>
          </td>
          <td data-label="Applies to">{conditionsText(p.conditions)}</td>
          <td data-label="Targets">
            first response {minutesText(p.first_response_minutes)}; resolution{' '}
            {minutesText(p.resolution_minutes)}
          </td>
          <td data-label="Hours">{props.hoursName(p.business_hours_id)}</td>
          {props.manage ? (
            <td class="row-actions">
              <RowMenu
                label={`Actions for ${p.name}`}
                items={[
                  { label: 'Edit', run: () => props.onEdit(p) },
                  { label: 'Delete', danger: true, run: () => props.onDelete(p) },
                ]}
              />
            </td>
          ) : null}
        </tr>
      ))}
    </RecordsTable>
  );
}

const intervalsText = (h: Hours) =>
  h.intervals.length === 0
    ? 'no business time'
    : h.intervals.map((i) => `${dayName(i.day)} ${i.start}–${i.end}`).join(', ');

function HoursSection(props: {
  load: Load<{ business_hours: Hours[] }>;
  manage: boolean;
  say: (s: string) => void;
}) {
  const { load } = props;
  const [editing, setEditing] = useState<Hours | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Hours | null>(null);
  const list = load.data?.business_hours;
  return (
    <>
      <SectionHead
        title="Business hours"
        action={props.manage ? 'New business hours' : undefined}
        onAction={() => setEditing('new')}
      />
      <LoadError load={load} />
      {load.loading && !list ? <Loading what="business hours" /> : null}
      {list && list.length === 0 ? (
        <Empty>No business hours yet: policies count around the clock.</Empty>
      ) : null}
      {list && list.length > 0 ? (
        <RecordsTable
          name="business-hours"
          columns={['Name', 'Time zone', 'Open', 'Holidays']}
          actions={props.manage}
        >
          {list.map((h) => (
            <tr key={h.id} data-hours={h.name}>
              <td data-label="Name">
                <strong>{h.name}</strong>
              </td>
              <td data-label="Time zone" class="mono">
                {h.timezone}
              </td>
              <td data-label="Open">{intervalsText(h)}</td>
              <td data-label="Holidays">{h.holidays.map((d) => `${d.date} ${d.name}`).join(', ') || '—'}</td>
              {props.manage ? (
                <td class="row-actions">
                  <RowMenu
                    label={`Actions for ${h.name}`}
                    items={[
                      { label: 'Edit', run: () => setEditing(h) },
                      { label: 'Delete', danger: true, run: () => setDeleting(h) },
                    ]}
                  />
                </td>
              ) : null}
            </tr>
          ))}
        </RecordsTable>
      ) : null}
      {editing ? (
        <HoursDialog
          hours={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
          onSaved={(h, created) => {
            setEditing(null);
            props.say(created ? `Business hours ${h.name} created.` : `Business hours ${h.name} saved.`);
            load.reload();
          }}
        />
      ) : null}
      {deleting ? (
        <Confirm
          title="Delete business hours"
          message={`${deleting.name} is deleted. Hours that a policy still uses cannot be deleted.`}
          action="Delete"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await must(api.DELETE('/api/v2/business-hours/{id}', { params: { path: { id: deleting.id } } }));
            props.say(`Business hours ${deleting.name} deleted.`);
            load.reload();
          }}
        />
      ) : null}
    </>
  );
}
