// The SLA state's reads of the tenant's policies and hours, for the writes of tickets and
// conversations (creation, a change of priority, channel or tags, a status change) and the breach
// check. One query: the tenant's policies in order, each with its hours.
import type { Executor } from '../db/schema';
import type { BusinessHours } from './business-time';
import {
  applyPolicy,
  choosePolicy,
  NO_SLA,
  type SlaPolicy,
  type SlaState,
  type SlaSubject,
  slaColumns,
  statusChange,
} from './state';

export interface PolicyWithHours extends SlaPolicy {
  hours: BusinessHours | null;
}

/** The tenant's SLA policies by position, each with the business hours it counts in (null: around the clock). */
export async function tenantPolicies(db: Executor, tenantId: string): Promise<PolicyWithHours[]> {
  const rows = await db
    .selectFrom('sla_policies as p')
    .leftJoin('business_hours as h', (j) =>
      j.onRef('h.id', '=', 'p.business_hours_id').on('h.tenant_id', '=', tenantId),
    )
    .select([
      'p.id',
      'p.position',
      'p.business_hours_id',
      'p.conditions',
      'p.first_response_minutes',
      'p.resolution_minutes',
      'h.timezone',
      'h.intervals',
      'h.holidays',
    ])
    .where('p.tenant_id', '=', tenantId)
    .orderBy('p.position')
    .orderBy('p.id')
    .execute();
  return rows.map(policyWithHours);
}

/** A policy row joined with its hours' columns (null when it counts around the clock). */
export const policyWithHours = ({
  timezone,
  intervals,
  holidays,
  ...p
}: SlaPolicy & {
  timezone: string | null;
  intervals: BusinessHours['intervals'] | null;
  holidays: BusinessHours['holidays'] | null;
}): PolicyWithHours => ({
  ...p,
  hours: timezone ? { timezone, intervals: intervals ?? [], holidays: holidays ?? [] } : null,
});

/** The state of a record under the policy its subject matches now (creation, or a re-choice). */
export async function chosenSla(
  db: Executor,
  tenantId: string,
  subject: SlaSubject,
  current: SlaState,
  createdAt: Date,
  resolved: boolean,
): Promise<SlaState> {
  return slaAmong(await tenantPolicies(db, tenantId), subject, current, createdAt, resolved);
}

/** chosenSla among policies already read (tenantPolicies, or a read that carried them). */
export function slaAmong(
  policies: readonly PolicyWithHours[],
  subject: SlaSubject,
  current: SlaState,
  createdAt: Date,
  resolved: boolean,
): SlaState {
  const policy = choosePolicy(policies, subject);
  return applyPolicy(current, policy, policy?.hours ?? null, createdAt, resolved);
}

/** The state after a status change (null: it changes nothing), under the record's own policy. */
export async function slaAfterStatus(
  db: Executor,
  tenantId: string,
  current: SlaState,
  from: { resolved: boolean },
  to: { resolved: boolean },
  at: Date,
): Promise<SlaState | null> {
  if (from.resolved === to.resolved) return null;
  const policy =
    to.resolved || current.sla_policy_id === null
      ? undefined
      : (await tenantPolicies(db, tenantId)).find((p) => p.id === current.sla_policy_id);
  return statusChange(current, from, to, at, policy, policy?.hours ?? null);
}

export interface SlaChange {
  /** the record's priority, channel and tags after the change */
  subject: SlaSubject;
  /** priority, channel or tags changed: the policy is chosen again */
  rechoose: boolean;
  wasResolved: boolean;
  resolved: boolean;
  at: Date;
}

/**
 * The SLA columns after a write to a ticket or conversation, or null when they stay as they are.
 * A reopening first restarts the resolution clock at `at`; a re-choice then counts the new
 * policy's targets from the record's clock starts.
 */
export async function slaAfterChange(
  db: Executor,
  tenantId: string,
  row: SlaState & { created_at: Date },
  change: SlaChange,
): Promise<SlaState | null> {
  let state = slaColumns(row);
  let changed = false;
  const moved = await slaAfterStatus(
    db,
    tenantId,
    state,
    { resolved: change.wasResolved },
    change,
    change.at,
  );
  if (moved) [state, changed] = [moved, true];
  if (change.rechoose) {
    state = await chosenSla(db, tenantId, change.subject, state, row.created_at, change.resolved);
    changed = true;
  }
  return changed ? state : null;
}

export { NO_SLA };
