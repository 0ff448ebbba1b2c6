import type { Generated } from 'kysely';
import type { Timestamp } from './foundation';
import type { SlaColumns } from './sla';

export type ConversationStatus = 'open' | 'waiting' | 'resolved' | 'closed';
export type ConversationChannel = 'email' | 'widget' | 'whatsapp' | 'phone' | 'api';
export type ConversationPriority = 'low' | 'medium' | 'high' | 'urgent';
export type MessageSenderType = 'contact' | 'agent' | 'ai';
export type MessageSource = 'dashboard' | 'widget' | 'whatsapp' | 'email';
export type MessageContentType = 'text' | 'html' | 'markdown';
export type DeliveryStatus = 'queued' | 'sent' | 'failed' | 'skipped';

export interface ConversationsTable extends SlaColumns {
  id: string;
  tenant_id: string;
  contact_id: string | null;
  subject: string | null;
  status: Generated<ConversationStatus>;
  channel: ConversationChannel;
  priority: Generated<ConversationPriority>;
  assignee_user_id: string | null;
  assignee_team_id: string | null;
  tags: Generated<string[]>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MessagesTable {
  id: string;
  tenant_id: string;
  conversation_id: string;
  sender_type: MessageSenderType;
  sender_id: string | null;
  body: string;
  content_type: Generated<MessageContentType>;
  is_internal: Generated<boolean>;
  source: MessageSource;
  delivery_status: DeliveryStatus | null;
  delivery_error: string | null;
  created_at: Timestamp;
}

/** A transcript export; its subject is a conversation or (schema/0011_call_exports.sql) a call. */
export interface ConversationExportsTable {
  id: string;
  tenant_id: string;
  conversation_id: string | null;
  call_id: string | null;
  format: 'json' | 'text';
  status: 'completed' | 'failed';
  include_internal: boolean;
  message_count: number;
  content: string;
  created_by: string;
  created_at: Timestamp;
}

/** Tables of this area, merged into `Database` by ../schema.ts. */
export interface ConversationsTables {
  conversations: ConversationsTable;
  messages: MessagesTable;
  conversation_exports: ConversationExportsTable;
}
