/** @jsxImportSource hono/jsx/dom */
import { useState } from 'hono/jsx/dom';
import { allowed, whyNot } from '../access';
import { ApiError, api, type components, isMemberId, must } from '../api';
import {
  Badge,
  Confirm,
  CopyButton,
  Empty,
  ErrorText,
  FormDialog,
  LoadError,
  Loading,
  Modal,
  PageHead,
  Pager,
  RecordsTable,
  Time,
  useLoad,
  useSubmit,
} from '../components';
import {
  type Invitation,
  inviteLink,
  listInvitations,
  resendInvitation,
  revokeInvitation,
} from '../invitations';
import { currentIdentity } from '../session';

type Member = components['schemas']['TenantUser'];

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

/** The team's members, a page at a time, with the signed-in member's own row kept on top. */
function useMembers(offset: number) {
  const team = useLoad(
    () => must(api.GET('/api/v1/tenant/users', { params: { query: { limit: PAGE, offset } } })),
    [offset],
  );
  const me = currentIdentity()?.userId ?? '';
  // the signed-in admin's own row stays on every page, wherever the newest-first order puts it;
  // a CLI token's subject is no member, so it is not looked up
  const myself = useLoad(
    async () =>
      isMemberId(me) ? must(api.GET('/api/v1/tenant/users/{id}', { params: { path: { id: me } } })) : null,
    [me],
  );
  const users = team.data?.users ?? [];
  // on top whether or not this page holds the row: moved there, or added when it is elsewhere
  const own = users.find((m) => m.id === me) ?? myself.data ?? undefined;
  const rows = own ? [own, ...users.filter((m) => m.id !== me)] : users;
  return { team, me, rows, shown: users.length };
}

function TeamHead(props: { manage: boolean; notice: string; error: string; onInvite: () => void }) {
  return (
    <>
      <PageHead
        title="Team"
        intro="Who can sign in to this tenant, and with which role."
        actions={
          props.manage ? (
            <button type="button" class="primary" onClick={props.onInvite}>
              Invite member
            </button>
          ) : null
        }
      />
      {props.manage ? null : <p class="muted role-note">{whyNot('team.manage')}</p>}
      <p class="notice" role="status">
        {props.notice}
      </p>
      <ErrorText message={props.error} />
    </>
  );
}

export function TeamPage() {
  const [offset, setOffset] = useState(0);
  const { team, me, rows, shown } = useMembers(offset);
  const invitations = useLoad(listInvitations);
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [changing, setChanging] = useState<RoleChange | null>(null);
  /** invitation links this page has seen (on inviting or resending): by email */
  const [links, setLinks] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');
  const manage = allowed('team.manage');
  const say = (text: string) => {
    setError('');
    setNotice(text);
  };
  // an invitee is a tenant user whose id is the invitation's: listed once, under the invitations
  const invited = new Set((invitations.data?.invitations ?? []).map((i) => i.id));
  return (
    <section aria-labelledby="page-title">
      <TeamHead manage={manage} notice={notice} error={error} onInvite={() => setInviting(true)} />
      {manage ? (
        <PendingInvitations
          load={invitations}
          links={links}
          onLink={(email, link) => setLinks((l) => ({ ...l, [email]: link }))}
          say={say}
          fail={setError}
        />
      ) : null}
      <h2 class="section-title">Members</h2>
      <LoadError load={team} />
      {team.loading && !team.data ? <Loading what="team" /> : null}
      {team.data && team.data.total === 0 ? (
        <Empty>No members yet. Invite a colleague to share the work.</Empty>
      ) : null}
      {team.data && rows.length > 0 ? (
        <>
          <MembersTable
            rows={rows.filter((m) => !invited.has(m.id))}
            me={me}
            manage={manage}
            onRole={(member, role, select) => setChanging({ member, role, select })}
            onRemove={setRemoving}
          />
          <Pager offset={offset} shown={shown} total={team.data.total} size={PAGE} onMove={setOffset} />
        </>
      ) : null}
      {inviting ? (
        <InviteDialog
          onClose={() => setInviting(false)}
          onInvited={({ email, link }) => {
            if (link) setLinks((l) => ({ ...l, [email]: link }));
            say(`Invitation sent to ${email}.`);
            team.reload();
            invitations.reload();
          }}
        />
      ) : null}
      <MemberDialogs
        removing={removing}
        changing={changing}
        close={() => {
          setRemoving(null);
          setChanging(null);
        }}
        say={say}
        onChange={team.reload}
      />
    </section>
  );
}

function MembersTable(props: {
  rows: Member[];
  me: string;
  manage: boolean;
  onRole: (m: Member, role: Member['role'], select: HTMLSelectElement) => void;
  onRemove: (m: Member) => void;
}) {
  return (
    <RecordsTable name="team" columns={['Member', 'Role', 'Joined']} actions>
      {props.rows.map((m) => (
        <MemberRow
          key={m.id}
          m={m}
          isMe={m.id === props.me}
          manage={props.manage}
          onRole={(role, select) => props.onRole(m, role, select)}
          onRemove={() => props.onRemove(m)}
        />
      ))}
    </RecordsTable>
  );
}

/** Removing a member, or changing a role, after the admin confirms what it does. */
function MemberDialogs(props: {
  removing: Member | null;
  changing: RoleChange | null;
  close: () => void;
  say: (text: string) => void;
  onChange: () => void;
}) {
  const { removing, changing, say } = props;
  // the server ends a member's sessions only when their role is lowered; a raised role reaches them
  // with their next token (within the access token's 15 minutes) or at their next sign-in
  const lowered = (change: RoleChange) => change.role === 'agent';
  if (removing)
    return (
      <Confirm
        title="Remove member"
        message={`${removing.email} can no longer sign in; their sessions end now.`}
        action="Remove"
        onClose={props.close}
        onConfirm={async () => {
          try {
            await must(api.DELETE('/api/v1/tenant/users/{id}', { params: { path: { id: removing.id } } }));
            say(`${removing.email} was removed.`);
          } catch (e) {
            // removed elsewhere meanwhile: the outcome the admin wanted; the list catches up
            if (!(e instanceof ApiError && e.status === 404)) throw e;
            say(`${removing.email} had already been removed.`);
          }
          props.onChange();
        }}
      />
    );
  if (!changing) return null;
  const { member, role } = changing;
  return (
    <Confirm
      title="Change role"
      message={
        lowered(changing)
          ? `${member.email} becomes ${roleName(role)}; their sessions end now and they sign in again with the new role.`
          : `${member.email} becomes ${roleName(role)}; they get the new role within 15 minutes, or at once by signing in again.`
      }
      action="Change role"
      onClose={() => {
        // cancelled or refused: the select shows the role the member still has
        if (!changing.applied) changing.select.value = member.role;
        props.close();
      }}
      onConfirm={async () => {
        await must(
          api.PATCH('/api/v1/tenant/users/{id}', { params: { path: { id: member.id } }, body: { role } }),
        );
        changing.applied = true;
        say(
          lowered(changing)
            ? `${member.email} is now ${roleName(role)}; their sessions ended.`
            : `${member.email} is now ${roleName(role)}; they get it within 15 minutes, or at once by signing in again.`,
        );
        props.onChange();
      }}
    />
  );
}

function InvitationsTable(props: {
  list: Invitation[];
  links: Record<string, string>;
  onResend: (i: Invitation) => void;
  onRevoke: (i: Invitation) => void;
}) {
  return (
    <RecordsTable name="invitations-table" columns={['Email', 'Role', 'Expires']} actions>
      {props.list.map((i) => (
        <tr key={i.id} data-invitation-email={i.email}>
          <td data-label="Email">{i.email}</td>
          <td data-label="Role">
            {ROLES.find((r) => r.value === i.role)?.label ?? i.role} <Badge tone="warn">invited</Badge>
          </td>
          <td data-label="Expires">
            <Time iso={i.expires_at} />
          </td>
          <td class="row-actions">
            {props.links[i.email] ? (
              <CopyButton text={props.links[i.email] ?? ''} label={`Copy invitation link for ${i.email}`} />
            ) : null}
            <button type="button" onClick={() => props.onResend(i)}>
              Resend
            </button>
            <button type="button" class="danger-text" onClick={() => props.onRevoke(i)}>
              Revoke
            </button>
          </td>
        </tr>
      ))}
    </RecordsTable>
  );
}

/** Invitations not yet accepted: when each expires, and copy-link, resend and revoke. */
function PendingInvitations(props: {
  load: ReturnType<typeof useLoad<{ invitations: Invitation[] }>>;
  links: Record<string, string>;
  onLink: (email: string, link: string) => void;
  say: (text: string) => void;
  fail: (text: string) => void;
}) {
  const { load } = props;
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const list = load.data?.invitations ?? [];
  const resend = async (i: Invitation) => {
    try {
      const sent = await resendInvitation(i.id);
      const link = inviteLink(sent);
      if (link) props.onLink(i.email, link);
      props.say(`A new invitation was mailed to ${i.email}; the earlier link no longer works.`);
      load.reload();
    } catch (e) {
      props.fail((e as Error).message);
    }
  };
  if (!load.error && list.length === 0) return null;
  return (
    <div class="invitations">
      <h2 class="section-title">Pending invitations</h2>
      <LoadError load={load} />
      {list.length > 0 ? (
        <InvitationsTable list={list} links={props.links} onResend={resend} onRevoke={setRevoking} />
      ) : null}
      {revoking ? (
        <Confirm
          title="Revoke invitation"
          message={`The link mailed to ${revoking.email} stops working; they cannot join unless invited again.`}
          action="Revoke"
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await revokeInvitation(revoking.id);
            props.say(`The invitation of ${revoking.email} was revoked.`);
            load.reload();
          }}
        />
      ) : null}
    </div>
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
      <td data-label="Member">
        <strong>{m.name ?? m.email}</strong>
        {m.name ? <div class="muted small">{m.email}</div> : null}
        {isMe ? <span class="muted small"> (you)</span> : null}
      </td>
      <td data-label="Role">
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
      <td data-label="Joined">
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

/** What the invite dialog says once the API took it; `link` only where the API returns it (development). */
interface Invited {
  email: string;
  link?: string;
}

function InviteDialog(props: { onClose: () => void; onInvited: (invited: Invited) => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Member['role']>('agent');
  const [sent, setSent] = useState<Invited | null>(null);
  const form = useSubmit(async () => {
    const invited = await must(
      api.POST('/api/v1/tenant/users', {
        body: { email: email.trim(), role, ...(name.trim() ? { name: name.trim() } : {}) },
      }),
    );
    const done = { email: email.trim(), link: inviteLink(invited) };
    setSent(done);
    props.onInvited(done);
  });
  if (sent) return <InviteSent sent={sent} onClose={props.onClose} />;
  return (
    <FormDialog
      title="Invite member"
      id="invite-form"
      form={form}
      action="Send invitation"
      onClose={props.onClose}
    >
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
    </FormDialog>
  );
}

/**
 * The invitation went out: the mail is its only carrier (outside development the API returns no
 * link). A development server still returns the link, offered for local use, said to be that.
 */
function InviteSent(props: { sent: Invited; onClose: () => void }) {
  const { sent } = props;
  return (
    <Modal title="Invitation sent" onClose={props.onClose}>
      <div class="modal-body">
        <p role="status">
          We mailed an invitation to <strong>{sent.email}</strong>. The link in it lets them set a password
          and sign in; it works once, for 7 days.
        </p>
        {sent.link ? (
          <div class="dev-link">
            <p class="muted small">
              Development server: the link is shown here too, for local use. A production server only mails
              it.
            </p>
            <div class="copy-row">
              <input class="mono" readonly value={sent.link} aria-label="Invitation link" />
              <CopyButton text={sent.link} label={`Copy invitation link for ${sent.email}`} />
            </div>
          </div>
        ) : null}
      </div>
      <footer class="modal-foot">
        <button type="button" class="primary" onClick={props.onClose}>
          Done
        </button>
      </footer>
    </Modal>
  );
}
