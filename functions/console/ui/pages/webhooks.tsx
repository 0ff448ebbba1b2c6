/** @jsxImportSource hono/jsx/dom */
// The webhooks list and the dialog that adds or edits an endpoint. One endpoint's page is in
// webhook-detail.tsx, its delivery log in deliveries.tsx.
import { useState } from 'hono/jsx/dom';
import { allowed, whyNot } from '../access';
import { api, type components, must } from '../api';
import {
  Badge,
  Empty,
  ErrorText,
  FormDialog,
  LoadError,
  Loading,
  Modal,
  PageHead,
  SecretOnce,
  Time,
  useLoad,
  useSubmit,
} from '../components';
import { navigate } from '../router';

export type Webhook = components['schemas']['Webhook'];
type EndpointFields = { url: string; events: string[]; description: string | null };

export const loadWebhooks = () => must(api.GET('/api/v1/webhooks'));

export const DESCRIPTION_MAX = 500;
const HTTPS_ONLY = 'The URL must start with https://';

export function EventList(props: { events: string[] }) {
  return (
    <ul class="chips">
      {props.events.map((e) => (
        <li key={e}>{e === '*' ? 'all events (*)' : e}</li>
      ))}
    </ul>
  );
}

function WebhookCard(props: { w: Webhook }) {
  const { w } = props;
  return (
    <li class="card">
      <div class="card-main">
        <a class="mono url" href={`/console/webhooks/${encodeURIComponent(w.id)}`}>
          {w.url}
        </a>
        {w.description ? <p class="description">{w.description}</p> : null}
        <EventList events={w.events} />
      </div>
      <div class="card-side">
        {w.is_active ? <Badge tone="ok">enabled</Badge> : <Badge tone="neutral">disabled</Badge>}
        <span class="muted small">
          added <Time iso={w.created_at} />
        </span>
      </div>
    </li>
  );
}

export function WebhooksPage() {
  const hooks = useLoad(loadWebhooks);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);
  const list = hooks.data?.webhooks;
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
      <LoadError load={hooks} />
      {hooks.loading && !list ? <Loading what="webhooks" /> : null}
      {list && list.length === 0 ? <Empty>No endpoints yet. Add one to receive events.</Empty> : null}
      {list && list.length > 0 ? (
        <ul class="cards">
          {list.map((w) => (
            <WebhookCard key={w.id} w={w} />
          ))}
        </ul>
      ) : null}
      {creating ? (
        <EndpointDialog
          onClose={() => setCreating(false)}
          onSave={async (body) => {
            const created = await must(api.POST('/api/v1/webhooks', { body }));
            hooks.reload();
            setCreating(false);
            setSecret({ id: created.id, secret: created.secret });
          }}
        />
      ) : null}
      {secret ? (
        <SigningSecretDialog
          title="Endpoint added"
          secret={secret.secret}
          onClose={() => setSecret(null)}
          onDone={() => {
            setSecret(null);
            navigate(`/webhooks/${encodeURIComponent(secret.id)}`);
          }}
        />
      ) : null}
    </section>
  );
}

/** A signing secret, shown once (a new endpoint's, or a rotated one), with how to verify with it. */
export function SigningSecretDialog(props: {
  title: string;
  secret: string;
  onClose: () => void;
  onDone?: () => void;
}) {
  return (
    <Modal title={props.title} onClose={props.onClose}>
      <div class="modal-body">
        <p>
          Verify every delivery: HMAC-SHA256 of <code>X-Webhook-Timestamp + "." + body</code> with this
          secret, compared with <code>X-Webhook-Signature</code>.
        </p>
        <SecretOnce label="Signing secret" secret={props.secret} what="signing secret" />
      </div>
      <footer class="modal-foot">
        <button type="button" class="primary" onClick={props.onDone ?? props.onClose}>
          I have copied it
        </button>
      </footer>
    </Modal>
  );
}

/** The URL field: https only, said in words (not the browser's "match the requested format"). */
function UrlField(props: { url: string; editing: boolean; onInput: (url: string) => void }) {
  return (
    <>
      <label for="webhook-url">Endpoint URL</label>
      <input
        id="webhook-url"
        type="url"
        required
        maxLength={2048}
        class="mono"
        aria-describedby="webhook-url-hint"
        value={props.url}
        onInput={(e: Event) => {
          const input = e.target as HTMLInputElement;
          input.setCustomValidity(input.value.startsWith('https://') ? '' : HTTPS_ONLY);
          props.onInput(input.value);
        }}
      />
      <p class="muted small" id="webhook-url-hint">
        Must start with https://; the host must resolve to public addresses.
        {props.editing ? ' The signing secret stays the same.' : ''}
      </p>
    </>
  );
}

/** The catalog's events by group, or every event (`*`). */
function EventPicker(props: {
  all: boolean;
  events: Set<string>;
  onAll: (all: boolean) => void;
  onToggle: (names: string[], on: boolean) => void;
}) {
  const catalog = useLoad(() => must(api.GET('/api/v2/webhooks/event-types')));
  const checked = (e: Event) => (e.target as HTMLInputElement).checked;
  return (
    <fieldset>
      <legend>Events</legend>
      <label class="check">
        <input
          type="checkbox"
          id="all-events"
          checked={props.all}
          onChange={(e: Event) => props.onAll(checked(e))}
        />
        <span>
          All events, including ones added later (<code>*</code>)
        </span>
      </label>
      <ErrorText message={catalog.error} />
      {catalog.data && !props.all ? (
        <div class="event-groups">
          {Object.entries(catalog.data.groups).map(([group, names]) => (
            <fieldset key={group} class="scope-group">
              <legend>
                <label class="check">
                  <input
                    type="checkbox"
                    aria-label={`All ${group} events`}
                    checked={names.every((n) => props.events.has(n))}
                    onChange={(e: Event) => props.onToggle(names, checked(e))}
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
                    checked={props.events.has(n)}
                    onChange={(e: Event) => props.onToggle([n], checked(e))}
                  />
                  <span class="mono">{n}</span>
                </label>
              ))}
            </fieldset>
          ))}
        </div>
      ) : null}
    </fieldset>
  );
}

/**
 * "Add endpoint", and "Edit" of an existing one (`endpoint` given): the URL, a description and the
 * events, with the same checks either way. Editing keeps the signing secret.
 */
export function EndpointDialog(props: {
  endpoint?: Webhook;
  onClose: () => void;
  onSave: (body: EndpointFields) => Promise<void>;
}) {
  const editing = props.endpoint;
  const [url, setUrl] = useState(editing?.url ?? 'https://');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [all, setAll] = useState(editing?.events.includes('*') ?? false);
  const [events, setEvents] = useState<Set<string>>(new Set(editing?.events.filter((e) => e !== '*')));
  const toggle = (names: string[], on: boolean) =>
    setEvents((prev) => {
      const next = new Set(prev);
      for (const n of names) on ? next.add(n) : next.delete(n);
      return next;
    });

  const form = useSubmit(async () => {
    if (!url.startsWith('https://')) throw new Error(HTTPS_ONLY);
    const chosen = all ? ['*'] : [...events];
    if (chosen.length === 0) throw new Error('Pick at least one event, or all events.');
    await props.onSave({ url, events: chosen, description: description.trim() || null });
  });

  return (
    // any edit answers the last error ("Pick at least one event"): it goes until the next submit
    <FormDialog
      title={editing ? 'Edit endpoint' : 'Add endpoint'}
      id={editing ? 'edit-webhook-form' : 'create-webhook-form'}
      form={form}
      action={editing ? 'Save changes' : 'Add endpoint'}
      onClose={props.onClose}
      wide
    >
      <UrlField url={url} editing={!!editing} onInput={setUrl} />
      <label for="webhook-description">Description (optional)</label>
      <textarea
        id="webhook-description"
        rows={2}
        maxLength={DESCRIPTION_MAX}
        placeholder="What this endpoint is for, e.g. Sync tickets to the data warehouse"
        value={description}
        onInput={(e: Event) => setDescription((e.target as HTMLTextAreaElement).value)}
      />
      <p class="muted small">At most {DESCRIPTION_MAX} characters.</p>
      <EventPicker all={all} events={events} onAll={setAll} onToggle={toggle} />
    </FormDialog>
  );
}
