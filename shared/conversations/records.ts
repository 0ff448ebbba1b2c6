import type { Selectable } from 'kysely';
import * as z from 'zod';
import type { ConversationsTable } from '../db/tables/conversations';
import { iso } from '../events/emit';
import { SlaSchema } from '../events/views';
import { slaView } from '../sla/state';

/**
 * A conversation as every read returns it: the conversations function's reads and the search
 * hits (functions/search) show one record, so it is written once here.
 */

/** The complete conversation status set; `open`/`waiting` are the open side, `resolved`/`closed` the closed side. */
export const CONVERSATION_STATUSES = ['open', 'waiting', 'resolved', 'closed'] as const;
export const CONVERSATION_CHANNELS = ['email', 'widget', 'whatsapp', 'phone', 'api'] as const;
export const CONVERSATION_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;

export const ConversationSchema = z.object({
  id: z.string(),
  tenant_id: z.string(),
  contact_id: z.string().nullable(),
  subject: z.string().nullable(),
  status: z.enum(CONVERSATION_STATUSES),
  channel: z.enum(CONVERSATION_CHANNELS),
  priority: z.enum(CONVERSATION_PRIORITIES),
  assignee_user_id: z.string().nullable(),
  assignee_team_id: z.string().nullable(),
  tags: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
  sla: SlaSchema,
});

export type ConversationRow = Selectable<ConversationsTable>;

export const conversationView = (r: ConversationRow) => ({
  id: r.id,
  tenant_id: r.tenant_id,
  contact_id: r.contact_id,
  subject: r.subject,
  status: r.status,
  channel: r.channel,
  priority: r.priority,
  assignee_user_id: r.assignee_user_id,
  assignee_team_id: r.assignee_team_id,
  tags: r.tags,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
  sla: slaView(r),
});
