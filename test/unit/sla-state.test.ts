import { describe, expect, it } from 'vitest';
import {
  applyPolicy,
  breachesAt,
  choosePolicy,
  firstResponse,
  NO_SLA,
  type SlaPolicy,
  slaView,
  statusChange,
} from '../../shared/sla/state';

const berlin = {
  timezone: 'Europe/Berlin',
  intervals: [1, 2, 3, 4, 5].map((day) => ({ day, start: '09:00', end: '17:00' })),
  holidays: [],
};
const policy = (id: string, position: number, extra: Partial<SlaPolicy> = {}): SlaPolicy => ({
  id,
  position,
  business_hours_id: 'bhr_x',
  conditions: {},
  first_response_minutes: 60,
  resolution_minutes: 480,
  ...extra,
});
const at = (iso: string) => new Date(iso);

describe('SLA state', () => {
  it('the first policy by position whose conditions all match applies', () => {
    const policies = [
      policy('sla_c', 2),
      policy('sla_a', 0, { conditions: { priorities: ['urgent'], channels: ['email'] } }),
      policy('sla_b', 1, { conditions: { tags: ['vip'] } }),
    ];
    expect(choosePolicy(policies, { priority: 'urgent', channel: 'email', tags: [] })?.id).toBe('sla_a');
    // priority matches but the channel does not: the next one
    expect(choosePolicy(policies, { priority: 'urgent', channel: 'api', tags: ['vip'] })?.id).toBe('sla_b');
    expect(choosePolicy(policies, { priority: 'low', channel: 'api', tags: [] })?.id).toBe('sla_c');
    expect(choosePolicy(policies.slice(1), { priority: 'low', channel: 'api', tags: [] })).toBeUndefined();
  });

  it('a policy changed while the clock runs counts the new target from the same start', () => {
    // created Mon 2 Nov 2026 10:00 CET (09:00Z) under 60 minutes: due 11:00 CET
    const created = at('2026-11-02T09:00:00.000Z');
    const first = applyPolicy(NO_SLA, policy('sla_a', 0), berlin, created, false);
    expect(first.sla_first_response_due_at?.toISOString()).toBe('2026-11-02T10:00:00.000Z');
    // at 10:30 CET the priority changes and a 240-minute policy applies: due 14:00 CET, not 14:30
    const second = applyPolicy(
      first,
      policy('sla_b', 1, { first_response_minutes: 240 }),
      berlin,
      created,
      false,
    );
    expect(second.sla_policy_id).toBe('sla_b');
    expect(second.sla_first_response_due_at?.toISOString()).toBe('2026-11-02T13:00:00.000Z');
    // resolution: 480 business minutes from creation, Tue 10:00 CET
    expect(second.sla_resolution_due_at?.toISOString()).toBe('2026-11-03T09:00:00.000Z');
    expect(second.sla_due_at?.toISOString()).toBe('2026-11-02T13:00:00.000Z');
  });

  it('first response meets its target once; resolution meets the other; reopening restarts the clock', () => {
    const created = at('2026-11-02T09:00:00.000Z');
    const s0 = applyPolicy(NO_SLA, policy('sla_a', 0), berlin, created, false);
    const s1 = firstResponse(s0, at('2026-11-02T09:20:00.000Z'), false)!;
    expect(s1.sla_first_response_at?.toISOString()).toBe('2026-11-02T09:20:00.000Z');
    expect(firstResponse(s1, at('2026-11-02T09:30:00.000Z'), false)).toBeNull();
    expect(s1.sla_due_at?.toISOString()).toBe('2026-11-03T09:00:00.000Z');
    const resolved = statusChange(
      s1,
      { resolved: false },
      { resolved: true },
      at('2026-11-02T12:00:00Z'),
      undefined,
      null,
    )!;
    expect(resolved.sla_due_at).toBeNull();
    expect(resolved.sla_check_at).toBeNull();
    // reopened Fri 6 Nov 16:00 CET (15:00Z): 480 business minutes end Mon 9 Nov 16:00 CET
    const reopened = statusChange(
      resolved,
      { resolved: true },
      { resolved: false },
      at('2026-11-06T15:00:00.000Z'),
      policy('sla_a', 0),
      berlin,
    )!;
    expect(reopened.sla_resolution_started_at?.toISOString()).toBe('2026-11-06T15:00:00.000Z');
    expect(reopened.sla_resolution_due_at?.toISOString()).toBe('2026-11-09T15:00:00.000Z');
    expect(reopened.sla_due_at?.toISOString()).toBe('2026-11-09T15:00:00.000Z');
  });

  it('a breach is recorded once, dated when it fell due, and leaves the check', () => {
    const created = at('2026-11-02T09:00:00.000Z');
    const s0 = applyPolicy(NO_SLA, policy('sla_a', 0), berlin, created, false);
    expect(breachesAt(s0, at('2026-11-02T09:59:59.999Z'), false)).toBeNull();
    // checked hours late (an outage): still the due time
    const b = breachesAt(s0, at('2026-11-02T15:00:00.000Z'), false)!;
    expect(b).toMatchObject({ firstResponse: true, resolution: false });
    expect(b.dueAt.toISOString()).toBe('2026-11-02T10:00:00.000Z');
    expect(b.next.sla_breached).toBe(true);
    expect(b.next.sla_check_at?.toISOString()).toBe('2026-11-03T09:00:00.000Z');
    expect(breachesAt(b.next, at('2026-11-02T15:00:00.000Z'), false)).toBeNull();
    expect(slaView(b.next)).toEqual({
      policy_id: 'sla_a',
      first_response_due_at: '2026-11-02T10:00:00.000Z',
      first_response_at: null,
      first_response_breached: true,
      resolution_due_at: '2026-11-03T09:00:00.000Z',
      resolution_breached: false,
    });
  });

  it('no policy: sla is null and nothing is listed as due or breached, but the first response is kept', () => {
    const created = at('2026-11-02T09:00:00.000Z');
    const s0 = applyPolicy(NO_SLA, undefined, null, created, false);
    expect(slaView(s0)).toBeNull();
    const s1 = firstResponse(s0, at('2026-11-02T09:05:00.000Z'), false)!;
    expect(s1.sla_due_at).toBeNull();
    const later = applyPolicy(s1, policy('sla_a', 0), berlin, created, false);
    expect(later.sla_first_response_at?.toISOString()).toBe('2026-11-02T09:05:00.000Z');
    expect(later.sla_due_at?.toISOString()).toBe('2026-11-03T09:00:00.000Z');
  });
});
