/** @jsxImportSource hono/jsx/dom */
import { useState } from 'hono/jsx/dom';
import { allowed, whyNot } from '../access';
import { ApiError, api, must } from '../api';
import { Confirm, Empty, ErrorText, Loading, Modal, PageHead, Pager, Time, useLoad } from '../components';
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

const roleName = (role: Member['role']) => (role === 'tenant_admin' ? 'an admin' : 'an agent');

/** Members per page (the API allows up to 100). */
const PAGE = 50;

/** A role picked in a row's select, waiting for the admin to confirm it. */
interface RoleChange {
  member: Member;
  role: Member['role'];
  select: HTMLSelectElement;
  /** set once the API took it */
  applied?: boolean;
}

export function TeamPage() {
  const [offset, setOffset] = useState(0);
  const team = useLoad(
    async () =>
      (await must(api.GET('/api/v1/tenant/users', { params: { query: { limit: PAGE, offset } } }))) as {
        users: Member[];
        total: number;
      },
    [offset],
  );
  const me = currentIdentity()?.userId;
  // the signed-in admin's own row stays on every page, wherever the newest-first order puts it
  const myself = useLoad(
    async () =>
      me
        ? ((await must(api.GET('/api/v1/tenant/users/{id}', { params: { path: { id: me } } }))) as Member)
        : null,
    [me],
  );
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [changing, setChanging] = useState<RoleChange | null>(null);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');
  const manage = allowed('team.manage');

  const say = (text: string) => {
    setError('');
    setNotice(text);
  };

  // the server ends a member's sessions only when their role is lowered; a raised role reaches them
  // with their next token (within the access token's 15 minutes) or at their next sign-in
  const lowered = (change: RoleChange) => change.role === 'agent';
  const changeRole = async (change: RoleChange) => {
    const { member, role } = change;
    await must(
      api.PATCH('/api/v1/tenant/users/{id}', { params: { path: { id: member.id } }, body: { role } }),
    );
    change.applied = true;
    say(
      lowered(change)
        ? `${member.email} is now ${roleName(role)}; their sessions ended.`
        : `${member.email} is now ${roleName(role)}; they get it within 15 minutes, or at once by signing in again.`,
    );
    team.reload();
  };

  const remove = async (m: Member) => {
    try {
      await must(api.DELETE('/api/v1/tenant/users/{id}', { params: { path: { id: m.id } } }));
      say(`${m.email} was removed.`);
    } catch (e) {
      // removed elsewhere meanwhile: the outcome the admin wanted; the list catches up
      if (!(e instanceof ApiError && e.status === 404)) throw e;
      say(`${m.email} had already been removed.`);
    }
    team.reload();
  };

  const users = team.data?.users ?? [];
  const pinned = myself.data && !users.some((m) => m.id === me) ? [myself.data] : [];

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
      {team.data && team.data.total === 0 ? (
        <Empty>No members yet. Invite a colleague to share the work.</Empty>
      ) : null}
      {team.data && users.length + pinned.length > 0 ? (
        <>
          <div class="table-wrap">
            <table class="team">
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
                {[...pinned, ...users].map((m) => (
                  <MemberRow
                    key={m.id}
                    m={m}
                    isMe={m.id === me}
                    manage={manage}
                    onRole={(role, select) => setChanging({ member: m, role, select })}
                    onRemove={() => setRemoving(m)}
                  />
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            offset={offset}
            shown={users.length}
            total={team.data.total}
            size={PAGE}
            onMove={setOffset}
          />
        </>
      ) : null}
      {inviting ? (
        <InviteDialog
          onClose={() => setInviting(false)}
          onInvited={(email) => {
            setInviting(false);
            say(`Invitation sent to ${email}.`);
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
          onConfirm={() => remove(removing)}
        />
      ) : null}
      {changing ? (
        <Confirm
          title="Change role"
          message={
            lowered(changing)
              ? `${changing.member.email} becomes ${roleName(changing.role)}; their sessions end now and they sign in again with the new role.`
              : `${changing.member.email} becomes ${roleName(changing.role)}; they get the new role within 15 minutes, or at once by signing in again.`
          }
          action="Change role"
          onClose={() => {
            // cancelled or refused: the select shows the role the member still has
            if (!changing.applied) changing.select.value = changing.member.role;
            setChanging(null);
          }}
          onConfirm={() => changeRole(changing)}
        />
      ) : null}
    </section>
  );
}

function MemberRow(props: {
  m: Member;
  isMe: boolean;
  manage: boolean;
  onRole: (role: Member['role'], select: HTMLSelectElement) => void;
  onRemove: () => void;
}) {
  const { m, isMe, manage } = props;
  return (
    <tr data-user-email={m.email} class={isMe ? 'me' : undefined}>
      <td>
        <strong>{m.name ?? m.email}</strong>
        {m.name ? <div class="muted small">{m.email}</div> : null}
        {isMe ? <span class="muted small"> (you)</span> : null}
      </td>
      <td>
        <select
          class="role"
          aria-label={`Role of ${m.email}`}
          disabled={isMe || !manage}
          // a change only opens the confirmation (which takes focus), so arrow keys send nothing
          onChange={(e: Event) => {
            const select = e.target as HTMLSelectElement;
            props.onRole(select.value as Member['role'], select);
          }}
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
        {isMe || !manage ? null : (
          <button type="button" class="danger-text" onClick={props.onRemove}>
            Remove
          </button>
        )}
      </td>
    </tr>
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
      {/* any edit answers the last error: it goes until the next submit */}
      <form id="invite-form" class="modal-body" onSubmit={submit} onInput={() => setError('')}>
        <label for="invite-email">Email</label>
        <input
          id="invite-email"
          type="email"
          required
          maxLength={320}
          autocomplete="off"
          value={email}
          onInput={(e: Event) => setEmail((e.target as HTMLInputElement).value)}
        />
        <label for="invite-name">Name (optional)</label>
        <input
          id="invite-name"
          maxLength={200}
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
