/** @jsxImportSource hono/jsx/dom */
// An endpoint's delivery log: newest first in pages, pending ones polled, and each delivery's
// attempts on a timeline with what was sent and what the receiver answered.
import { useEffect, useState } from 'hono/jsx/dom';
import { MAX_ATTEMPTS } from '../../../../shared/webhooks/retry';
import { api, must } from '../api';
import {
  Badge,
  CopyButton,
  Empty,
  FormDialog,
  LoadError,
  Loading,
  plural,
  RecordsTable,
  Time,
  useLoad,
  useSubmit,
} from '../components';
import type { Webhook } from './webhooks';

/** Deliveries still pending are polled so the log moves on its own. */
const POLL_MS = 3000;
/** Deliveries per page of the log (the API allows up to 200). */
const LOG_PAGE = 50;

const DELIVERY_TONE = { delivered: 'ok', pending: 'warn', failed: 'bad' } as const;

const loadLog = (id: string, before: string | undefined) =>
  must(
    api.GET('/api/v1/webhooks/{id}/deliveries', {
      params: { path: { id }, query: { limit: LOG_PAGE, ...(before ? { before } : {}) } },
    }),
  );
type Delivery = Awaited<ReturnType<typeof loadLog>>['deliveries'][number];

const loadDetail = (id: string, deliveryId: string) =>
  must(
    api.GET('/api/v1/webhooks/{id}/deliveries/{delivery_id}', {
      params: { path: { id, delivery_id: deliveryId } },
    }),
  );
type Attempt = Awaited<ReturnType<typeof loadDetail>>['history'][number];

export function DeliveryLog(props: {
  hook: Webhook;
  manage: boolean;
  run: (what: () => Promise<string>) => void;
  /** changes when a delivery was queued from the page: read the log again */
  queued: number;
}) {
  const { hook } = props;
  // older pages by cursor: the last delivery id of every page read before this one
  const [cursors, setCursors] = useState<string[]>([]);
  const before = cursors[cursors.length - 1];
  const log = useLoad(() => loadLog(hook.id, before), [hook.id, before]);
  const [open, setOpen] = useState<string | null>(null);
  const deliveries = log.data?.deliveries ?? [];
  const pending = deliveries.some((d) => d.status === 'pending');
  useEffect(() => {
    if (!pending) return;
    const t = setTimeout(log.reload, POLL_MS);
    return () => clearTimeout(t);
  }, [pending, log.data]);
  useEffect(() => {
    // a test event or a recovery is queued: the log shows it once the worker has fanned it out
    if (props.queued === 0) return;
    log.reload();
    const t = setTimeout(log.reload, 600);
    return () => clearTimeout(t);
  }, [props.queued]);

  const redeliver = (d: Delivery) =>
    props.run(async () => {
      await must(
        api.POST('/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver', {
          params: { path: { id: hook.id, delivery_id: d.id } },
        }),
      );
      log.reload();
      return `${d.event_type} queued again as a new delivery.`;
    });

  return (
    <>
      <div class="section-head">
        <h2>Delivery log</h2>
        <button type="button" onClick={log.reload}>
          Refresh
        </button>
      </div>
      <LoadError load={log} />
      {log.loading && !log.data ? <Loading what="deliveries" /> : null}
      {log.data && deliveries.length === 0 ? (
        <Empty>
          {cursors.length > 0
            ? 'No older deliveries.'
            : 'No deliveries yet. Send a test event to see one here; they also appear as events happen.'}
        </Empty>
      ) : null}
      {deliveries.length > 0 ? (
        <DeliveryTable
          deliveries={deliveries}
          hook={hook}
          open={open}
          setOpen={setOpen}
          redeliver={props.manage ? redeliver : undefined}
        />
      ) : null}
      <LogPager cursors={cursors} deliveries={deliveries} setCursors={setCursors} />
    </>
  );
}

function DeliveryTable(props: {
  deliveries: Delivery[];
  hook: Webhook;
  open: string | null;
  setOpen: (id: string | null) => void;
  redeliver?: ((d: Delivery) => void) | undefined;
}) {
  const { hook, open, redeliver } = props;
  return (
    <RecordsTable
      name="deliveries"
      columns={['Event', 'Status', 'Attempts', 'Response', 'Duration', 'Error', 'Next attempt', 'Created']}
      actions
    >
      {props.deliveries.map((d) => (
        <DeliveryRows
          key={d.id}
          d={d}
          hookId={hook.id}
          open={open === d.id}
          onToggle={() => props.setOpen(open === d.id ? null : d.id)}
          onRedeliver={redeliver && d.status !== 'pending' ? () => redeliver(d) : undefined}
          canSend={hook.is_active}
        />
      ))}
    </RecordsTable>
  );
}

function LogPager(props: {
  cursors: string[];
  deliveries: Delivery[];
  setCursors: (next: (c: string[]) => string[]) => void;
}) {
  const { cursors, deliveries } = props;
  if (cursors.length === 0 && deliveries.length < LOG_PAGE) return null;
  return (
    <nav class="pager" aria-label="Delivery log pages">
      <button
        type="button"
        disabled={cursors.length === 0}
        onClick={() => props.setCursors((c) => c.slice(0, -1))}
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
        onClick={() => props.setCursors((c) => [...c, deliveries[deliveries.length - 1]?.id ?? ''])}
      >
        Older
      </button>
    </nav>
  );
}

/** A delivery's row, and under it (when opened) its timeline of attempts. */
function DeliveryRows(props: {
  d: Delivery;
  hookId: string;
  open: boolean;
  onToggle: () => void;
  onRedeliver?: () => void;
  canSend: boolean;
}) {
  const { d } = props;
  return (
    <>
      <tr data-delivery-id={d.id} data-status={d.status}>
        <td data-label="Event">
          <button
            type="button"
            class="link mono"
            aria-expanded={props.open ? 'true' : 'false'}
            aria-controls={`timeline-${d.id}`}
            onClick={props.onToggle}
          >
            {d.event_type}
          </button>
        </td>
        <td data-label="Status">
          <Badge tone={DELIVERY_TONE[d.status]}>{d.status}</Badge>
        </td>
        <td data-label="Attempts">
          <AttemptDots d={d} />
        </td>
        <td data-label="Response" class="mono">
          {d.response_status ?? '—'}
        </td>
        <td data-label="Duration">{d.duration_ms === null ? '—' : `${d.duration_ms} ms`}</td>
        <td data-label="Error" class="error-cell">
          {d.error ?? ''}
        </td>
        <td data-label="Next attempt">
          <Time iso={d.next_attempt_at} />
        </td>
        <td data-label="Created">
          <Time iso={d.created_at} />
        </td>
        <td class="row-actions">
          {props.onRedeliver ? (
            <button type="button" onClick={props.onRedeliver} disabled={!props.canSend}>
              Redeliver
            </button>
          ) : null}
        </td>
      </tr>
      {props.open ? (
        <tr class="timeline-row" id={`timeline-${d.id}`}>
          <td colSpan={9}>
            <Timeline hookId={props.hookId} d={d} />
          </td>
        </tr>
      ) : null}
    </>
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

/** What comes after the recorded attempts: the next one scheduled, or the final outcome. */
function outcomeStep(d: Delivery) {
  if (d.status === 'pending')
    return {
      tone: 'next',
      title: `Attempt ${d.attempts + 1} of ${MAX_ATTEMPTS} scheduled`,
      when: d.next_attempt_at,
    };
  if (d.status === 'failed')
    return {
      tone: 'bad',
      title: d.attempts >= MAX_ATTEMPTS ? `Gave up after ${MAX_ATTEMPTS} attempts` : 'Stopped',
      when: null,
      detail: 'Redeliver it, or recover every failed delivery since a time.',
    };
  return null;
}

/** An attempt's summary line: the receiver's status, the time it took, and why it failed. */
function attemptSummary(a: Attempt): string {
  const ok = a.error === null;
  return [
    a.response_status !== null ? `HTTP ${a.response_status}` : 'no response',
    `${a.duration_ms} ms`,
    // the error unless it only repeats the status (`HTTP 500`)
    ok || a.error === `HTTP ${a.response_status}` ? null : a.error,
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * The attempts of one delivery as a timeline: every attempt the server recorded, each with its
 * request and response, then what comes next. Read when the row is opened, and again whenever the
 * log shows the delivery moved on.
 */
function Timeline(props: { hookId: string; d: Delivery }) {
  const { d } = props;
  const detail = useLoad(() => loadDetail(props.hookId, d.id), [d.id, d.attempts, d.status]);
  if (detail.error) return <LoadError load={detail} />;
  if (detail.loading && !detail.data) return <Loading what="attempts" />;
  const after = outcomeStep(d);
  return (
    <ol class="timeline" aria-label={`Attempts of delivery ${d.id}`}>
      <Step tone="neutral" title={`${d.event_type} queued`} when={d.created_at} detail={`Delivery ${d.id}`} />
      {(detail.data?.history ?? []).map((a) => (
        <Step
          key={a.attempt}
          tone={a.error === null ? 'ok' : 'bad'}
          title={`Attempt ${a.attempt} ${a.error === null ? 'delivered' : 'failed'}`}
          when={a.attempted_at}
          detail={attemptSummary(a)}
        >
          <AttemptExchange a={a} />
        </Step>
      ))}
      {after ? <Step {...after} /> : null}
    </ol>
  );
}

function Step(props: {
  tone: string;
  title: string;
  when: string | null;
  detail?: string;
  children?: unknown;
}) {
  return (
    <li class={`step ${props.tone}`}>
      <span class="marker" aria-hidden="true" />
      <div class="step-body">
        <strong>{props.title}</strong> {props.when ? <Time iso={props.when} /> : null}
        {props.detail ? <div class="muted small">{props.detail}</div> : null}
        {props.children as never}
      </div>
    </li>
  );
}

/** The body as sent or received: indented when it is JSON, else as it came. */
export function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

const headerText = (headers: Record<string, string>) =>
  Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');

/** What one attempt sent (headers, the exact body, its signature) and what came back. */
function AttemptExchange(props: { a: Attempt }) {
  const { request, response, attempt } = props.a;
  if (!request && !response)
    return <p class="muted small">Request and response are no longer kept for this attempt.</p>;
  const signature = request
    ? Object.entries(request.headers).find(([k]) => k.toLowerCase() === 'x-webhook-signature')?.[1]
    : undefined;
  return (
    <details class="exchange" data-attempt={attempt}>
      <summary>Request and response</summary>
      {request ? (
        <div class="exchange-part" data-part="request">
          <h3>Request</h3>
          {signature ? (
            <p class="small">
              Signature <code class="mono signature">{signature}</code>
            </p>
          ) : null}
          <CodeBlock
            title="Headers"
            text={headerText(request.headers)}
            copy={`Copy request headers of attempt ${attempt}`}
          />
          {/* the exact bytes that were signed are what "Copy" gives; the view is indented */}
          <CodeBlock
            title="Body"
            text={prettyBody(request.body)}
            copyText={request.body}
            copy={`Copy request body of attempt ${attempt}`}
          />
        </div>
      ) : (
        <p class="muted small">Nothing was sent.</p>
      )}
      <ResponsePart response={response} attempt={attempt} />
    </details>
  );
}

function ResponsePart(props: { response: Attempt['response']; attempt: number }) {
  const { response, attempt } = props;
  if (!response)
    return (
      <div class="exchange-part" data-part="response">
        <h3>Response</h3>
        <p class="muted small">No response came (timeout or network error).</p>
      </div>
    );
  return (
    <div class="exchange-part" data-part="response">
      <h3>
        Response <span class="mono">HTTP {response.status}</span>
      </h3>
      <CodeBlock
        title="Headers"
        text={headerText(response.headers)}
        copy={`Copy response headers of attempt ${attempt}`}
      />
      <CodeBlock
        title="Body"
        text={response.body === '' ? '(empty)' : prettyBody(response.body)}
        copyText={response.body}
        copy={`Copy response body of attempt ${attempt}`}
      />
      {response.body_truncated ? (
        <p class="muted small truncated">Truncated: only the first 4 KiB of the body is kept.</p>
      ) : null}
    </div>
  );
}

function CodeBlock(props: { title: string; text: string; copyText?: string; copy: string }) {
  return (
    <div class="code-block">
      <div class="code-head">
        <span class="small muted">{props.title}</span>
        <CopyButton text={props.copyText ?? props.text} label={props.copy} />
      </div>
      <pre class="mono">{props.text}</pre>
    </div>
  );
}

/** `datetime-local` value of a Date in the browser's time zone. */
const localInput = (d: Date) =>
  new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

export function RecoverDialog(props: { id: string; onClose: () => void; onDone: (count: number) => void }) {
  const [since, setSince] = useState(localInput(new Date(Date.now() - 24 * 3600_000)));
  const form = useSubmit(async () => {
    const res = await must(
      api.POST('/api/v1/webhooks/{id}/recover', {
        params: { path: { id: props.id } },
        body: { since: new Date(since).toISOString() },
      }),
    );
    props.onDone(res.deliveries.length);
  });
  return (
    <FormDialog
      title="Recover failed deliveries"
      id="recover-form"
      form={form}
      action="Recover"
      onClose={props.onClose}
    >
      <p>Every failed delivery created since this time, not yet re-sent, is queued again.</p>
      <label for="recover-since">Since (your local time)</label>
      <input
        id="recover-since"
        type="datetime-local"
        required
        value={since}
        onInput={(e: Event) => setSince((e.target as HTMLInputElement).value)}
      />
    </FormDialog>
  );
}
