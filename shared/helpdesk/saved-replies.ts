import type { Context } from 'hono';
import type { AppEnv } from '../context/app-env';
import type { Executor } from '../db/schema';
import { validationError } from '../http/errors';
import { type PlaceholderValues, renderPlaceholders } from './placeholders';

/** The signed-in user's id, or null for a credential that is no user (an API key): who may use a personal reply. */
export function userIdOf(c: Context<AppEnv>): string | null {
  const auth = c.get('auth');
  return auth.kind === 'dashboard' ? auth.userId : null;
}

/** What a saved reply renders against: the record it is sent on, and who sends it. */
export interface ReplyTarget {
  userId: string | null;
  conversation?: { id: string; contact_id: string | null };
  ticket?: { id: string; subject: string; requester_name: string | null; requester_email: string | null };
}

const unknownSavedReply = () =>
  validationError([{ loc: ['body', 'saved_reply_id'], msg: 'Saved reply not found', type: 'value_error' }]);

/**
 * The text a `saved_reply_id` sends: the saved reply's body with its placeholders rendered for
 * `target` (a missing value renders as empty text). Another tenant's reply, an unknown one, or
 * someone else's personal one is a 422 at `saved_reply_id`, as is one that renders as no text.
 */
export async function renderSavedReply(
  db: Executor,
  tenantId: string,
  savedReplyId: string,
  target: ReplyTarget,
): Promise<string> {
  const reply = await db
    .selectFrom('saved_replies')
    .select(['body', 'visibility', 'created_by'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', savedReplyId)
    .executeTakeFirst();
  if (!reply || (reply.visibility === 'personal' && reply.created_by !== target.userId))
    throw unknownSavedReply();
  const values: PlaceholderValues = {};
  if (target.userId) {
    const agent = await db
      .selectFrom('tenant_users')
      .select('name')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', target.userId)
      .executeTakeFirst();
    values['agent.name'] = agent?.name;
  }
  if (target.conversation) {
    values['conversation.id'] = target.conversation.id;
    const contactId = target.conversation.contact_id;
    const contact = contactId
      ? await db
          .selectFrom('contacts')
          .select(['first_name', 'last_name', 'email'])
          .where('tenant_id', '=', tenantId)
          .where('id', '=', contactId)
          .executeTakeFirst()
      : undefined;
    if (contact) {
      values['contact.first_name'] = contact.first_name;
      values['contact.last_name'] = contact.last_name;
      values['contact.name'] = [contact.first_name, contact.last_name].filter(Boolean).join(' ');
      values['contact.email'] = contact.email;
    }
  }
  if (target.ticket) {
    const t = target.ticket;
    values['ticket.id'] = t.id;
    values['ticket.subject'] = t.subject;
    // a ticket's contact is its requester: the name as given, split at its first space
    const name = t.requester_name?.trim() ?? '';
    const space = name.indexOf(' ');
    values['contact.name'] = name;
    values['contact.first_name'] = space < 0 ? name : name.slice(0, space);
    values['contact.last_name'] = space < 0 ? '' : name.slice(space + 1).trim();
    values['contact.email'] = t.requester_email;
  }
  const text = renderPlaceholders(reply.body, values).trim();
  if (text === '')
    throw validationError([
      { loc: ['body', 'saved_reply_id'], msg: 'The saved reply renders as empty text', type: 'value_error' },
    ]);
  return text;
}
