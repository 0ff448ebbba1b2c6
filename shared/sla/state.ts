// The SLA rules, as pure functions of a record's SLA columns: which policy applies, the due times
// it gives, and how a first response, a resolution, a reopening or a re-choice moves them. The
// tickets and conversations functions and the breach check all write what these decide.
import { iso } from '../events/emit';
import { addBusinessMinutes, type BusinessHours } from './business-time';

export interface SlaConditions {
  priorities?: readonly string[] | undefined;
  channels?: readonly string[] | undefined;
  tags?: readonly string[] | undefined;
}

export interface SlaPolicy {
  id: string;
  position: number;
  business_hours_id: string | null;
  conditions: SlaConditions;
  first_response_minutes: number | null;
  resolution_minutes: number | null;
}

/** What a policy's conditions look at: a ticket's `source` is its channel. */
export interface SlaSubject {
  priority: string;
  channel: string;
  tags: readonly string[];
}

/** The SLA columns of a ticket or conversation row (shared/db/tables/sla.ts). */
export interface SlaState {
  sla_policy_id: string | null;
  sla_first_response_due_at: Date | null;
  sla_first_response_at: Date | null;
  sla_first_response_breached: boolean;
  sla_resolution_started_at: Date | null;
  sla_resolution_due_at: Date | null;
  sla_resolution_breached: boolean;
  sla_due_at: Date | null;
  sla_check_at: Date | null;
  sla_breached: boolean;
}

export const NO_SLA: SlaState = {
  sla_policy_id: null,
  sla_first_response_due_at: null,
  sla_first_response_at: null,
  sla_first_response_breached: false,
  sla_resolution_started_at: null,
  sla_resolution_due_at: null,
  sla_resolution_breached: false,
  sla_due_at: null,
  sla_check_at: null,
  sla_breached: false,
};

/**
 * The SLA columns of a row, and nothing else: the rules spread the row they are given, and a write
 * must never carry its other columns back (a generated column, such as the search vector, cannot
 * be written at all).
 */
export const slaColumnsOf = (row: SlaState): SlaState =>
  Object.fromEntries(Object.keys(NO_SLA).map((k) => [k, row[k as keyof SlaState]])) as unknown as SlaState;

/** Every condition given must match: a priority and a channel among those listed, a tag among the tags. */
export function policyMatches(c: SlaConditions, s: SlaSubject): boolean {
  if (c.priorities?.length && !c.priorities.includes(s.priority)) return false;
  if (c.channels?.length && !c.channels.includes(s.channel)) return false;
  if (c.tags?.length && !c.tags.some((t) => s.tags.includes(t))) return false;
  return true;
}

/** The first policy by position (then id) whose conditions match; undefined when none does. */
export function choosePolicy<P extends SlaPolicy>(policies: readonly P[], s: SlaSubject): P | undefined {
  return [...policies]
    .sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .find((p) => policyMatches(p.conditions, s));
}

const earliest = (...dates: (Date | null)[]) =>
  dates.reduce<Date | null>((min, d) => (d && (!min || d < min) ? d : min), null);

/** The two derived columns: the earliest due time not yet met, and of those the earliest not breached. */
export function withTimes(
  s: Omit<SlaState, 'sla_due_at' | 'sla_check_at' | 'sla_breached'>,
  resolved: boolean,
) {
  const frOpen = s.sla_first_response_at === null ? s.sla_first_response_due_at : null;
  const resOpen = resolved ? null : s.sla_resolution_due_at;
  return {
    ...s,
    sla_due_at: earliest(frOpen, resOpen),
    sla_check_at: earliest(
      s.sla_first_response_breached ? null : frOpen,
      s.sla_resolution_breached ? null : resOpen,
    ),
    // listed as breached only while a policy applies
    sla_breached: s.sla_policy_id !== null && (s.sla_first_response_breached || s.sla_resolution_breached),
  } satisfies SlaState;
}

const dueAfter = (start: Date | null, minutes: number | null, hours: BusinessHours | null) =>
  start === null || minutes === null ? null : addBusinessMinutes(start, minutes, hours);

/**
 * The state under `policy` (undefined: none applies) for a record created at `createdAt`: the
 * first response is due `first_response_minutes` business minutes after creation, the resolution
 * that many after the resolution clock's start (creation, or the latest reopening). A re-choice
 * keeps what already happened (the first response, the breaches, the clock's start) and counts
 * the new targets from the same starts, so a policy changed while the clock runs moves the due
 * time to where the new policy puts it, not a fresh full target from the change.
 */
export function applyPolicy(
  current: SlaState,
  policy: SlaPolicy | undefined,
  hours: BusinessHours | null,
  createdAt: Date,
  resolved: boolean,
): SlaState {
  const started = current.sla_resolution_started_at ?? createdAt;
  // no policy applies: no targets and no breach listed, but what happened is kept for a later re-choice
  if (!policy)
    return {
      ...current,
      sla_policy_id: null,
      sla_first_response_due_at: null,
      sla_resolution_started_at: started,
      sla_resolution_due_at: null,
      sla_due_at: null,
      sla_check_at: null,
      sla_breached: false,
    };
  return withTimes(
    {
      sla_policy_id: policy.id,
      sla_first_response_due_at: dueAfter(createdAt, policy.first_response_minutes, hours),
      sla_first_response_at: current.sla_first_response_at,
      sla_first_response_breached: current.sla_first_response_breached,
      sla_resolution_started_at: started,
      sla_resolution_due_at: dueAfter(started, policy.resolution_minutes, hours),
      sla_resolution_breached: current.sla_resolution_breached,
    },
    resolved,
  );
}

/**
 * The first public agent reply at `at` (once; later replies change nothing). Recorded under no
 * policy too: a policy chosen later finds the first response already sent.
 */
export function firstResponse(current: SlaState, at: Date, resolved: boolean): SlaState | null {
  if (current.sla_first_response_at !== null) return null;
  return withTimes({ ...current, sla_first_response_at: at }, resolved);
}

/**
 * A status change: into resolved/closed meets the resolution target; out of them (a reopening)
 * starts the resolution clock again at `at` under the record's policy.
 */
export function statusChange(
  current: SlaState,
  from: { resolved: boolean },
  to: { resolved: boolean },
  at: Date,
  policy: SlaPolicy | undefined,
  hours: BusinessHours | null,
): SlaState | null {
  if (from.resolved === to.resolved) return null;
  // under no policy only the clock's start is kept (for a policy chosen later)
  if (current.sla_policy_id === null)
    return to.resolved ? null : { ...current, sla_resolution_started_at: at };
  if (to.resolved) return withTimes(current, true);
  // a policy deleted since: no resolution target for the new cycle
  const due = policy ? dueAfter(at, policy.resolution_minutes, hours) : null;
  return withTimes({ ...current, sla_resolution_started_at: at, sla_resolution_due_at: due }, false);
}

/** The breaches due at `now` that are not yet recorded: each target not met by its due time. */
export function breachesAt(current: SlaState, now: Date, resolved: boolean) {
  const fr =
    !current.sla_first_response_breached &&
    current.sla_first_response_at === null &&
    current.sla_first_response_due_at !== null &&
    current.sla_first_response_due_at <= now;
  const res =
    !current.sla_resolution_breached &&
    !resolved &&
    current.sla_resolution_due_at !== null &&
    current.sla_resolution_due_at <= now;
  if (!fr && !res) return null;
  const next = withTimes(
    {
      ...current,
      sla_first_response_breached: current.sla_first_response_breached || fr,
      sla_resolution_breached: current.sla_resolution_breached || res,
    },
    resolved,
  );
  // the time it fell due: the earliest of the breaches recorded now
  const dueAt = earliest(
    fr ? current.sla_first_response_due_at : null,
    res ? current.sla_resolution_due_at : null,
  )!;
  return { next, firstResponse: fr, resolution: res, dueAt };
}

/** `sla` as reads show it: null when no policy applies. */
export function slaView(s: SlaState) {
  if (s.sla_policy_id === null) return null;
  return {
    policy_id: s.sla_policy_id,
    first_response_due_at: iso(s.sla_first_response_due_at),
    first_response_at: iso(s.sla_first_response_at),
    first_response_breached: s.sla_first_response_breached,
    resolution_due_at: iso(s.sla_resolution_due_at),
    resolution_breached: s.sla_resolution_breached,
  };
}
export type SlaView = ReturnType<typeof slaView>;

/** Only the SLA columns of a row (for writes that spread them). */
export const slaColumns = (row: SlaState): SlaState => ({
  sla_policy_id: row.sla_policy_id,
  sla_first_response_due_at: row.sla_first_response_due_at,
  sla_first_response_at: row.sla_first_response_at,
  sla_first_response_breached: row.sla_first_response_breached,
  sla_resolution_started_at: row.sla_resolution_started_at,
  sla_resolution_due_at: row.sla_resolution_due_at,
  sla_resolution_breached: row.sla_resolution_breached,
  sla_due_at: row.sla_due_at,
  sla_check_at: row.sla_check_at,
  sla_breached: row.sla_breached,
});
