import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './foundation';
import type { SlaColumns } from './sla';

/** Tables of this area (schema/0002_tickets_calls.sql), merged into `Database` by ../schema.ts. */
export interface TicketsTable extends SlaColumns {
  id: string;
  tenant_id: string;
  subject: string;
  description: Generated<string>;
  status: Generated<string>;
  priority: Generated<string>;
  type: Generated<string>;
  source: Generated<string>;
  requester_id: string | null;
  requester_name: string | null;
  requester_email: string | null;
  assignee_id: string | null;
  tags: Generated<string[]>;
  call_id: string | null;
  reply_count: Generated<number>;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  resolved_at: NullableTimestamp;
  closed_at: NullableTimestamp;
  /** schema/0027: the team it is assigned to, and its custom field values keyed by ticket field key */
  assignee_team_id: Generated<string | null>;
  custom_fields: ColumnType<Record<string, unknown>, Record<string, unknown> | string | undefined, string>;
}

export interface TicketRepliesTable {
  id: string;
  tenant_id: string;
  ticket_id: string;
  body: string;
  author_type: 'agent' | 'api' | 'requester' | 'system';
  author_id: string | null;
  is_public: Generated<boolean>;
  created_at: Timestamp;
}

export interface CallsTable {
  id: string;
  tenant_id: string;
  channel: Generated<string>;
  direction: Generated<string>;
  caller_phone: string | null;
  telephony_call_sid: string | null;
  media_room_id: string | null;
  started_at: Timestamp;
  ended_at: NullableTimestamp;
  duration_seconds: number | null;
  outcome: string | null;
  recording_url: string | null;
  ticket_id: string | null;
  detected_language: string | null;
  summary: string | null;
  escalated_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CallEscalationsTable {
  id: string;
  tenant_id: string;
  call_id: string;
  result: 'transferred' | 'failed';
  reason: string;
  route: string | null;
  destination: string | null;
  failure: string | null;
  emitted: boolean;
  escalated_at: Timestamp;
  created_at: Generated<Date>;
}

/** Live ticket count per tenant (trigger-maintained): the unfiltered list's `total`. */
export interface TicketCountsTable {
  tenant_id: string;
  n: Generated<string>;
}

/**
 * Live ticket count per (tenant, filter, value) for status, priority, type, requester, assignee and tag
 * (trigger-maintained): the `total` of a page filtered by one of them.
 */
export interface TicketFilterCountsTable {
  tenant_id: string;
  /** a counted filter, or a pair of them (`<a>+<b>`, schema/0035_pair_counts.sql) */
  field: string;
  value: string;
  n: Generated<string>;
}

export interface TicketsCallsTables {
  tickets: TicketsTable;
  ticket_counts: TicketCountsTable;
  ticket_filter_counts: TicketFilterCountsTable;
  ticket_replies: TicketRepliesTable;
  calls: CallsTable;
  call_escalations: CallEscalationsTable;
}
