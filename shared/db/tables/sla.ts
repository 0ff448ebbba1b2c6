import type { Generated } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './foundation';

/** Tables of this area (schema/0028_sla.sql), merged into `Database` by ../schema.ts. */
export interface BusinessHoursTable {
  id: string;
  tenant_id: string;
  name: string;
  timezone: string;
  intervals: Json<{ day: number; start: string; end: string }[]>;
  holidays: Json<{ date: string; name: string }[]>;
  created_at: Generated<Date>;
  updated_at: Timestamp;
}

export interface SlaPoliciesTable {
  id: string;
  tenant_id: string;
  name: string;
  position: number;
  business_hours_id: string | null;
  conditions: Json<{ priorities?: string[]; channels?: string[]; tags?: string[] }>;
  first_response_minutes: number | null;
  resolution_minutes: number | null;
  created_at: Generated<Date>;
  updated_at: Timestamp;
}

/**
 * The SLA state every ticket and conversation row carries (shared/sla/state.ts decides it):
 * the policy that applies, each target's due time, the first response, the breaches, the
 * resolution clock's start, and the two times the lists and the breach check read.
 */
export interface SlaColumns {
  sla_policy_id: string | null;
  sla_first_response_due_at: NullableTimestamp;
  sla_first_response_at: NullableTimestamp;
  sla_first_response_breached: Generated<boolean>;
  sla_resolution_started_at: NullableTimestamp;
  sla_resolution_due_at: NullableTimestamp;
  sla_resolution_breached: Generated<boolean>;
  /** the earliest due time not yet met */
  sla_due_at: NullableTimestamp;
  /** the earliest due time not yet met nor breached: when the breach check looks next */
  sla_check_at: NullableTimestamp;
  sla_breached: Generated<boolean>;
}

export interface SlaTables {
  business_hours: BusinessHoursTable;
  sla_policies: SlaPoliciesTable;
}
