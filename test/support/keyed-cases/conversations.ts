import { addTeams } from '../people';
import { tenantRows } from './tickets';
import type { CaseContext, KeyedCase } from './types';

const WRITE = ['conversations:read', 'conversations:write'];

/** A conversation of the case's tenant, made through the API; its id. */
async function newConversation({ h }: CaseContext, apiKey: string): Promise<string> {
  const res = await h.request('POST', '/api/v1/conversations', {
    apiKey,
    body: { subject: 'A conversation to work on', channel: 'email' },
  });
  if (res.status !== 201) throw new Error(`conversation creation failed: ${res.status} ${res.text}`);
  return res.body.id as string;
}

/** a conversation case on `/api/v1/conversations/{id}<suffix>` */
const onConversation =
  (method: 'POST' | 'PATCH', suffix: string, body: unknown, scopes = WRITE): KeyedCase['prepare'] =>
  async (ctx) => {
    const apiKey = await ctx.key(scopes);
    const id = await newConversation(ctx, apiKey);
    return { method, path: `/api/v1/conversations/${id}${suffix}`, body, apiKey };
  };

export const conversationCases: KeyedCase[] = [
  {
    operationId: 'createConversationV1',
    prepare: async ({ key }) => ({
      method: 'POST',
      path: '/api/v1/conversations',
      body: { subject: 'Answer with the work', priority: 'high', tags: ['crash'] },
      apiKey: await key(WRITE),
    }),
    effects: async ({ h, t }) =>
      (await tenantRows(h, 'conversations', t.id)) + (await tenantRows(h, 'events', t.id)),
  },
  {
    operationId: 'updateConversationV1',
    // conversation.resolved once: a second run finds it resolved and changes nothing
    prepare: onConversation('PATCH', '', { status: 'resolved', priority: 'urgent' }),
    effects: ({ h, t }) => tenantRows(h, 'events', t.id),
  },
  {
    operationId: 'assignConversationV1',
    // a team of the tenant (unknown teams are refused), routing `manual`: no member is picked
    prepare: async (ctx) => {
      await addTeams(ctx.h, ctx.t.id, ['team_crash']);
      return onConversation('POST', '/assign', { assignee_team_id: 'team_crash' })(ctx);
    },
    effects: ({ h, t }) => tenantRows(h, 'events', t.id),
  },
  {
    operationId: 'createMessageV1',
    prepare: onConversation('POST', '/messages', { body: 'Answer with the work' }),
    effects: async ({ h, t }) =>
      (await tenantRows(h, 'messages', t.id)) + (await tenantRows(h, 'events', t.id)),
  },
  {
    operationId: 'createConversationExportV1',
    prepare: onConversation('POST', '/export', { format: 'text', include_internal: false }, [
      ...WRITE,
      'conversations:export',
    ]),
    effects: ({ h, t }) => tenantRows(h, 'conversation_exports', t.id),
  },
  {
    operationId: 'createVoiceWidgetToken',
    // no rows: the work is the token, whose session id and jti are new on every run
    prepare: async ({ key }) => ({
      method: 'POST',
      path: '/api/v1/voice-widget/token',
      body: { ttl_seconds: 120, visitor_id: 'visitor-crash' },
      apiKey: await key(['config:write', 'calls:write']),
    }),
  },
];
