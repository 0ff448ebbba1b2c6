/** @jsxImportSource hono/jsx/dom */
// A ticket's or conversation's SLA at a glance, from its `sla` field: breached, due (the earliest
// target not yet met), met, or nothing when no policy applies.
import type { components } from '../api';
import { Badge, Time } from '../components';

export type Sla = components['schemas']['Ticket']['sla'];

/** The earliest due time not yet met: the first response's until it is sent, then the resolution's. */
export function nextDue(sla: NonNullable<Sla>): string | null {
  if (sla.first_response_due_at && !sla.first_response_at) return sla.first_response_due_at;
  return sla.resolution_due_at;
}

export function SlaBadge(props: { sla: Sla; resolved?: boolean }) {
  const { sla } = props;
  if (!sla) return null;
  if (sla.first_response_breached || sla.resolution_breached) {
    const which =
      sla.first_response_breached && sla.resolution_breached
        ? 'first response and resolution'
        : sla.first_response_breached
          ? 'first response'
          : 'resolution';
    return (
      <span class="sla-badge" data-sla="breached">
        <Badge tone="bad">SLA breached</Badge> <span class="small muted">{which}</span>
      </span>
    );
  }
  const due = props.resolved ? null : nextDue(sla);
  if (!due)
    return (
      <span class="sla-badge" data-sla="met">
        <Badge tone="ok">SLA met</Badge>
      </span>
    );
  return (
    <span class="sla-badge" data-sla="due">
      <Badge tone="warn">SLA due</Badge>{' '}
      <span class="small muted">
        <Time iso={due} />
      </span>
    </span>
  );
}
