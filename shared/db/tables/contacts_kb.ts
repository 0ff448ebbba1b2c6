import type { ColumnType } from 'kysely';
import type { Json, NullableTimestamp } from './foundation';

/** Tables of this area, merged into `Database` by ../schema.ts. SQL: schema/0004_contacts_kb.sql. */

type CreatedTs = ColumnType<Date, Date | string | undefined, Date | string>;
type Count = ColumnType<number, number | undefined, number>;

export type SyncProvider = 'helpdesk_a' | 'helpdesk_b';

export interface CompaniesTable {
  id: string;
  tenant_id: string;
  name: string;
  domain: string | null;
  industry: string | null;
  logo_url: string | null;
  notes: string | null;
  plan: string | null;
  size: string | null;
  sla_tier: string | null;
  website: string | null;
  /** live contacts whose company_id is this company (kept by functions/contacts) */
  contact_count: Count;
  /** kept by the conversations function */
  conversation_count: Count;
  monthly_spend: number | null;
  custom_attrs: Json<Record<string, unknown>>;
  tags: ColumnType<string[], string[] | undefined, string[]>;
  created_at: CreatedTs;
  updated_at: CreatedTs;
  deleted_at: NullableTimestamp;
}

export interface ContactsTable {
  id: string;
  tenant_id: string;
  external_id: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  role: string | null;
  locale: string | null;
  timezone: string | null;
  company_id: string | null;
  /** kept by the conversations function */
  conversation_count: Count;
  custom_attrs: Json<Record<string, unknown>>;
  tags: ColumnType<string[], string[] | undefined, string[]>;
  unsubscribed_from_emails: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedTs;
  updated_at: CreatedTs;
  deleted_at: NullableTimestamp;
  last_seen_at: NullableTimestamp;
  sync_provider: SyncProvider | null;
  sync_active: ColumnType<boolean, boolean | undefined, boolean>;
  mobile: string | null;
  company_name: string | null;
}

export interface ContactSyncConnectionsTable {
  tenant_id: string;
  provider: SyncProvider;
  base_url: string;
  token_sealed: string;
  created_at: CreatedTs;
  updated_at: CreatedTs;
}

export interface ContactSyncRunsTable {
  id: string;
  tenant_id: string;
  provider: SyncProvider;
  mode: 'full' | 'incremental';
  status: 'running' | 'succeeded' | 'failed';
  pages: Count;
  fetched: Count;
  created: Count;
  updated: Count;
  unchanged: Count;
  deactivated: Count;
  skipped: Count;
  error: string | null;
  triggered_by: string;
  started_at: CreatedTs;
  finished_at: NullableTimestamp;
}

export type KbProviderId = 'native' | 'itsm';

export interface KbArticlesTable {
  id: string;
  tenant_id: string;
  title: string;
  body: ColumnType<string, string | undefined, string>;
  status: 'draft' | 'published' | 'archived';
  provider_id: KbProviderId;
  url: string | null;
  tags: ColumnType<string[], string[] | undefined, string[]>;
  category: string | null;
  language: ColumnType<string, string | undefined, string>;
  destinations: ColumnType<KbProviderId[], KbProviderId[] | undefined, KbProviderId[]>;
  created_by: string | null;
  created_at: CreatedTs;
  updated_at: CreatedTs;
  published_at: NullableTimestamp;
}

export interface KbPublicationsTable {
  article_id: string;
  tenant_id: string;
  provider_id: KbProviderId;
  status: 'published' | 'failed';
  external_id: string | null;
  url: string | null;
  error: string | null;
  updated_at: CreatedTs;
}

export interface ContactsKbTables {
  companies: CompaniesTable;
  contacts: ContactsTable;
  contact_sync_connections: ContactSyncConnectionsTable;
  contact_sync_runs: ContactSyncRunsTable;
  kb_articles: KbArticlesTable;
  kb_publications: KbPublicationsTable;
}
