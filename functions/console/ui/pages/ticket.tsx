/** @jsxImportSource hono/jsx/dom */
// One ticket, reached from the search results: its fields (the tenant's own ones by their labels),
// its SLA, and its attachments (attachments.tsx).
import type { Child } from 'hono/jsx';
import { api, type components, must } from '../api';
import { Badge, LoadError, Loading, PageHead, Time, useLoad } from '../components';
import { Attachments } from './attachments';
import { SlaBadge } from './sla-badge';

type Ticket = components['schemas']['Ticket'];

const isResolved = (status: string) => status === 'resolved' || status === 'closed';

export function TicketPage(props: { id: string }) {
  const ticket = useLoad(
    () => must(api.GET('/api/v1/tickets/{ticket_id}', { params: { path: { ticket_id: props.id } } })),
    [props.id],
  );
  const t = ticket.data;
  return (
    <section aria-labelledby="page-title">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="/console/search">Search</a> <span aria-hidden="true">/</span>{' '}
        <span class="mono">{props.id}</span>
      </nav>
      <PageHead
        title={t ? t.subject : ticket.error ? 'Ticket not found' : 'Ticket'}
        intro={t ? <TicketSummary t={t} /> : undefined}
      />
      <LoadError load={ticket} />
      {ticket.loading && !t ? <Loading what="ticket" /> : null}
      {t ? (
        <>
          {t.description ? <p class="description ticket-description">{t.description}</p> : null}
          <TicketFields t={t} />
          <SlaDetail t={t} />
          <Attachments ticketId={t.id} />
        </>
      ) : null}
    </section>
  );
}

function TicketSummary(props: { t: Ticket }) {
  const { t } = props;
  return (
    <>
      <Badge tone="neutral">{t.status}</Badge>{' '}
      <Badge tone={t.priority === 'urgent' ? 'bad' : 'neutral'}>{t.priority}</Badge>{' '}
      <SlaBadge sla={t.sla} resolved={isResolved(t.status)} />{' '}
      <span class="small">
        opened <Time iso={t.created_at} />
      </span>
    </>
  );
}

function Row(props: { label: string; children: Child }) {
  return (
    <div class="field-row">
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </div>
  );
}

const fieldValue = (v: unknown) =>
  v === null || v === undefined
    ? '—'
    : Array.isArray(v)
      ? v.join(', ')
      : typeof v === 'boolean'
        ? v
          ? 'yes'
          : 'no'
        : String(v);

function TicketFields(props: { t: Ticket }) {
  const { t } = props;
  const defs = useLoad(() => must(api.GET('/api/v2/ticket-fields', { params: { query: { limit: 200 } } })));
  const label = (key: string) => defs.data?.ticket_fields.find((f) => f.key === key)?.label ?? key;
  return (
    <>
      <h2 class="section-title">Details</h2>
      <dl class="fields">
        <Row label="Type">{t.type}</Row>
        <Row label="Source">{t.source}</Row>
        <Row label="Requester">{t.requester_name || t.requester_email || '—'}</Row>
        <Row label="Assignee">
          <span class="mono">{t.assignee_id ?? '—'}</span>
        </Row>
        <Row label="Team">
          <span class="mono">{t.assignee_team_id ?? '—'}</span>
        </Row>
        <Row label="Tags">{t.tags.length ? t.tags.join(', ') : '—'}</Row>
        {Object.entries(t.custom_fields).map(([key, v]) => (
          <Row key={key} label={label(key)}>
            {fieldValue(v)}
          </Row>
        ))}
      </dl>
    </>
  );
}

function SlaDetail(props: { t: Ticket }) {
  const { sla } = props.t;
  return (
    <>
      <h2 class="section-title">SLA</h2>
      {sla ? (
        <dl class="fields">
          <Row label="First response due">
            <Time iso={sla.first_response_due_at} empty="no target" />
            {sla.first_response_breached ? <Badge tone="bad">breached</Badge> : null}
          </Row>
          <Row label="First response">
            <Time iso={sla.first_response_at} empty="not yet" />
          </Row>
          <Row label="Resolution due">
            <Time iso={sla.resolution_due_at} empty="no target" />
            {sla.resolution_breached ? <Badge tone="bad">breached</Badge> : null}
          </Row>
        </dl>
      ) : (
        <p class="muted">No SLA policy applies to this ticket.</p>
      )}
    </>
  );
}
