import type { Generated } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './foundation';

export interface WebhooksTable {
  id: string;
  tenant_id: string;
  url: string;
  /** catalog names, or the single literal `*` */
  events: string[];
  /** AES-GCM sealed signing secret (shared/crypto.ts); never the secret itself */
  secret_encrypted: string;
  is_active: Generated<boolean>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** soft delete: deliveries (and metering) outlive the subscription */
  deleted_at: NullableTimestamp;
  /** what the endpoint is for (<= 500 characters) */
  description: string | null;
  /** schema/0025: endpoint health (shared/webhooks/health.ts) */
  health_state: Generated<HealthState>;
  failing_since: NullableTimestamp;
  last_success_at: NullableTimestamp;
  disabled_at: NullableTimestamp;
  auto_recover: Generated<boolean>;
  next_probe_at: NullableTimestamp;
  probes_sent: Generated<number>;
  owner_mailed_at: NullableTimestamp;
  /** deliveries a second, 1-10000; null: none (shared/webhooks/pacing.ts) */
  rate_limit: number | null;
  pace_next_at: NullableTimestamp;
  /** the secret the last rotation replaced, signed with too until WEBHOOK_ROTATION_OVERLAP_S ends */
  previous_secret_encrypted: string | null;
  secret_rotated_at: NullableTimestamp;
}

export type HealthState = 'healthy' | 'failing' | 'disabled';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  tenant_id: string;
  webhook_id: string;
  event_id: string | null;
  event_type: string;
  /** the envelope's `data` */
  payload: Json<Record<string, unknown>>;
  /** the envelope's `timestamp` */
  event_created_at: Timestamp;
  status: Generated<DeliveryStatus>;
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  claimed_until: NullableTimestamp;
  claim_token: string | null;
  last_attempt_at: NullableTimestamp;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  redelivery_of: string | null;
  created_at: Generated<Date>;
  delivered_at: NullableTimestamp;
  /** schema/0032: a test delivery (an event's example, sent with `X-Webhook-Test: true`) */
  is_test: Generated<boolean>;
}

/** schema/0010_delivery_attempts.sql: one row per attempt of a delivery (the timeline). */
export interface WebhookDeliveryAttemptsTable {
  delivery_id: string;
  attempt: number;
  tenant_id: string;
  attempted_at: Date;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  /** schema/0013: what was sent and answered; null once cleared after WEBHOOK_ATTEMPT_RETENTION_DAYS */
  request_headers: Json<Record<string, string>> | null;
  request_body: string | null;
  response_headers: Json<Record<string, string>> | null;
  /** the first 4,096 bytes of the answer's body */
  response_body: string | null;
  response_body_truncated: boolean | null;
}

/** Tables of this area, merged into `Database` by ../schema.ts. */
export interface WebhooksTables {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
}
