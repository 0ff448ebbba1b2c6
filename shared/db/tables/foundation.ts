import type { ColumnType, Generated } from 'kysely';

/** Timestamps come back as Date and accept Date or ISO strings on write. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;
/** jsonb: written as JSON text or object, read as the parsed value. */
export type Json<T = unknown> = ColumnType<T, T | string, T | string>;

export type TenantPlan = 'free' | 'starter' | 'pro' | 'enterprise';
export type TenantEnvironment = 'production' | 'staging' | 'sandbox';

export interface TenantsTable {
  id: string;
  name: string;
  plan: TenantPlan;
  environment: TenantEnvironment;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  key_prefix: string;
  /** HMAC-SHA256(API_KEY_HASH_SECRET, full key), hex. The key itself is never stored. */
  key_hash: string;
  environment: 'live' | 'test';
  scopes: string[];
  created_by: string;
  created_at: Generated<Date>;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  /** the key this one replaced by a rotation (same name, new secret); null for a created key */
  rotated_from: Generated<string | null>;
}

/** The event outbox: written in the action's transaction, fanned out to webhooks afterwards. */
export interface EventsTable {
  id: string;
  tenant_id: string;
  event_type: string;
  /** the envelope's `data` object */
  payload: Json<Record<string, unknown>>;
  created_at: Generated<Date>;
  dispatched_at: Date | null;
}

/**
 * Live counts per (tenant, list, filter, value) of the calls, conversations, contacts and companies
 * (trigger-maintained, schema/0019_list_filter_counts.sql): the `total` of an unfiltered page
 * (field and value '*') or of a page filtered by one counted filter. Soft-deleted contacts and
 * companies count under `<list>.deleted`.
 */
export interface ListFilterCountsTable {
  tenant_id: string;
  list: string;
  field: string;
  value: string;
  n: Generated<string>;
}

export interface FoundationTables {
  tenants: TenantsTable;
  list_filter_counts: ListFilterCountsTable;
  api_keys: ApiKeysTable;
  events: EventsTable;
  schema_migrations: { version: string; applied_at: Generated<Date> };
}
