import type { Timestamp } from './foundation';

/** Tables of this area (schema/0026_attachments.sql, 0037_storage_usage.sql), merged into `Database` by ../schema.ts. */
export interface AttachmentsTable {
  id: string;
  tenant_id: string;
  owner_type: 'ticket' | 'conversation' | 'call';
  owner_id: string;
  attached_to: string | null;
  filename: string;
  content_type: string;
  /** bigint: read back as a string by pg, a number by PGlite (attachmentView normalises it) */
  size: number | string;
  sha256: string;
  storage_key: string;
  created_by: string | null;
  created_at: Timestamp;
}

/** The bytes a tenant's files take, kept by triggers on attachments (schema/0037_storage_usage.sql). */
export interface StorageUsageTable {
  tenant_id: string;
  /** bigint: a string from pg, a number from PGlite */
  bytes: number | string;
}

export interface FilesTables {
  attachments: AttachmentsTable;
  storage_usage: StorageUsageTable;
}
