import type { Generated } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './foundation';

/** Tables of the platform area (schema/0006_platform.sql), merged into `Database` by ../schema.ts. */
export interface UsageRecordsTable {
  id: string;
  tenant_id: string;
  kind: Generated<string>;
  quantity: Generated<number>;
  method: string | null;
  endpoint: string | null;
  status: number | null;
  api_key_id: string | null;
  actor: string | null;
  created_at: Timestamp;
}

export interface UsageReportsTable {
  tenant_id: string;
  period: string;
  event_id: string;
  totals: Json<Record<string, unknown>>;
  created_at: Generated<Date>;
}

export interface TenantSettingsTable {
  tenant_id: string;
  section: string;
  settings: Json<Record<string, unknown>>;
  /** field -> AES-GCM sealed value */
  secrets: Json<Record<string, string>>;
  updated_at: Timestamp;
}

export interface PaymentMethod {
  type: 'card';
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

export interface BillingAccountsTable {
  tenant_id: string;
  billing_email: string | null;
  payment_method: Json<PaymentMethod | null>;
  billing_address: Json<Record<string, string> | null>;
  tax_id: string | null;
  updated_at: Timestamp;
}

export interface EndUsersTable {
  id: string;
  tenant_id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  created_at: Generated<Date>;
}

export interface EndUserMagicLinksTable {
  token_hash: string;
  tenant_id: string;
  end_user_id: string;
  expires_at: Date | string;
  used_at: NullableTimestamp;
  created_at: Generated<Date>;
}

export interface TenantUsersTable {
  id: string;
  tenant_id: string;
  email: string;
  name: string | null;
  role: 'agent' | 'tenant_admin';
  created_at: Generated<Date>;
  updated_at: Timestamp;
  /** schema/0009: set when an invite is accepted (shared/auth/password.ts format); never leaves the database */
  password_hash: Generated<string | null>;
  disabled_at: NullableTimestamp;
}

export type ExportResource = 'tickets' | 'calls' | 'contacts' | 'conversations' | 'usage';
export interface ExportJobsTable {
  id: string;
  tenant_id: string;
  resource: ExportResource;
  format: 'csv' | 'json';
  filters: Json<Record<string, unknown>>;
  status: 'pending' | 'running' | 'completed' | 'failed';
  row_count: number | null;
  content: string | null;
  error: string | null;
  created_by: string;
  created_at: Generated<Date>;
  completed_at: NullableTimestamp;
}

export interface PlatformTables {
  usage_records: UsageRecordsTable;
  usage_reports: UsageReportsTable;
  tenant_settings: TenantSettingsTable;
  billing_accounts: BillingAccountsTable;
  end_users: EndUsersTable;
  end_user_magic_links: EndUserMagicLinksTable;
  tenant_users: TenantUsersTable;
  export_jobs: ExportJobsTable;
}
