/** @jsxImportSource hono/jsx/dom */
import { useEffect, useState } from 'hono/jsx/dom';
import { MAX_ATTEMPTS } from '../../../../shared/webhooks/retry';
import { allowed, whyNot } from '../access';
import { api, must } from '../api';
import {
  Badge,
  Confirm,
  Empty,
  ErrorText,
  Loading,
  Modal,
  PageHead,
  plural,
  SecretOnce,
  Time,
  useLoad,
} from '../components';
import { navigate } from '../router';

interface Webhook {
  id: string;
  url: string;
  events: string[];
  is_active: boolean;
  created_at: string;
}

interface Delivery {
  id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  created_at: string;
}

interface Catalog {
  event_types: string[];
  groups: Record<string, string[]>;
  wildcard: string;
}

const loadWebhooks = async () => (await must(api.GET('/api/v1/webhooks'))) as { webhooks: Webhook[] };

const DELIVERY_TONE = { delivered: 'ok', pending: 'warn', failed: 'bad' } as const;

function EventList(props: { events: string[] }) {
  return (
    <ul class="chips">
      {props.events.map((e) => (
        <li key={e}>{e === '*' ? 'all events (*)' : e}</li>
      ))}
    </ul>
  );
}

export function WebhooksPage() {
  const hooks = useLoad(loadWebhooks);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);

  return (
    <section aria-labelledby="page-title">
      <PageHead
        title="Webhooks"
        intro="Signed HTTPS POSTs to your endpoints when tickets, calls, conversations, contacts or articles change."
        actions={
          allowed('webhooks.manage') ? (
            <button type="button" class="primary" onClick={() => setCreating(true)}>
              Add endpoint
            </button>
          ) : null
        }
      />
      {allowed('webhooks.manage') ? null : <p class="muted role-note">{whyNot('webhooks.manage')}</p>}
      <ErrorText message={hooks.error} />
      {hooks.loading && !hooks.data ? <Loading what="webhooks" /> : null}
      {hooks.data && hooks.data.webhooks.length === 0 ? (
        <Empty>No endpoints yet. Add one to receive events.</Empty>
      ) : null}
      {hooks.data && hooks.data.webhooks.length > 0 ? (
        <ul class="cards">
          {hooks.data.webhooks.map((w) => (
            <li key={w.id} class="card">
              <div class="card-main">
                <a class="mono url" href={`/console/webhooks/${encodeURIComponent(w.id)}`}>
                  {w.url}
                </a>
                <EventList events={w.events} />
              </div>
              <div class="card-side">
                {w.is_active ? <Badge tone="ok">enabled</Badge> : <Badge tone="neutral">disabled</Badge>}
                <span class="muted small">
                  added <Time iso={w.created_at} />
                </span>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      {creating ? (
        <EndpointDialog
          onClose={() => setCreating(false)}
          onSave={async (body) => {
            const created = (await must(api.POST('/api/v1/webhooks', { body }))) as {
              id: string;
              secret: string;
            };
            hooks.reload();
            setCreating(false);
            setSecret({ id: created.id, secret: created.secret });
          }}
        />
      ) : null}
      {secret ? (
        <Modal title="Endpoint added" onClose={() => setSecret(null)}>
          <div class="modal-body">
            <p>
              Verify every delivery: HMAC-SHA256 of <code>X-Webhook-Timestamp + "." + body</code> with this
              secret, compared with <code>X-Webhook-Signature</code>.
            </p>
            <SecretOnce label="Signing secret" secret={secret.secret} what="signing secret" />
          </div>
          <footer class="modal-foot">
            <button
              type="button"
              class="primary"
              onClick={() => {
                const id = secret.id;
                setSecret(null);
                navigate(`/webhooks/${encodeURIComponent(id)}`);
              }}
            >
              I have copied it
            </button>
          </footer>
        </Modal>
      ) : null}
    </section>
  );
}

/**
 * "Add endpoint", and "Edit" of an existing one (`endpoint` given): the URL and the events, with the
 * same checks either way. Editing keeps the signing secret.
 */
function EndpointDialog(props: {
  endpoint?: Webhook;
  onClose: () => void;
  onSave: (body: { url: string; events: string[] }) => Promise<void>;
}) {
  const catalog = useLoad(async () => (await must(api.GET('/api/v2/webhooks/event-types'))) as Catalog);
  const editing = props.endpoint;
  const [url, setUrl] = useState(editing?.url ?? 'https://');
  const [all, setAll] = useState(editing?.events.includes('*') ?? false);
  const [events, setEvents] = useState<Set<string>>(new Set(editing?.events.filter((e) => e !== '*')));
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const formId = editing ? 'edit-webhook-form' : 'create-webhook-form';

  const toggle = (names: string[], on: boolean) =>
    setEvents((prev) => {
      const next = new Set(prev);
      for (const n of names) on ? next.add(n) : next.delete(n);
      return next;
    });

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!url.startsWith('https://')) return setError('The URL must start with https://');
    const chosen = all ? ['*'] : [...events];
    if (chosen.length === 0) return setError('Pick at least one event, or all events.');
    setBusy(true);
    setError('');
    try {
      await props.onSave({ url, events: chosen });
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };

  return (
    <Modal title={editing ? 'Edit endpoint' : 'Add endpoint'} onClose={props.onClose} wide>
      {/* any edit answers the last error ("Pick at least one event"): it goes until the next submit */}
      <form
        id={formId}
        class="modal-body"
        onSubmit={submit}
        onInput={() => setError('')}
        onChange={() => setError('')}
      >
        <label for="webhook-url">Endpoint URL</label>
        <input
          id="webhook-url"
          type="url"
          required
          maxLength={2048}
          pattern="https://.*"
          class="mono"
          value={url}
          onInput={(e: Event) => setUrl((e.target as HTMLInputElement).value)}
        />
        <p class="muted small">
          HTTPS only; the host must resolve to public addresses.
          {editing ? ' The signing secret stays the same.' : ''}
        </p>
        <fieldset>
          <legend>Events</legend>
          <label class="check">
            <input
              type="checkbox"
              id="all-events"
              checked={all}
              onChange={(e: Event) => setAll((e.target as HTMLInputElement).checked)}
            />
            <span>
              All events, including ones added later (<code>*</code>)
            </span>
          </label>
          <ErrorText message={catalog.error} />
          {catalog.data && !all ? (
            <div class="event-groups">
              {Object.entries(catalog.data.groups).map(([group, names]) => (
                <fieldset key={group} class="scope-group">
                  <legend>
                    <label class="check">
                      <input
                        type="checkbox"
                        aria-label={`All ${group} events`}
                        checked={names.every((n) => events.has(n))}
                        onChange={(e: Event) => toggle(names, (e.target as HTMLInputElement).checked)}
                      />
                      <span>{group}</span>
                    </label>
                  </legend>
                  {names.map((n) => (
                    <label key={n} class="check">
                      <input
                        type="checkbox"
                        name="event"
                        value={n}
                        checked={events.has(n)}
                        onChange={(e: Event) => toggle([n], (e.target as HTMLInputElement).checked)}
                      />
                      <span class="mono">{n}</span>
                    </label>
                  ))}
                </fieldset>
              ))}
            </div>
          ) : null}
        </fieldset>
        <ErrorText message={error} />
      </form>
      <footer class="modal-foot">
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="submit" form={formId} class="primary" disabled={busy}>
          {editing ? 'Save changes' : 'Add endpoint'}
        </button>
      </footer>
    </Modal>
  );
}

/** Deliveries still pending are polled so the log moves on its own. */
const POLL_MS = 3000;
/** Deliveries per page of the log (the API allows up to 200). */
const LOG_PAGE = 50;

const TEST_EVENT_TITLE =
  'Creates a real ticket ("Test ticket from the console") through the API, so its ticket.created event is sent here.';

export function WebhookDetailPage(props: { id: string }) {
  const hooks = useLoad(loadWebhooks);
  const hook = hooks.data?.webhooks.find((w) => w.id === props.id);
  // older pages by cursor: the last delivery id of every page read before this one
  const [cursors, setCursors] = useState<string[]>([]);
  const before = cursors[cursors.length - 1];
  const log = useLoad(
    async () =>
      (await must(
        api.GET('/api/v1/webhooks/{id}/deliveries', {
          params: { path: { id: props.id }, query: { limit: LOG_PAGE, ...(before ? { before } : {}) } },
        }),
      )) as { deliveries: Delivery[] },
    [props.id, before],
  );
  const [open, setOpen] = useState<string | null>(null);
  const [dialog, setDialog] = useState<'delete' | 'recover' | 'edit' | null>(null);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');

  const pending = log.data?.deliveries.some((d) => d.status === 'pending');
  useEffect(() => {
    if (!pending) return;
    const t = setTimeout(log.reload, POLL_MS);
    return () => clearTimeout(t);
  }, [pending, log.data]);

  const run = async (what: () => Promise<string>) => {
    setError('');
    setNotice('');
    try {
      setNotice(await what());
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const setActive = (is_active: boolean) =>
    run(async () => {
      await must(
        api.PATCH('/api/v2/webhooks/{id}', { params: { path: { id: props.id } }, body: { is_active } }),
      );
      hooks.reload();
      return is_active
        ? 'Endpoint enabled.'
        : 'Endpoint disabled: nothing is sent until it is enabled again.';
    });

  const redeliver = (d: Delivery) =>
    run(async () => {
      await must(
        api.POST('/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver', {
          params: { path: { id: props.id, delivery_id: d.id } },
        }),
      );
      log.reload();
      return `${d.event_type} queued again as a new delivery.`;
    });

  const sendTest = () =>
    run(async () => {
      const ticket = (await must(
        api.POST('/api/v1/tickets', {
          body: {
            subject: 'Test ticket from the console',
            description: 'Created to send a ticket.created event.',
          },
        }),
      )) as { id: string };
      setTimeout(log.reload, 500);
      return `Created ticket ${ticket.id}; its ticket.created event is on its way.`;
    });

  if (!hook)
    return (
      <section aria-labelledby="page-title">
        <PageHead title={hooks.loading && !hooks.data ? 'Endpoint' : 'Endpoint not found'} />
        {hooks.loading && !hooks.data ? (
          <Loading what="endpoint" />
        ) : (
          <>
            <ErrorText message={hooks.error ?? 'Webhook not found'} />
            <a href="/console/webhooks">Back to webhooks</a>
          </>
        )}
      </section>
    );
  const hearsTickets = hook.events.includes('*') || hook.events.includes('ticket.created');
  const manage = allowed('webhooks.manage');
  const deliveries = log.data?.deliveries ?? [];

  return (
    <section aria-labelledby="page-title">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="/console/webhooks">Webhooks</a> <span aria-hidden="true">/</span> <span>{hook.id}</span>
      </nav>
      <PageHead
        title="Endpoint"
        intro={<span class="mono url">{hook.url}</span>}
        actions={
          <>
            {hearsTickets ? (
              <button type="button" onClick={sendTest} disabled={!hook.is_active} title={TEST_EVENT_TITLE}>
                Send test event (creates a ticket)
              </button>
            ) : null}
            {manage ? (
              <>
                <button type="button" onClick={() => setDialog('edit')}>
                  Edit
                </button>
                <button type="button" onClick={() => setDialog('recover')} disabled={!hook.is_active}>
                  Recover failed…
                </button>
                <label class="switch">
                  <input
                    type="checkbox"
                    role="switch"
                    aria-checked={hook.is_active ? 'true' : 'false'}
                    checked={hook.is_active}
                    onChange={(e: Event) => setActive((e.target as HTMLInputElement).checked)}
                  />
                  <span>{hook.is_active ? 'Enabled' : 'Disabled'}</span>
                </label>
                <button type="button" class="danger-text" onClick={() => setDialog('delete')}>
                  Delete
                </button>
              </>
            ) : (
              <Badge tone={hook.is_active ? 'ok' : 'neutral'}>
                {hook.is_active ? 'enabled' : 'disabled'}
              </Badge>
            )}
          </>
        }
      />
      <EventList events={hook.events} />
      {hearsTickets ? null : (
        <p class="muted small" id="no-test-event">
          No “Send test event” for this endpoint: the test creates a real ticket, whose event is
          ticket.created, and this endpoint does not subscribe to it.
        </p>
      )}
      {manage ? null : <p class="muted role-note">{whyNot('webhooks.manage')}</p>}
      <p class="notice" role="status">
        {notice}
      </p>
      <ErrorText message={error} />
      <div class="section-head">
        <h2>Delivery log</h2>
        <button type="button" onClick={log.reload}>
          Refresh
        </button>
      </div>
      <ErrorText message={log.error} />
      {log.loading && !log.data ? <Loading what="deliveries" /> : null}
      {log.data && deliveries.length === 0 ? (
        <Empty>
          {cursors.length > 0
            ? 'No older deliveries.'
            : `No deliveries yet. ${
                hearsTickets
                  ? 'Send a test event, or create a ticket, to see one here.'
                  : 'They appear here as events happen.'
              }`}
        </Empty>
      ) : null}
      {deliveries.length > 0 ? (
        <div class="table-wrap">
          <table class="deliveries">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Response</th>
                <th scope="col">Duration</th>
                <th scope="col">Error</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <>
                  <tr key={d.id} data-delivery-id={d.id} data-status={d.status}>
                    <td>
                      <button
                        type="button"
                        class="link mono"
                        aria-expanded={open === d.id ? 'true' : 'false'}
                        aria-controls={`timeline-${d.id}`}
                        onClick={() => setOpen(open === d.id ? null : d.id)}
                      >
                        {d.event_type}
                      </button>
                    </td>
                    <td>
                      <Badge tone={DELIVERY_TONE[d.status]}>{d.status}</Badge>
                    </td>
                    <td>
                      <AttemptDots d={d} />
                    </td>
                    <td class="mono">{d.response_status ?? '—'}</td>
                    <td>{d.duration_ms === null ? '—' : `${d.duration_ms} ms`}</td>
                    <td class="error-cell">{d.error ?? ''}</td>
                    <td>
                      <Time iso={d.next_attempt_at} />
                    </td>
                    <td>
                      <Time iso={d.created_at} />
                    </td>
                    <td class="row-actions">
                      {d.status === 'pending' || !manage ? null : (
                        <button type="button" onClick={() => redeliver(d)} disabled={!hook.is_active}>
                          Redeliver
                        </button>
                      )}
                    </td>
                  </tr>
                  {open === d.id ? (
                    <tr class="timeline-row" id={`timeline-${d.id}`}>
                      <td colSpan={9}>
                        <Timeline hookId={hook.id} d={d} />
                      </td>
                    </tr>
                  ) : null}
                </>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {cursors.length > 0 || deliveries.length === LOG_PAGE ? (
        <nav class="pager" aria-label="Delivery log pages">
          <button
            type="button"
            disabled={cursors.length === 0}
            onClick={() => setCursors((c) => c.slice(0, -1))}
          >
            Newer
          </button>
          <span class="muted">
            {cursors.length === 0
              ? `The newest ${plural(deliveries.length, 'delivery', 'deliveries')}`
              : `Older deliveries, page ${cursors.length + 1}`}
          </span>
          <button
            type="button"
            disabled={deliveries.length < LOG_PAGE}
            onClick={() => setCursors((c) => [...c, deliveries[deliveries.length - 1]?.id ?? ''])}
          >
            Older
          </button>
        </nav>
      ) : null}
      {dialog === 'edit' ? (
        <EndpointDialog
          endpoint={hook}
          onClose={() => setDialog(null)}
          onSave={async (body) => {
            // PATCH /api/v2 is the route that takes url and events (v1 has no update); the secret stays
            await must(api.PATCH('/api/v2/webhooks/{id}', { params: { path: { id: hook.id } }, body }));
            hooks.reload();
            setDialog(null);
            setNotice('Endpoint saved; the signing secret is unchanged.');
          }}
        />
      ) : null}
      {dialog === 'delete' ? (
        <Confirm
          title="Delete endpoint"
          message={`Nothing more is sent to ${hook.url}; pending deliveries are cancelled.`}
          action="Delete"
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            await must(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: hook.id } } }));
            navigate('/webhooks');
          }}
        />
      ) : null}
      {dialog === 'recover' ? (
        <RecoverDialog
          id={hook.id}
          onClose={() => setDialog(null)}
          onDone={(n) => {
            setDialog(null);
            setNotice(
              n === 0
                ? 'No failed deliveries to recover in that window.'
                : `${plural(n, 'delivery', 'deliveries')} queued again.`,
            );
            log.reload();
          }}
        />
      ) : null}
    </section>
  );
}

/** One dot per possible attempt: how far along the retry schedule a delivery is, at a glance. */
function AttemptDots(props: { d: Delivery }) {
  const { d } = props;
  const dots = Array.from({ length: MAX_ATTEMPTS }, (_, i) => {
    const n = i + 1;
    if (n < d.attempts) return 'bad';
    if (n === d.attempts) return d.status === 'delivered' ? 'ok' : 'bad';
    if (n === d.attempts + 1 && d.status === 'pending') return 'next';
    return 'none';
  });
  return (
    <span class="dots" role="img" aria-label={`${d.attempts} of ${MAX_ATTEMPTS} attempts`}>
      {dots.map((tone, i) => (
        <span key={i} class={`dot ${tone}`} />
      ))}
      <span class="small muted">{d.attempts}</span>
    </span>
  );
}

/**
 * The attempts of one delivery as a timeline: every attempt the server recorded (its time, the
 * receiver's status, how long it took, why it failed), then what comes next. Read when the row is
 * opened, and again whenever the log shows the delivery moved on.
 */
function Timeline(props: { hookId: string; d: Delivery }) {
  const { d } = props;
  const detail = useLoad(
    // typed by the client generated from the document: WebhookDeliveryDetail, with its `history`
    () =>
      must(
        api.GET('/api/v1/webhooks/{id}/deliveries/{delivery_id}', {
          params: { path: { id: props.hookId, delivery_id: d.id } },
        }),
      ),
    [d.id, d.attempts, d.status],
  );
  const steps: { tone: string; title: string; when: string | null; detail?: string }[] = [
    { tone: 'neutral', title: `${d.event_type} queued`, when: d.created_at, detail: `Delivery ${d.id}` },
  ];
  for (const a of detail.data?.history ?? []) {
    const ok = a.error === null;
    steps.push({
      tone: ok ? 'ok' : 'bad',
      title: `Attempt ${a.attempt} ${ok ? 'delivered' : 'failed'}`,
      when: a.attempted_at,
      detail: [
        a.response_status !== null ? `HTTP ${a.response_status}` : 'no response',
        `${a.duration_ms} ms`,
        // the error unless it only repeats the status (`HTTP 500`)
        ok || a.error === `HTTP ${a.response_status}` ? null : a.error,
      ]
        .filter(Boolean)
        .join(' · '),
    });
  }
  if (d.status === 'pending')
    steps.push({
      tone: 'next',
      title: `Attempt ${d.attempts + 1} of ${MAX_ATTEMPTS} scheduled`,
      when: d.next_attempt_at,
    });
  if (d.status === 'failed')
    steps.push({
      tone: 'bad',
      title: d.attempts >= MAX_ATTEMPTS ? `Gave up after ${MAX_ATTEMPTS} attempts` : 'Stopped',
      when: null,
      detail: 'Redeliver it, or recover every failed delivery since a time.',
    });
  if (detail.error) return <ErrorText message={detail.error} />;
  if (detail.loading && !detail.data) return <Loading what="attempts" />;
  return (
    <ol class="timeline" aria-label={`Attempts of delivery ${d.id}`}>
      {steps.map((s) => (
        <li key={s.title} class={`step ${s.tone}`}>
          <span class="marker" aria-hidden="true" />
          <div>
            <strong>{s.title}</strong> {s.when ? <Time iso={s.when} /> : null}
            {s.detail ? <div class="muted small">{s.detail}</div> : null}
          </div>
        </li>
      ))}
    </ol>
  );
}

/** `datetime-local` value of a Date in the browser's time zone. */
const localInput = (d: Date) =>
  new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

function RecoverDialog(props: { id: string; onClose: () => void; onDone: (count: number) => void }) {
  const [since, setSince] = useState(localInput(new Date(Date.now() - 24 * 3600_000)));
  const [error, setError] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      const res = (await must(
        api.POST('/api/v1/webhooks/{id}/recover', {
          params: { path: { id: props.id } },
          body: { since: new Date(since).toISOString() },
        }),
      )) as { deliveries: unknown[] };
      props.onDone(res.deliveries.length);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <Modal title="Recover failed deliveries" onClose={props.onClose}>
      <form id="recover-form" class="modal-body" onSubmit={submit}>
        <p>Every failed delivery created since this time, not yet re-sent, is queued again.</p>
        <label for="recover-since">Since (your local time)</label>
        <input
          id="recover-since"
          type="datetime-local"
          required
          value={since}
          onInput={(e: Event) => setSince((e.target as HTMLInputElement).value)}
        />
        <ErrorText message={error} />
      </form>
      <footer class="modal-foot">
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="submit" form="recover-form" class="primary">
          Recover
        </button>
      </footer>
    </Modal>
  );
}
