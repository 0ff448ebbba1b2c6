import type { Generated } from 'kysely';
import type { Timestamp } from './foundation';

/** Tables of the help desk (schema/0027_helpdesk.sql), merged into `Database` by ../schema.ts. */
export interface TeamsTable {
  id: string;
  tenant_id: string;
  name: string;
  description: Generated<string>;
  routing: Generated<'manual' | 'round_robin' | 'balanced'>;
  /** in rotation order */
  member_ids: Generated<string[]>;
  /** the rotation state: the member picked last (read and written under the row's lock) */
  last_pick: Generated<string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SavedRepliesTable {
  id: string;
  tenant_id: string;
  title: string;
  body: string;
  shortcut: string | null;
  visibility: 'tenant' | 'personal';
  /** the author's user id (the session's `sub`) */
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type TicketFieldType = 'text' | 'number' | 'date' | 'checkbox' | 'dropdown' | 'multiselect';
export interface TicketFieldsTable {
  id: string;
  tenant_id: string;
  key: string;
  label: string;
  type: TicketFieldType;
  options: Generated<string[]>;
  required: Generated<boolean>;
  created_at: Timestamp;
}

export interface HelpdeskTables {
  teams: TeamsTable;
  saved_replies: SavedRepliesTable;
  ticket_fields: TicketFieldsTable;
}
