/** @jsxImportSource hono/jsx/dom */
import { useState } from 'hono/jsx/dom';
import { KEY_DIALOG_SCOPE_GROUPS } from '../../../../shared/context/scopes';
import { allowed } from '../access';
import { api, type components, isMemberId, loadMe, must } from '../api';
import {
  Badge,
  Confirm,
  Empty,
  FormDialog,
  LoadError,
  Loading,
  Modal,
  NotForYourRole,
  PageHead,
  RecordsTable,
  RowMenu,
  SecretOnce,
  Time,
  useLoad,
  useSubmit,
} from '../components';
import { currentIdentity } from '../session';

type ApiKey = components['schemas']['ApiKey'];
type Acting = 'rotate' | 'revoke' | 'delete';
type Scope = components['schemas']['ApiKeyCreate']['scopes'][number];

type Pending =
  | { kind: 'create' }
  | { kind: 'secret'; title: string; secret: string }
  | { kind: Acting; key: ApiKey }
  | null;

/** What each confirmation says and does. */
const ACTIONS = {
  rotate: {
    title: 'Rotate key',
    verb: 'Rotate',
    message: (k: ApiKey) =>
      `A new secret replaces the one of “${k.name}” (${k.key_prefix}…); the old secret stops working at once.`,
  },
  revoke: {
    title: 'Revoke key',
    verb: 'Revoke',
    message: (k: ApiKey) =>
      `“${k.name}” (${k.key_prefix}…) stops working on the next request. It stays listed as revoked.`,
  },
  delete: {
    title: 'Delete key',
    verb: 'Delete',
    message: (k: ApiKey) => `“${k.name}” (${k.key_prefix}…) stops working and is removed from this list.`,
  },
} as const;

function status(k: ApiKey) {
  if (k.revoked_at) return <Badge tone="bad">revoked</Badge>;
  if (k.expires_at && new Date(k.expires_at).getTime() <= Date.now())
    return <Badge tone="warn">expired</Badge>;
  return k.is_active ? <Badge tone="ok">active</Badge> : <Badge tone="neutral">inactive</Badge>;
}

export function KeysPage() {
  if (!allowed('keys')) return <NotForYourRole title="API keys" action="keys" />;
  return <KeysList />;
}

/**
 * Who created a key, as a person reads it: "you", a member's email, "CLI token" (a token from
 * `npm run token`, which names no member and is never looked up), "API key …", "a removed member".
 */
function useCreators(keys: ApiKey[] | undefined) {
  const me = currentIdentity()?.userId;
  const userIds = [...new Set((keys ?? []).map((k) => k.created_by ?? ''))]
    .filter((by) => by.startsWith('user:') && by !== `user:${me}`)
    .map((by) => by.slice('user:'.length))
    .filter(isMemberId);
  const emails = useLoad(async () => {
    const found = await Promise.all(
      userIds.map((id) =>
        must(api.GET('/api/v1/tenant/users/{id}', { params: { path: { id } } })).then(
          (u) => [id, u.email] as const,
          () => [id, null] as const,
        ),
      ),
    );
    return new Map(found);
  }, [userIds.join()]);
  return (by: string | null | undefined): string => {
    if (!by) return '—';
    const [kind, id = ''] = by.split(/:(.*)/);
    if (kind === 'user') {
      if (id === me) return 'you';
      if (!isMemberId(id)) return 'CLI token';
      const email = emails.data?.get(id);
      return email ?? (emails.data?.has(id) ? 'a removed member' : '…');
    }
    if (kind === 'api_key') {
      const key = keys?.find((k) => k.id === id);
      return key ? `API key ${key.name}` : 'an API key';
    }
    return by;
  };
}

/** "Replaces key_…" / "Replaced by key_…": the two rows of one rotation, linked both ways. */
function RotationNote(props: { k: ApiKey; keys: ApiKey[] }) {
  const { k, keys } = props;
  const from = k.rotated_from ? keys.find((o) => o.id === k.rotated_from) : undefined;
  const to = keys.find((o) => o.rotated_from === k.id);
  return (
    <>
      {k.rotated_from ? (
        <div class="muted small rotation">
          replaces{' '}
          {from ? (
            <a href={`#key-${from.id}`}>{from.key_prefix}…</a>
          ) : (
            <span class="mono">{k.rotated_from}</span>
          )}
        </div>
      ) : null}
      {to ? (
        <div class="muted small rotation">
          replaced by <a href={`#key-${to.id}`}>{to.key_prefix}…</a>
        </div>
      ) : null}
    </>
  );
}

/**
 * How the tenant's keys start (`itsm_sk_test_` in a sandbox, else `itsm_sk_live_`), so the column
 * shows what a secret scanner or a log line shows; `itsm_sk_` until the tenant is known.
 */
function useKeyStart(): string {
  const who = currentIdentity();
  const me = useLoad(async () => (who ? await loadMe(who) : null), [who?.userId, who?.tenantId]);
  const env = me.data?.tenant.environment;
  if (!env) return 'itsm_sk_';
  return env === 'sandbox' ? 'itsm_sk_test_' : 'itsm_sk_live_';
}

function KeyRow(props: {
  k: ApiKey;
  keys: ApiKey[];
  creator: string;
  start: string;
  act: (kind: Acting) => void;
}) {
  const { k } = props;
  const items = [
    ...(k.revoked_at
      ? []
      : [
          { label: 'Rotate', run: () => props.act('rotate') },
          { label: 'Revoke', run: () => props.act('revoke') },
        ]),
    { label: 'Delete', danger: true, run: () => props.act('delete') },
  ];
  return (
    <tr key={k.id} data-key-id={k.id} id={`key-${k.id}`}>
      {/* a long name wraps inside its column (the full name in the title too) instead of widening the table */}
      <td data-label="Name" class="key-name">
        <strong title={k.name}>{k.name}</strong>
        <div class="muted small">
          created <Time iso={k.created_at} />
        </div>
        <RotationNote k={k} keys={props.keys} />
      </td>
      <td data-label="Key" class="mono key-start">
        {props.start}
        {k.key_prefix}…
      </td>
      <td data-label="Scopes">
        <ul class="chips">
          {k.scopes.map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ul>
      </td>
      <td data-label="Created by" title={k.created_by ?? undefined}>
        {props.creator}
      </td>
      <td data-label="Last used">
        <Time iso={k.last_used_at} empty="never" />
      </td>
      <td data-label="Expires">
        <Time iso={k.expires_at} empty="never" />
      </td>
      <td data-label="Status">{status(k)}</td>
      <td class="row-actions">
        <RowMenu label={`Actions for ${k.name} (${k.key_prefix}…)`} items={items} />
      </td>
    </tr>
  );
}

function KeysTable(props: {
  keys: ApiKey[];
  creator: (by: string | null) => string;
  act: (kind: Acting, k: ApiKey) => void;
}) {
  const start = useKeyStart();
  return (
    <RecordsTable
      name="keys"
      columns={['Name', 'Key', 'Scopes', 'Created by', 'Last used', 'Expires', 'Status']}
      actions
    >
      {props.keys.map((k) => (
        <KeyRow
          key={k.id}
          k={k}
          keys={props.keys}
          creator={props.creator(k.created_by)}
          start={start}
          act={(kind) => props.act(kind, k)}
        />
      ))}
    </RecordsTable>
  );
}

function KeysList() {
  const keys = useLoad(() => must(api.GET('/api/v1/api-keys')));
  const list = keys.data?.api_keys;
  const creator = useCreators(list);
  const [pending, setPending] = useState<Pending>(null);
  const close = () => setPending(null);

  const act = async (kind: Acting, key: ApiKey) => {
    const params = { params: { path: { key_id: key.id } } };
    if (kind === 'rotate') {
      const rotated = await must(api.POST('/api/v1/api-keys/{key_id}/rotate', params));
      keys.reload();
      setPending({ kind: 'secret', title: `New secret for ${key.name}`, secret: rotated.api_key });
      return;
    }
    if (kind === 'revoke') await must(api.POST('/api/v1/api-keys/{key_id}/revoke', params));
    else await must(api.DELETE('/api/v1/api-keys/{key_id}', params));
    keys.reload();
  };

  return (
    <section aria-labelledby="page-title">
      <PageHead
        title="API keys"
        intro="Server-to-server credentials. Send one in the X-API-Key header; each key holds only the scopes it was given."
        actions={
          <button type="button" class="primary" onClick={() => setPending({ kind: 'create' })}>
            Create key
          </button>
        }
      />
      <LoadError load={keys} />
      {keys.loading && !list ? <Loading what="keys" /> : null}
      {list && list.length === 0 ? (
        <Empty>No API keys yet. Create one to call the API from your servers.</Empty>
      ) : null}
      {list && list.length > 0 ? (
        <KeysTable keys={list} creator={creator} act={(kind, key) => setPending({ kind, key })} />
      ) : null}
      <KeyDialogs pending={pending} setPending={setPending} close={close} act={act} onCreated={keys.reload} />
    </section>
  );
}

function KeyDialogs(props: {
  pending: Pending;
  setPending: (next: Pending | ((p: Pending) => Pending)) => void;
  close: () => void;
  act: (kind: Acting, key: ApiKey) => Promise<void>;
  onCreated: () => void;
}) {
  const { pending, close } = props;
  if (pending?.kind === 'create')
    return (
      <CreateKeyDialog
        onClose={close}
        onCreated={(name, secret) => {
          props.onCreated();
          props.setPending({ kind: 'secret', title: `Key “${name}” created`, secret });
        }}
      />
    );
  if (pending?.kind === 'secret')
    return (
      <Modal title={pending.title} onClose={close}>
        <div class="modal-body">
          <SecretOnce label="API key" secret={pending.secret} what="API key" />
        </div>
        <footer class="modal-foot">
          <button type="button" class="primary" onClick={close}>
            I have copied it
          </button>
        </footer>
      </Modal>
    );
  if (!pending) return null;
  const kind = pending.kind;
  return (
    <Confirm
      title={ACTIONS[kind].title}
      message={ACTIONS[kind].message(pending.key)}
      action={ACTIONS[kind].verb}
      onConfirm={() => props.act(kind, pending.key)}
      onClose={() => props.setPending((p) => (p?.kind === 'secret' ? p : null))}
    />
  );
}

const EXPIRY_CHOICES = [
  { label: 'Never', days: null },
  { label: '30 days', days: 30 },
  { label: '90 days', days: 90 },
  { label: '1 year', days: 365 },
] as const;

/** The dialog's scopes: only the groups of KEY_DIALOG_SCOPE_GROUPS (the spec's). */
function ScopePicker(props: { scopes: Set<Scope>; toggle: (scope: Scope, on: boolean) => void }) {
  return (
    <fieldset class="scope-groups">
      <legend>Scopes</legend>
      <p class="muted small">
        Other scopes (billing, configuration, contacts, exports, users) are granted only through the API.
      </p>
      {KEY_DIALOG_SCOPE_GROUPS.map((g) => (
        <fieldset key={g.label} class="scope-group" data-group={g.label}>
          <legend>{g.label}</legend>
          {g.scopes.map((s) => (
            <label key={s} class="check">
              <input
                type="checkbox"
                name="scope"
                value={s}
                checked={props.scopes.has(s)}
                onChange={(e: Event) => props.toggle(s, (e.target as HTMLInputElement).checked)}
              />
              <span class="mono">{s}</span>
            </label>
          ))}
        </fieldset>
      ))}
    </fieldset>
  );
}

function ExpiryField(props: { expiry: number | null; onChange: (days: number | null) => void }) {
  return (
    <>
      <label for="key-expiry">Expires</label>
      <select
        id="key-expiry"
        onChange={(e: Event) => {
          const v = (e.target as HTMLSelectElement).value;
          props.onChange(v ? Number(v) : null);
        }}
      >
        {EXPIRY_CHOICES.map((c) => (
          <option key={c.label} value={c.days ?? ''} selected={props.expiry === c.days}>
            {c.label}
          </option>
        ))}
      </select>
    </>
  );
}

/** The spec's key-creation dialog: only the scope groups of KEY_DIALOG_SCOPE_GROUPS. */
function CreateKeyDialog(props: { onClose: () => void; onCreated: (name: string, secret: string) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set());
  const [expiry, setExpiry] = useState<number | null>(null);

  const toggle = (scope: Scope, on: boolean) =>
    setScopes((prev) => {
      const next = new Set(prev);
      if (on) next.add(scope);
      else next.delete(scope);
      return next;
    });

  const form = useSubmit(async () => {
    // the API counts spaces as a name; the console sends the trimmed one
    if (!name.trim()) throw new Error('Give the key a name.');
    if (scopes.size === 0) throw new Error('Pick at least one scope.');
    const created = await must(
      api.POST('/api/v1/api-keys', {
        body: { name: name.trim(), scopes: [...scopes], ...(expiry ? { expires_in_days: expiry } : {}) },
      }),
    );
    props.onCreated(name.trim(), created.api_key);
  });

  return (
    <FormDialog
      title="Create API key"
      id="create-key-form"
      form={form}
      action="Create key"
      onClose={props.onClose}
      wide
    >
      <label for="key-name">Name</label>
      <input
        id="key-name"
        required
        maxLength={100}
        placeholder="e.g. Billing sync"
        value={name}
        onInput={(e: Event) => setName((e.target as HTMLInputElement).value)}
      />
      <ScopePicker scopes={scopes} toggle={toggle} />
      <ExpiryField expiry={expiry} onChange={setExpiry} />
    </FormDialog>
  );
}
