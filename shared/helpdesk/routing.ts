import { sql } from 'kysely';
import type { Executor } from '../db/schema';
import { validationError } from '../http/errors';

export const TEAM_ROUTINGS = ['manual', 'round_robin', 'balanced'] as const;
export type TeamRouting = (typeof TEAM_ROUTINGS)[number];

export interface TeamPick {
  /** the member picked (null: a manual team, or no active member) */
  userId: string | null;
  /** the team's algorithm: what `conversation.assigned` carries as `routing_reason` */
  routing: TeamRouting;
}

/**
 * The members of `memberIds` in the order the rotation reaches them: the one after `lastPick`
 * first (the first member when `lastPick` is not a member any more).
 */
export function rotationOrder(memberIds: readonly string[], lastPick: string | null): string[] {
  const at = lastPick === null ? -1 : memberIds.indexOf(lastPick);
  return [...memberIds.slice(at + 1), ...memberIds.slice(0, at + 1)];
}

/**
 * `balanced`: the member with the fewest open assignments (ties: the first in rotation order);
 * `round_robin`: the first in rotation order.
 */
export function choose(
  routing: 'round_robin' | 'balanced',
  inTurn: readonly string[],
  load: Map<string, number>,
) {
  if (routing === 'round_robin') return inTurn[0] ?? null;
  let best: string | null = null;
  for (const id of inTurn) if (best === null || (load.get(id) ?? 0) < (load.get(best) ?? 0)) best = id;
  return best;
}

/**
 * The member an assignment to team `teamId` goes to, picked in the caller's transaction: the team's
 * row is locked (FOR UPDATE) from reading its rotation state to writing the new one, so concurrent
 * assignments on any number of processes take turns instead of picking the same member. Members
 * who are disabled or no longer users of the tenant are skipped. An unknown team (or another
 * tenant's) is a 422 at `field`.
 */
export async function pickTeamMember(
  trx: Executor,
  tenantId: string,
  teamId: string,
  field: string,
): Promise<TeamPick> {
  const team = await trx
    .selectFrom('teams')
    .select(['routing', 'member_ids', 'last_pick'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', teamId)
    .forUpdate()
    .executeTakeFirst();
  if (!team) throw validationError([{ loc: ['body', field], msg: 'Team not found', type: 'value_error' }]);
  if (team.routing === 'manual' || team.member_ids.length === 0)
    return { userId: null, routing: team.routing };
  const active = await trx
    .selectFrom('tenant_users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', team.member_ids)
    .where('disabled_at', 'is', null)
    .execute();
  const activeIds = new Set(active.map((u) => u.id));
  const inTurn = rotationOrder(team.member_ids, team.last_pick).filter((id) => activeIds.has(id));
  if (inTurn.length === 0) return { userId: null, routing: team.routing };
  const load = team.routing === 'balanced' ? await openAssignments(trx, tenantId, inTurn) : new Map();
  const userId = choose(team.routing, inTurn, load);
  await trx
    .updateTable('teams')
    .set({ last_pick: userId })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', teamId)
    .execute();
  return { userId, routing: team.routing };
}

/**
 * Each user's open assignments: tickets not resolved or closed assigned to them, and conversations
 * open or waiting assigned to them (the partial indexes of schema/0027 serve both counts).
 */
async function openAssignments(db: Executor, tenantId: string, userIds: readonly string[]) {
  const { rows } = await sql<{ user_id: string; n: string }>`
    SELECT u AS user_id,
           (SELECT count(*) FROM tickets t
             WHERE t.tenant_id = ${tenantId} AND t.assignee_id = u AND t.status NOT IN ('resolved', 'closed'))
         + (SELECT count(*) FROM conversations c
             WHERE c.tenant_id = ${tenantId} AND c.assignee_user_id = u AND c.status IN ('open', 'waiting')) AS n
      FROM unnest(ARRAY[${sql.join(userIds)}]::text[]) AS u`.execute(db);
  return new Map(rows.map((r) => [r.user_id, Number(r.n)]));
}

/**
 * A team's deletion leaves its records unassigned from it: `assignee_team_id` becomes null on its
 * tickets and conversations (their assignee user stays), in the caller's transaction.
 */
export async function releaseTeamRecords(trx: Executor, tenantId: string, teamId: string) {
  const now = new Date();
  await trx
    .updateTable('tickets')
    .set({ assignee_team_id: null, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('assignee_team_id', '=', teamId)
    .execute();
  await trx
    .updateTable('conversations')
    .set({ assignee_team_id: null, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('assignee_team_id', '=', teamId)
    .execute();
}
