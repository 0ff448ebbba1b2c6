/** @jsxImportSource hono/jsx/dom */
import { useState } from 'hono/jsx/dom';
import { allowed, whyNot } from '../access';
import { api, must } from '../api';
import { Confirm, Empty, ErrorText, Loading, Modal, PageHead, Time, useLoad } from '../components';
import { currentIdentity } from '../session';

interface Member {
  id: string;
  email: string;
  name: string | null;
  role: 'agent' | 'tenant_admin';
  created_at: string;
}

const ROLES = [
  { value: 'agent', label: 'Agent', hint: 'works tickets, calls and conversations' },
  { value: 'tenant_admin', label: 'Admin', hint: 'also manages keys, webhooks and the team' },
] as const;

export function TeamPage() {
  const team = useLoad(
    async () =>
      (await must(api.GET('/api/v1/tenant/users', { params: { query: { limit: 100 } } }))) as {
        users: Member[];
        total: number;
      },
  );
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');
  const me = currentIdentity()?.userId;
  const manage = allowed('team.manage');

  const changeRole = async (m: Member, role: Member['role']) => {
    setError('');
    setNotice('');
    try {
      await must(api.PATCH('/api/v1/tenant/users/{id}', { params: { path: { id: m.id } }, body: { role } }));
      setNotice(`${m.email} is now ${role === 'tenant_admin' ? 'an admin' : 'an agent'}.`);
      team.reload();
    } catch (e) {
      setError((e as Error).message);
      team.reload();
    }
  };

  return (
    <section aria-labelledby="page-title">
      <PageHead
        title="Team"
        intro="Who can sign in to this tenant, and with which role."
        actions={
          manage ? (
            <button type="button" class="primary" onClick={() => setInviting(true)}>
              Invite member
            </button>
          ) : null
        }
      />
      {manage ? null : <p class="muted role-note">{whyNot('team.manage')}</p>}
      <p class="notice" role="status">
        {notice}
      </p>
      <ErrorText message={error || team.error} />
      {team.loading && !team.data ? <Loading what="team" /> : null}
      {team.data && team.data.users.length === 0 ? (
        <Empty>No members yet. Invite a colleague to share the work.</Empty>
      ) : null}
      {team.data && team.data.users.length > 0 ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Role</th>
                <th scope="col">Joined</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {team.data.users.map((m) => (
                <tr key={m.id} data-user-email={m.email}>
                  <td>
                    <strong>{m.name ?? m.email}</strong>
                    {m.name ? <div class="muted small">{m.email}</div> : null}
                    {m.id === me ? <span class="muted small"> (you)</span> : null}
                  </td>
                  <td>
                    <select
                      aria-label={`Role of ${m.email}`}
                      disabled={m.id === me || !manage}
                      onChange={(e: Event) =>
                        changeRole(m, (e.target as HTMLSelectElement).value as Member['role'])
                      }
                    >
                      {ROLES.map((r) => (
                        <option key={r.value} value={r.value} selected={m.role === r.value}>
                          {r.label}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <Time iso={m.created_at} />
                  </td>
                  <td class="row-actions">
                    {m.id === me || !manage ? null : (
                      <button type="button" class="danger-text" onClick={() => setRemoving(m)}>
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {inviting ? (
        <InviteDialog
          onClose={() => setInviting(false)}
          onInvited={(email) => {
            setInviting(false);
            setNotice(`Invitation sent to ${email}.`);
            team.reload();
          }}
        />
      ) : null}
      {removing ? (
        <Confirm
          title="Remove member"
          message={`${removing.email} can no longer sign in; their sessions end now.`}
          action="Remove"
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await must(api.DELETE('/api/v1/tenant/users/{id}', { params: { path: { id: removing.id } } }));
            team.reload();
          }}
        />
      ) : null}
    </section>
  );
}

function InviteDialog(props: { onClose: () => void; onInvited: (email: string) => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Member['role']>('agent');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await must(
        api.POST('/api/v1/tenant/users', {
          body: { email: email.trim(), role, ...(name.trim() ? { name: name.trim() } : {}) },
        }),
      );
      props.onInvited(email.trim());
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };
  return (
    <Modal title="Invite member" onClose={props.onClose}>
      <form id="invite-form" class="modal-body" onSubmit={submit}>
        <label for="invite-email">Email</label>
        <input
          id="invite-email"
          type="email"
          required
          autocomplete="off"
          value={email}
          onInput={(e: Event) => setEmail((e.target as HTMLInputElement).value)}
        />
        <label for="invite-name">Name (optional)</label>
        <input
          id="invite-name"
          value={name}
          onInput={(e: Event) => setName((e.target as HTMLInputElement).value)}
        />
        <fieldset>
          <legend>Role</legend>
          {ROLES.map((r) => (
            <label key={r.value} class="check">
              <input
                type="radio"
                name="role"
                value={r.value}
                checked={role === r.value}
                onChange={() => setRole(r.value)}
              />
              <span>
                {r.label} <span class="muted small">— {r.hint}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <p class="muted small">They get an email with a link to set their password.</p>
        <ErrorText message={error} />
      </form>
      <footer class="modal-foot">
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="submit" form="invite-form" class="primary" disabled={busy}>
          Send invitation
        </button>
      </footer>
    </Modal>
  );
}
