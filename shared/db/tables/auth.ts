import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './foundation';

/** schema/0009_dashboard_auth.sql: dashboard sign-in (functions/auth). */
export interface DashboardSessionsTable {
  id: string;
  tenant_id: string;
  user_id: string;
  created_at: Generated<Date>;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
  revoked_reason: string | null;
}

export interface DashboardRefreshTokensTable {
  /** HMAC-SHA256(API_KEY_HASH_SECRET, token): the token itself is never stored */
  token_hash: string;
  session_id: string;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: Generated<Date>;
}

export type TenantUserTokenPurpose = 'invite' | 'password_reset';
export interface TenantUserTokensTable {
  token_hash: string;
  purpose: TenantUserTokenPurpose;
  tenant_id: string;
  user_id: string;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: Generated<Date>;
}

export interface AuthThrottleTable {
  key: string;
  failures: number;
  window_started_at: Timestamp;
  locked_until: NullableTimestamp;
}

export interface AuthTables {
  dashboard_sessions: DashboardSessionsTable;
  dashboard_refresh_tokens: DashboardRefreshTokensTable;
  tenant_user_tokens: TenantUserTokensTable;
  auth_throttle: AuthThrottleTable;
}
