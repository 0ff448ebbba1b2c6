/** @jsxImportSource hono/jsx/dom */
// An endpoint's health on its page: healthy, failing (since when, how many deliveries wait to be
// re-sent on its recovery) or disabled (when; Enable turns it back on and re-sends that backlog).
// The list entries carry no health (the spec fixes their fields): the single read does.
import { api, type components, must } from '../api';
import { Badge, ErrorText, plural, Time, useLoad, useSubmit } from '../components';

type Health = components['schemas']['WebhookHealth'];

const TONE = { healthy: 'ok', failing: 'warn', disabled: 'bad' } as const;

export function HealthBadge(props: { state: Health['state'] }) {
  return <Badge tone={TONE[props.state]}>{props.state}</Badge>;
}

/** `version`: bumped by the page when the endpoint changed (enabled, disabled), to read it again. */
export function EndpointHealth(props: {
  id: string;
  manage: boolean;
  version: unknown;
  onChange: () => void;
}) {
  const read = useLoad(
    () => must(api.GET('/api/v1/webhooks/{id}', { params: { path: { id: props.id } } })),
    [props.id, props.version],
  );
  const health = read.data?.health;
  const enable = useSubmit(async () => {
    await must(
      api.PATCH('/api/v2/webhooks/{id}', { params: { path: { id: props.id } }, body: { is_active: true } }),
    );
    read.reload();
    props.onChange();
  });
  if (!health) return read.error ? <ErrorText message={read.error} /> : null;
  return (
    <section class="health" aria-label="Endpoint health">
      <p>
        <HealthBadge state={health.state} /> <HealthText health={health} />
      </p>
      {health.state === 'disabled' && props.manage ? (
        <p>
          <button type="button" class="primary" onClick={() => void enable.submit()} disabled={enable.busy}>
            Enable
          </button>{' '}
          <span class="small muted">Sends again, and re-sends what failed since it started failing.</span>
        </p>
      ) : null}
      <ErrorText message={enable.error} />
    </section>
  );
}

function HealthText(props: { health: Health }) {
  const h = props.health;
  const waiting =
    h.failed_deliveries > 0 ? (
      <> · {plural(h.failed_deliveries, 'failed delivery', 'failed deliveries')} waiting to be re-sent</>
    ) : null;
  const last = (
    <>
      last success <Time iso={h.last_success_at} empty="never" />
    </>
  );
  if (h.state === 'healthy') return <span class="small">{last}</span>;
  if (h.state === 'failing')
    return (
      <span class="small">
        failing since <Time iso={h.failing_since} /> · {last}
        {waiting}
      </span>
    );
  return (
    <span class="small">
      disabled <Time iso={h.disabled_at} /> after failing since <Time iso={h.failing_since} /> · {last}
      {waiting}
    </span>
  );
}
