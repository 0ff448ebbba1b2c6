import type { Generated } from 'kysely';
import type { Json } from './foundation';

export interface IdempotencyKeysTable {
  tenant_id: string;
  credential: string;
  idempotency_key: string;
  fingerprint: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_headers: Json<Record<string, string>> | null;
  response_body: string | null;
  created_at: Generated<Date>;
  /** while in_progress: the end of the holder's lease; once done: when the record is dropped */
  expires_at: Date;
  /** the holder of an in_progress record (IdempotencyClaim.token) */
  lease_token: string | null;
}

export interface AuditLogTable {
  id: string;
  tenant_id: string;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  source_ip: string | null;
  metadata: Json<Record<string, unknown>>;
  created_at: Generated<Date>;
}

export interface IntegratorTables {
  idempotency_keys: IdempotencyKeysTable;
  audit_log: AuditLogTable;
}
