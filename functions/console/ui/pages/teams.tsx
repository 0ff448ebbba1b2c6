/** @jsxImportSource hono/jsx/dom */
// Teams: who is in each, and how an assignment to the team alone picks one of them (routing).
import type { Child } from 'hono/jsx';
import { useState } from 'hono/jsx/dom';
import { allowed } from '../access';
import { api, type components, must } from '../api';
import {
  FormDialog,
  ListPage,
  LoadError,
  Loading,
  RecordsTable,
  Time,
  useLoad,
  useSubmit,
} from '../components';
import { listInvitations } from '../invitations';

type Team = components['schemas']['Team'];
type Member = components['schemas']['TenantUser'];
type Routing = Team['routing'];

export const ROUTINGS: { value: Routing; label: string; hint: string }[] = [
  { value: 'manual', label: 'Manual', hint: 'no member is picked; someone assigns one' },
  { value: 'round_robin', label: 'Round robin', hint: 'the next member after the last one picked' },
  { value: 'balanced', label: 'Balanced', hint: 'the member with the fewest open assignments' },
];
const routingLabel = (r: Routing) => ROUTINGS.find((x) => x.value === r)?.label ?? r;

/**
 * The tenant's members who can be in a team: active users (an invitee counts among the API's users
 * until they accept, and the API refuses them as members). Up to the first 100, the API's page cap.
 */
function useMembers() {
  return useLoad(async () => {
    const [users, invited] = await Promise.all([
      must(api.GET('/api/v1/tenant/users', { params: { query: { limit: 100 } } })),
      allowed('team.manage') ? listInvitations().catch(() => ({ invitations: [] })) : { invitations: [] },
    ]);
    const pending = new Set(invited.invitations.map((i) => i.id));
    return users.users.filter((u) => !pending.has(u.id));
  });
}

const nameOf = (members: Member[] | undefined, id: string) => {
  const m = members?.find((u) => u.id === id);
  return m ? m.name || m.email : id;
};

export function TeamsPage() {
  const members = useMembers();
  const manage = allowed('helpdesk.manage');
  return (
    <ListPage<Team>
      title="Teams"
      intro="Groups of members that conversations and tickets are assigned to; a routing team picks one of its members."
      what="teams"
      load={async (page) => {
        const { teams, total } = await must(api.GET('/api/v2/teams', { params: { query: page } }));
        return { items: teams, total };
      }}
      empty={<>No teams yet.{manage ? ' Create one to route work.' : ''}</>}
      table={(list, menu) => <TeamsTable list={list} members={members.data} menu={menu} />}
      editing={{
        action: 'helpdesk.manage',
        newLabel: 'New team',
        noun: 'Team',
        name: (t) => t.name,
        dialog: (team, on) => <TeamDialog team={team} members={members} {...on} />,
        remove: {
          title: 'Delete team',
          message: (t) =>
            `${t.name} is deleted; conversations and tickets assigned to it keep their agent but no longer name a team.`,
          run: async (t) => {
            await must(api.DELETE('/api/v2/teams/{team_id}', { params: { path: { team_id: t.id } } }));
          },
        },
      }}
    />
  );
}

function TeamsTable(props: { list: Team[]; members: Member[] | undefined; menu?: (t: Team) => Child }) {
  return (
    <RecordsTable name="teams" columns={['Team', 'Routing', 'Members', 'Changed']} actions={!!props.menu}>
      {props.list.map((t) => (
        <tr key={t.id} data-team={t.name}>
          <td data-label="Team">
            <strong>{t.name}</strong>
            {t.description ? <div class="small muted">{t.description}</div> : null}
          </td>
          <td data-label="Routing">{routingLabel(t.routing)}</td>
          <td data-label="Members">
            {t.member_ids.length === 0 ? (
              <span class="muted">none</span>
            ) : (
              <ul class="chips">
                {t.member_ids.map((id) => (
                  <li key={id}>{nameOf(props.members, id)}</li>
                ))}
              </ul>
            )}
          </td>
          <td data-label="Changed">
            <Time iso={t.updated_at} />
          </td>
          {props.menu?.(t)}
        </tr>
      ))}
    </RecordsTable>
  );
}

/** New team, or Edit: name, description, routing and the members (in rotation order: as ticked). */
function TeamDialog(props: {
  team: Team | undefined;
  members: ReturnType<typeof useMembers>;
  onClose: () => void;
  onSaved: (t: Team, created: boolean) => void;
}) {
  const { team } = props;
  const [name, setName] = useState(team?.name ?? '');
  const [description, setDescription] = useState(team?.description ?? '');
  const [routing, setRouting] = useState<Routing>(team?.routing ?? 'manual');
  const [memberIds, setMemberIds] = useState<string[]>(team?.member_ids ?? []);
  const form = useSubmit(async () => {
    const body = { name, description, routing, member_ids: memberIds };
    const saved = team
      ? await must(api.PATCH('/api/v2/teams/{team_id}', { params: { path: { team_id: team.id } }, body }))
      : await must(api.POST('/api/v2/teams', { body }));
    props.onSaved(saved, !team);
  });
  const value = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <FormDialog
      title={team ? 'Edit team' : 'New team'}
      id="team-form"
      form={form}
      action={team ? 'Save changes' : 'Create team'}
      onClose={props.onClose}
      wide
    >
      <label for="team-name">Name</label>
      <input id="team-name" required maxLength={200} value={name} onInput={(e: Event) => setName(value(e))} />
      <label for="team-description">Description (optional)</label>
      <textarea
        id="team-description"
        rows={2}
        maxLength={1000}
        value={description}
        onInput={(e: Event) => setDescription(value(e))}
      />
      <RoutingChoice routing={routing} onPick={setRouting} />
      <MemberChoice members={props.members} picked={memberIds} onChange={setMemberIds} />
    </FormDialog>
  );
}

function RoutingChoice(props: { routing: Routing; onPick: (r: Routing) => void }) {
  return (
    <fieldset>
      <legend>Routing</legend>
      {ROUTINGS.map((r) => (
        <label key={r.value} class="check">
          <input
            type="radio"
            name="routing"
            value={r.value}
            checked={props.routing === r.value}
            onChange={() => props.onPick(r.value)}
          />
          <span>
            {r.label} <span class="muted small">— {r.hint}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

function MemberChoice(props: {
  members: ReturnType<typeof useMembers>;
  picked: string[];
  onChange: (ids: string[]) => void;
}) {
  const { members, picked } = props;
  const toggle = (id: string, on: boolean) =>
    props.onChange(on ? [...picked.filter((p) => p !== id), id] : picked.filter((p) => p !== id));
  return (
    <fieldset>
      <legend>Members</legend>
      <p class="muted small">Round robin takes them in the order they are ticked.</p>
      <LoadError load={members} />
      {members.loading && !members.data ? <Loading what="members" /> : null}
      {(members.data ?? []).map((m) => (
        <label key={m.id} class="check">
          <input
            type="checkbox"
            name="member"
            value={m.id}
            checked={picked.includes(m.id)}
            onChange={(e: Event) => toggle(m.id, (e.target as HTMLInputElement).checked)}
          />
          <span>
            {m.name ? `${m.name} · ` : ''}
            {m.email}
          </span>
        </label>
      ))}
    </fieldset>
  );
}
