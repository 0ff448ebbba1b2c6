/** @jsxImportSource hono/jsx/dom */
import { useState } from 'hono/jsx/dom';
import { KEY_DIALOG_SCOPE_GROUPS } from '../../../../shared/context/scopes';
import { allowed } from '../access';
import { api, must } from '../api';
import {
  Badge,
  Confirm,
  Empty,
  ErrorText,
  Loading,
  Modal,
  NotForYourRole,
  PageHead,
  SecretOnce,
  Time,
  useLoad,
} from '../components';
import { currentIdentity } from '../session';

interface ApiKey {
  id: string;
  name: string;
  description?: string | null;
  key_prefix: string;
  scopes: string[];
  created_by?: string | null;
  created_at: string;
  expires_at?: string | null;
  last_used_at?: string | null;
  revoked_at?: string | null;
  is_active: boolean;
}

type Pending =
  | { kind: 'create' }
  | { kind: 'secret'; title: string; secret: string }
  | { kind: 'rotate' | 'revoke' | 'delete'; key: ApiKey }
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

/** Who created a key, as a person reads it: "you", a member's email, "API key …", "a removed member". */
function useCreators(keys: ApiKey[] | undefined) {
  const me = currentIdentity()?.userId;
  const userIds = [...new Set((keys ?? []).map((k) => k.created_by ?? ''))]
    .filter((by) => by.startsWith('user:') && by !== `user:${me}`)
    .map((by) => by.slice('user:'.length));
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

function KeysList() {
  const keys = useLoad(async () => (await must(api.GET('/api/v1/api-keys'))) as { api_keys: ApiKey[] });
  const creator = useCreators(keys.data?.api_keys);
  const [pending, setPending] = useState<Pending>(null);
  const close = () => setPending(null);

  const act = async (kind: 'rotate' | 'revoke' | 'delete', key: ApiKey) => {
    const params = { params: { path: { key_id: key.id } } };
    if (kind === 'rotate') {
      const rotated = (await must(api.POST('/api/v1/api-keys/{key_id}/rotate', params))) as {
        api_key: string;
      };
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
      <ErrorText message={keys.error} />
      {keys.loading && !keys.data ? <Loading what="keys" /> : null}
      {keys.data && keys.data.api_keys.length === 0 ? (
        <Empty>No API keys yet. Create one to call the API from your servers.</Empty>
      ) : null}
      {keys.data && keys.data.api_keys.length > 0 ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created by</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.api_keys.map((k) => (
                <tr key={k.id} data-key-id={k.id}>
                  <td>
                    <strong>{k.name}</strong>
                    <div class="muted small">
                      created <Time iso={k.created_at} />
                    </div>
                  </td>
                  <td class="mono">{k.key_prefix}…</td>
                  <td>
                    <ul class="chips">
                      {k.scopes.map((s) => (
                        <li key={s}>{s}</li>
                      ))}
                    </ul>
                  </td>
                  <td title={k.created_by ?? undefined}>{creator(k.created_by)}</td>
                  <td>
                    <Time iso={k.last_used_at} empty="never" />
                  </td>
                  <td>
                    <Time iso={k.expires_at} empty="never" />
                  </td>
                  <td>{status(k)}</td>
                  <td class="row-actions">
                    {k.revoked_at ? null : (
                      <>
                        <button type="button" onClick={() => setPending({ kind: 'rotate', key: k })}>
                          Rotate
                        </button>
                        <button type="button" onClick={() => setPending({ kind: 'revoke', key: k })}>
                          Revoke
                        </button>
                      </>
                    )}
                    <button
                      type="button"
                      class="danger-text"
                      onClick={() => setPending({ kind: 'delete', key: k })}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {pending?.kind === 'create' ? (
        <CreateKeyDialog
          onClose={close}
          onCreated={(name, secret) => {
            keys.reload();
            setPending({ kind: 'secret', title: `Key “${name}” created`, secret });
          }}
        />
      ) : null}
      {pending?.kind === 'secret' ? (
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
      ) : null}
      {pending && (pending.kind === 'rotate' || pending.kind === 'revoke' || pending.kind === 'delete') ? (
        <Confirm
          title={ACTIONS[pending.kind].title}
          message={ACTIONS[pending.kind].message(pending.key)}
          action={ACTIONS[pending.kind].verb}
          onConfirm={() => act(pending.kind as 'rotate' | 'revoke' | 'delete', pending.key)}
          onClose={() => setPending((p) => (p?.kind === 'secret' ? p : null))}
        />
      ) : null}
    </section>
  );
}

const EXPIRY_CHOICES = [
  { label: 'Never', days: null },
  { label: '30 days', days: 30 },
  { label: '90 days', days: 90 },
  { label: '1 year', days: 365 },
] as const;

/** The spec's key-creation dialog: only the scope groups of KEY_DIALOG_SCOPE_GROUPS. */
function CreateKeyDialog(props: { onClose: () => void; onCreated: (name: string, secret: string) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Set<string>>(new Set());
  const [expiry, setExpiry] = useState<number | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const toggle = (scope: string, on: boolean) =>
    setScopes((prev) => {
      const next = new Set(prev);
      if (on) next.add(scope);
      else next.delete(scope);
      return next;
    });

  const submit = async (e: Event) => {
    e.preventDefault();
    // the API counts spaces as a name; the console sends the trimmed one
    if (!name.trim()) return setError('Give the key a name.');
    if (scopes.size === 0) return setError('Pick at least one scope.');
    setBusy(true);
    setError('');
    try {
      const created = (await must(
        api.POST('/api/v1/api-keys', {
          body: { name: name.trim(), scopes: [...scopes], ...(expiry ? { expires_in_days: expiry } : {}) },
        }),
      )) as { api_key: string };
      props.onCreated(name.trim(), created.api_key);
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };

  return (
    <Modal title="Create API key" onClose={props.onClose} wide>
      {/* any edit answers the last error: it goes until the next submit */}
      <form
        onSubmit={submit}
        class="modal-body"
        id="create-key-form"
        onInput={() => setError('')}
        onChange={() => setError('')}
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
                    checked={scopes.has(s)}
                    onChange={(e: Event) => toggle(s, (e.target as HTMLInputElement).checked)}
                  />
                  <span class="mono">{s}</span>
                </label>
              ))}
            </fieldset>
          ))}
        </fieldset>
        <label for="key-expiry">Expires</label>
        <select
          id="key-expiry"
          onChange={(e: Event) => {
            const v = (e.target as HTMLSelectElement).value;
            setExpiry(v ? Number(v) : null);
          }}
        >
          {EXPIRY_CHOICES.map((c) => (
            <option key={c.label} value={c.days ?? ''} selected={expiry === c.days}>
              {c.label}
            </option>
          ))}
        </select>
        <ErrorText message={error} />
      </form>
      <footer class="modal-foot">
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="submit" form="create-key-form" class="primary" disabled={busy}>
          Create key
        </button>
      </footer>
    </Modal>
  );
}
