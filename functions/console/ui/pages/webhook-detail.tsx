/** @jsxImportSource hono/jsx/dom */
// One endpoint: its settings and tools (edit, test event, rotate the secret, recover, enable,
// delete) above its delivery log (deliveries.tsx).
import { useState } from 'hono/jsx/dom';
import { allowed, whyNot } from '../access';
import { api, must } from '../api';
import {
  Badge,
  Confirm,
  ErrorText,
  FormDialog,
  LoadError,
  Loading,
  PageHead,
  plural,
  useLoad,
  useSubmit,
} from '../components';
import { navigate } from '../router';
import { DeliveryLog, RecoverDialog } from './deliveries';
import { EndpointHealth } from './endpoint-health';
import { EndpointDialog, EventList, loadWebhooks, SigningSecretDialog, type Webhook } from './webhooks';

type Dialog = 'delete' | 'recover' | 'edit' | 'test' | 'rotate' | null;

/** The page's messages: a notice (role=status) or an error, one at a time. */
function useMessages() {
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');
  const run = async (what: () => Promise<string>) => {
    setError('');
    setNotice('');
    try {
      setNotice(await what());
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return { notice, error, setNotice, run };
}

export function WebhookDetailPage(props: { id: string }) {
  const hooks = useLoad(loadWebhooks);
  const hook = hooks.data?.webhooks.find((w) => w.id === props.id);
  const [dialog, setDialog] = useState<Dialog>(null);
  // bumped when a delivery was queued from here, so the log reads it at once
  const [queued, setQueued] = useState(0);
  const messages = useMessages();
  if (!hook) return <EndpointMissing hooks={hooks} />;
  const manage = allowed('webhooks.manage');
  return (
    <section aria-labelledby="page-title">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="/console/webhooks">Webhooks</a> <span aria-hidden="true">/</span> <span>{hook.id}</span>
      </nav>
      <PageHead
        title="Endpoint"
        intro={<span class="mono url">{hook.url}</span>}
        actions={
          <EndpointActions
            hook={hook}
            manage={manage}
            open={setDialog}
            messages={messages}
            onChange={hooks.reload}
          />
        }
      />
      {hook.description ? <p class="description">{hook.description}</p> : null}
      <EventList events={hook.events} />
      <EndpointHealth id={hook.id} manage={manage} version={hook.is_active} onChange={hooks.reload} />
      {manage ? null : <p class="muted role-note">{whyNot('webhooks.manage')}</p>}
      <p class="notice" role="status">
        {messages.notice}
      </p>
      <ErrorText message={messages.error} />
      <DeliveryLog hook={hook} manage={manage} run={messages.run} queued={queued} />
      <EndpointDialogs
        hook={hook}
        dialog={dialog}
        close={() => setDialog(null)}
        say={messages.setNotice}
        onChange={hooks.reload}
        onQueued={() => setQueued((n) => n + 1)}
      />
    </section>
  );
}

function EndpointMissing(props: {
  hooks: ReturnType<typeof useLoad<Awaited<ReturnType<typeof loadWebhooks>>>>;
}) {
  const { hooks } = props;
  const loading = hooks.loading && !hooks.data;
  return (
    <section aria-labelledby="page-title">
      <PageHead title={loading ? 'Endpoint' : 'Endpoint not found'} />
      {loading ? <Loading what="endpoint" /> : null}
      {!loading && hooks.error ? <LoadError load={hooks} /> : null}
      {!loading && !hooks.error ? (
        <>
          <ErrorText message="Webhook not found" />
          <a href="/console/webhooks">Back to webhooks</a>
        </>
      ) : null}
    </section>
  );
}

/** The header's buttons: what an admin may do to the endpoint; a state badge for everyone else. */
function EndpointActions(props: {
  hook: Webhook;
  manage: boolean;
  open: (d: Dialog) => void;
  messages: ReturnType<typeof useMessages>;
  onChange: () => void;
}) {
  const { hook, open } = props;
  if (!props.manage)
    return <Badge tone={hook.is_active ? 'ok' : 'neutral'}>{hook.is_active ? 'enabled' : 'disabled'}</Badge>;
  const setActive = (is_active: boolean) =>
    props.messages.run(async () => {
      await must(
        api.PATCH('/api/v2/webhooks/{id}', { params: { path: { id: hook.id } }, body: { is_active } }),
      );
      props.onChange();
      return is_active
        ? 'Endpoint enabled.'
        : 'Endpoint disabled: nothing is sent until it is enabled again.';
    });
  return (
    <>
      <button type="button" onClick={() => open('test')} disabled={!hook.is_active}>
        Send test event
      </button>
      <button type="button" onClick={() => open('edit')}>
        Edit
      </button>
      <button type="button" onClick={() => open('rotate')}>
        Rotate secret
      </button>
      <button type="button" onClick={() => open('recover')} disabled={!hook.is_active}>
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
      <button type="button" class="danger-text" onClick={() => open('delete')}>
        Delete
      </button>
    </>
  );
}

/** The dialog open over the page, if any. */
function EndpointDialogs(props: {
  hook: Webhook;
  dialog: Dialog;
  close: () => void;
  say: (notice: string) => void;
  onChange: () => void;
  onQueued: () => void;
}) {
  const { hook, close, say } = props;
  const [secret, setSecret] = useState('');
  if (secret)
    return <SigningSecretDialog title="New signing secret" secret={secret} onClose={() => setSecret('')} />;
  switch (props.dialog) {
    case 'edit':
      return (
        <EditEndpoint
          hook={hook}
          onClose={close}
          onSaved={() => {
            props.onChange();
            close();
            say('Endpoint saved; the signing secret is unchanged.');
          }}
        />
      );
    case 'delete':
      return <DeleteEndpoint hook={hook} onClose={close} />;
    case 'rotate':
      return (
        <RotateSecretConfirm
          id={hook.id}
          onClose={close}
          onRotated={(next) => {
            say('Signing secret rotated.');
            setSecret(next);
          }}
        />
      );
    case 'recover':
      return (
        <RecoverDialog
          id={hook.id}
          onClose={close}
          onDone={(n) => {
            close();
            say(
              n === 0
                ? 'No failed deliveries to recover in that window.'
                : `${plural(n, 'delivery', 'deliveries')} queued again.`,
            );
            props.onQueued();
          }}
        />
      );
    case 'test':
      return (
        <TestEventDialog
          hook={hook}
          onClose={close}
          onSent={(type) => {
            close();
            say(
              `A test ${type} event is on its way; it shows in the delivery log below. Nothing was created.`,
            );
            props.onQueued();
          }}
        />
      );
    default:
      return null;
  }
}

/** "Edit": PATCH /api/v2 is the route that takes url, events and description; the secret stays. */
function EditEndpoint(props: { hook: Webhook; onClose: () => void; onSaved: () => void }) {
  return (
    <EndpointDialog
      endpoint={props.hook}
      onClose={props.onClose}
      onSave={async (body) => {
        await must(api.PATCH('/api/v2/webhooks/{id}', { params: { path: { id: props.hook.id } }, body }));
        props.onSaved();
      }}
    />
  );
}

function DeleteEndpoint(props: { hook: Webhook; onClose: () => void }) {
  return (
    <Confirm
      title="Delete endpoint"
      message={`Nothing more is sent to ${props.hook.url}; pending deliveries are cancelled.`}
      action="Delete"
      onClose={props.onClose}
      onConfirm={async () => {
        await must(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: props.hook.id } } }));
        navigate('/webhooks');
      }}
    />
  );
}

/** Rotation is at once (the single-signature header allows no overlap): the dialog says so first. */
function RotateSecretConfirm(props: {
  id: string;
  onClose: () => void;
  onRotated: (secret: string) => void;
}) {
  return (
    <Confirm
      title="Rotate signing secret"
      message="A new secret replaces the current one at once: every delivery from now on is signed with it, so update your receiver to verify with the new secret right after copying it. Deliveries already signed are not re-signed."
      action="Rotate secret"
      onClose={props.onClose}
      onConfirm={async () => {
        const rotated = await must(
          api.POST('/api/v2/webhooks/{id}/rotate-secret', { params: { path: { id: props.id } } }),
        );
        props.onRotated(rotated.secret);
      }}
    />
  );
}

/** "Send test event": the catalog event's documented example, to this endpoint only; creates nothing. */
function TestEventDialog(props: { hook: Webhook; onClose: () => void; onSent: (type: string) => void }) {
  const catalog = useLoad(() => must(api.GET('/api/v2/webhooks/event-types')));
  const subscribed = (t: string) => props.hook.events.includes('*') || props.hook.events.includes(t);
  const types = catalog.data?.event_types ?? [];
  const first = types.find(subscribed) ?? types[0];
  const [picked, setPicked] = useState('');
  const eventType = picked || first || '';
  const form = useSubmit(async () => {
    await must(
      api.POST('/api/v2/webhooks/{id}/test', {
        params: { path: { id: props.hook.id } },
        body: { event_type: eventType as (typeof types)[number] },
      }),
    );
    props.onSent(eventType);
  });
  return (
    <FormDialog
      title="Send test event"
      id="test-event-form"
      form={form}
      action="Send test event"
      onClose={props.onClose}
      disabled={!eventType}
    >
      <p>
        Sends the event's documented example, signed like any delivery, to this endpoint only. It shows in the
        delivery log; no ticket or other record is created.
      </p>
      <label for="test-event-type">Event type</label>
      <select id="test-event-type" onChange={(e: Event) => setPicked((e.target as HTMLSelectElement).value)}>
        {types.map((t) => (
          <option key={t} value={t} selected={t === eventType}>
            {t}
            {subscribed(t) ? '' : ' (not subscribed)'}
          </option>
        ))}
      </select>
      <LoadError load={catalog} />
    </FormDialog>
  );
}
