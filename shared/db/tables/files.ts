import type { Timestamp } from './foundation';

/** Tables of this area (schema/0026_attachments.sql), merged into `Database` by ../schema.ts. */
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

export interface FilesTables {
  attachments: AttachmentsTable;
}
