// The keyed operations of the dashboard surface (a session's Authorization: Bearer), for
// test/integration/idempotency-answer-with-work.test.ts and idempotency-dashboard.test.ts: the
// Idempotency-Key takes the same rules there as with an API key.
import { sql } from 'kysely';
import { syncKey } from '../../../functions/contacts/sync/engine';
import { encryptSecret } from '../../../shared/crypto';
import { newId } from '../../../shared/ids';
import type { Harness } from '../harness';
import type { CaseContext, KeyedCase, KeyedRequest } from './types';

/** How many rows of `table` the tenant has (every table counted here has a tenant_id). */
export async function rowsOf(h: Harness, table: string, tenantId: string): Promise<number> {
  const found = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM ${sql.table(table)} WHERE tenant_id = ${tenantId}`.execute(h.db);
  return Number(found.rows[0]?.n ?? 0);
}

/** The tenant's audit entries of one action (a write that ran twice records two). */
async function auditsOf(h: Harness, tenantId: string, action: string): Promise<number> {
  const found = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM audit_log WHERE tenant_id = ${tenantId} AND action = ${action}`.execute(
    h.db,
  );
  return Number(found.rows[0]?.n ?? 0);
}

/** A request of the tenant's admin session. */
const asAdmin = (ctx: CaseContext, req: Omit<KeyedRequest, 'bearer'>): KeyedRequest => ({
  ...req,
  bearer: ctx.t.adminToken,
});

/** Something made through the API by the tenant's admin, for a case to work on: its id. */
async function made(ctx: CaseContext, path: string, body: unknown): Promise<string> {
  const res = await ctx.h.request('POST', path, { bearer: ctx.t.adminToken, body });
  if (res.status !== 201) throw new Error(`POST ${path} failed: ${res.status} ${res.text}`);
  return res.body.id as string;
}

const HOURS = {
  name: 'Office',
  timezone: 'Europe/Berlin',
  intervals: [{ day: 1, start: '09:00', end: '17:00' }],
};

/** A webhook written to the database directly (never reached: no delivery is due here). */
async function storedHook({ h, t }: CaseContext): Promise<string> {
  const id = newId('webhook');
  await h.db
    .insertInto('webhooks')
    .values({
      id,
      tenant_id: t.id,
      url: 'https://93.184.215.14/keyed-case',
      events: ['ticket.created'],
      secret_encrypted: await encryptSecret(h.config.WEBHOOK_ENCRYPTION_KEY, 'whsec_keyed_case'),
      description: null,
      auto_recover: false,
    })
    .execute();
  return id;
}

/** A conversation of the tenant made by its admin: its id. */
const conversation = (ctx: CaseContext) =>
  made(ctx, '/api/v2/conversations', { subject: 'A conversation to work on', channel: 'email' });

export const dashboardCases: KeyedCase[] = [
  // ---- API keys: the answer carries the key's secret
  {
    operationId: 'createApiKey',
    prepare: async (ctx) =>
      asAdmin(ctx, {
        method: 'POST',
        path: '/api/v1/api-keys',
        body: { name: 'keyed', scopes: ['tickets:read'] },
      }),
    effects: ({ h, t }) => rowsOf(h, 'api_keys', t.id),
  },
  {
    operationId: 'rotateApiKey',
    prepare: async (ctx) => {
      const res = await ctx.h.request('POST', '/api/v1/api-keys', {
        bearer: ctx.t.adminToken,
        body: { name: 'to rotate', scopes: ['tickets:read'] },
      });
      return asAdmin(ctx, { method: 'POST', path: `/api/v1/api-keys/${res.body.id}/rotate` });
    },
    effects: ({ h, t }) => rowsOf(h, 'api_keys', t.id),
  },
  {
    operationId: 'revokeApiKey',
    prepare: async (ctx) => {
      const res = await ctx.h.request('POST', '/api/v1/api-keys', {
        bearer: ctx.t.adminToken,
        body: { name: 'to revoke', scopes: ['tickets:read'] },
      });
      return asAdmin(ctx, { method: 'POST', path: `/api/v1/api-keys/${res.body.id}/revoke` });
    },
    effects: ({ h, t }) => auditsOf(h, t.id, 'api_key.revoked'),
  },
  // ---- tenants (a super_admin's); the tenant made is counted by its name
  {
    operationId: 'createTenant',
    prepare: async (ctx) => ({
      method: 'POST',
      path: '/api/v1/tenants',
      body: {
        name: `Keyed ${ctx.t.id}`,
        plan: 'pro',
        environment: 'sandbox',
        admin_email: `first-admin-${ctx.t.id}@example.com`.toLowerCase(),
      },
      bearer: await ctx.h.superToken(),
    }),
    effects: async ({ h, t }) => {
      const found = await sql<{ n: string }>`
        SELECT count(*)::text AS n FROM tenants WHERE name = ${`Keyed ${t.id}`}`.execute(h.db);
      return Number(found.rows[0]?.n ?? 0);
    },
  },
  // ---- webhooks v2
  {
    operationId: 'updateWebhook',
    prepare: async (ctx) =>
      asAdmin(ctx, {
        method: 'PATCH',
        path: `/api/v2/webhooks/${await storedHook(ctx)}`,
        body: { description: 'keyed', rate_limit: 5 },
      }),
    effects: ({ h, t }) => auditsOf(h, t.id, 'webhook.updated'),
  },
  {
    operationId: 'rotateWebhookSecret',
    prepare: async (ctx) =>
      asAdmin(ctx, { method: 'POST', path: `/api/v2/webhooks/${await storedHook(ctx)}/rotate-secret` }),
    effects: ({ h, t }) => auditsOf(h, t.id, 'webhook.secret_rotated'),
  },
  {
    operationId: 'sendWebhookTestEvent',
    prepare: async (ctx) =>
      asAdmin(ctx, {
        method: 'POST',
        path: `/api/v2/webhooks/${await storedHook(ctx)}/test`,
        body: { event_type: 'ticket.created' },
      }),
    effects: ({ h, t }) => rowsOf(h, 'webhook_deliveries', t.id),
  },
  // ---- conversations v2 (the v1 handlers, on the dashboard's paths)
  {
    operationId: 'createConversationV2',
    prepare: async (ctx) =>
      asAdmin(ctx, {
        method: 'POST',
        path: '/api/v2/conversations',
        body: { subject: 'Answer with the work', channel: 'email' },
      }),
    effects: async ({ h, t }) => (await rowsOf(h, 'conversations', t.id)) + (await rowsOf(h, 'events', t.id)),
  },
  {
    operationId: 'updateConversationV2',
    prepare: async (ctx) =>
      asAdmin(ctx, {
        method: 'PATCH',
        path: `/api/v2/conversations/${await conversation(ctx)}`,
        body: { status: 'resolved', priority: 'urgent' },
      }),
    effects: ({ h, t }) => rowsOf(h, 'events', t.id),
  },
  {
    operationId: 'assignConversationV2',
    prepare: async (ctx) => {
      const team = await made(ctx, '/api/v2/teams', { name: 'Keyed team' });
      return asAdmin(ctx, {
        method: 'POST',
        path: `/api/v2/conversations/${await conversation(ctx)}/assign`,
        body: { assignee_team_id: team },
      });
    },
    effects: ({ h, t }) => rowsOf(h, 'events', t.id),
  },
  {
    operationId: 'createMessageV2',
    prepare: async (ctx) =>
      asAdmin(ctx, {
        method: 'POST',
        path: `/api/v2/conversations/${await conversation(ctx)}/messages`,
        body: { body: 'Answer with the work' },
      }),
    effects: async ({ h, t }) => (await rowsOf(h, 'messages', t.id)) + (await rowsOf(h, 'events', t.id)),
  },
  {
    operationId: 'createConversationExportV2',
    prepare: async (ctx) =>
      asAdmin(ctx, {
        method: 'POST',
        path: `/api/v2/conversations/${await conversation(ctx)}/export`,
        body: { format: 'text', include_internal: false },
      }),
    effects: ({ h, t }) => rowsOf(h, 'conversation_exports', t.id),
  },
  // ---- contacts and companies
  {
    operationId: 'createContact',
    prepare: async (ctx) =>
      asAdmin(ctx, {
        method: 'POST',
        path: '/api/v2/contacts',
        body: { first_name: 'Keyed', email: 'keyed@example.com' },
      }),
    effects: async ({ h, t }) => (await rowsOf(h, 'contacts', t.id)) + (await rowsOf(h, 'events', t.id)),
  },
  {
    operationId: 'updateContact',
    prepare: async (ctx) => {
      const id = await made(ctx, '/api/v2/contacts', { first_name: 'Before' });
      return asAdmin(ctx, { method: 'PATCH', path: `/api/v2/contacts/${id}`, body: { first_name: 'After' } });
    },
    effects: ({ h, t }) => rowsOf(h, 'events', t.id),
  },
  {
    operationId: 'restoreContact',
    prepare: async (ctx) => {
      const id = await made(ctx, '/api/v2/contacts', { first_name: 'Gone' });
      await ctx.h.request('DELETE', `/api/v2/contacts/${id}`, { bearer: ctx.t.adminToken });
      return asAdmin(ctx, { method: 'POST', path: `/api/v2/contacts/${id}/restore` });
    },
    effects: ({ h, t }) => rowsOf(h, 'events', t.id),
  },
  {
    operationId: 'createCompany',
    prepare: async (ctx) =>
      asAdmin(ctx, { method: 'POST', path: '/api/v2/companies', body: { name: 'Keyed Ltd' } }),
    effects: ({ h, t }) => rowsOf(h, 'companies', t.id),
  },
  {
    operationId: 'updateCompany',
    // no event and no audit: the count stays, and asks that the answer commit with the write
    prepare: async (ctx) => {
      const id = await made(ctx, '/api/v2/companies', { name: 'Before Ltd' });
      return asAdmin(ctx, { method: 'PATCH', path: `/api/v2/companies/${id}`, body: { name: 'After Ltd' } });
    },
    effects: ({ h, t }) => rowsOf(h, 'companies', t.id),
  },
  {
    operationId: 'restoreCompany',
    prepare: async (ctx) => {
      const id = await made(ctx, '/api/v2/companies', { name: 'Gone Ltd' });
      await ctx.h.request('DELETE', `/api/v2/companies/${id}`, { bearer: ctx.t.adminToken });
      return asAdmin(ctx, { method: 'POST', path: `/api/v2/companies/${id}/restore` });
    },
    effects: ({ h, t }) => rowsOf(h, 'companies', t.id),
  },
  {
    // the run reads its provider (a closed port here: the run fails, 201 with status `failed`)
    // outside the database, so its answer commits after it (no `effects`: see functions/contacts)
    operationId: 'startSyncRun',
    prepare: async (ctx) => {
      await ctx.h.db
        .insertInto('contact_sync_connections')
        .values({
          tenant_id: ctx.t.id,
          provider: 'helpdesk_a',
          base_url: 'http://127.0.0.1:9',
          token_sealed: await encryptSecret(syncKey(ctx.h.config), 'keyed-case-token'),
        })
        .execute();
      return asAdmin(ctx, {
        method: 'POST',
        path: '/api/sync/contacts/runs',
        body: { provider: 'helpdesk_a', mode: 'full' },
      });
    },
  },
  // ---- knowledge base
  {
    operationId: 'createArticle',
    prepare: async (ctx) =>
      asAdmin(ctx, {
        method: 'POST',
        path: '/api/kb/create-v2',
        body: { title: 'Keyed', body: 'Text', destinations: ['native'], status: 'draft' },
      }),
    effects: ({ h, t }) => rowsOf(h, 'kb_articles', t.id),
  },
  {
    operationId: 'updateArticle',
    // a draft's edit: no event; the count stays, and asks that the answer commit with the edit
    prepare: async (ctx) => {
      const id = await made(ctx, '/api/kb/create-v2', {
        title: 'Before',
        destinations: ['native'],
        status: 'draft',
      });
      return asAdmin(ctx, { method: 'PATCH', path: `/api/v2/kb/articles/${id}`, body: { title: 'After' } });
    },
    effects: ({ h, t }) => rowsOf(h, 'kb_articles', t.id),
  },
  // ---- SLA
  {
    operationId: 'createBusinessHours',
    prepare: async (ctx) => asAdmin(ctx, { method: 'POST', path: '/api/v2/business-hours', body: HOURS }),
    effects: ({ h, t }) => rowsOf(h, 'business_hours', t.id),
  },
  {
    operationId: 'updateBusinessHours',
    prepare: async (ctx) => {
      const id = await made(ctx, '/api/v2/business-hours', HOURS);
      return asAdmin(ctx, { method: 'PATCH', path: `/api/v2/business-hours/${id}`, body: { name: 'Late' } });
    },
    effects: ({ h, t }) => auditsOf(h, t.id, 'business_hours.updated'),
  },
  {
    operationId: 'createSlaPolicy',
    prepare: async (ctx) =>
      asAdmin(ctx, {
        method: 'POST',
        path: '/api/v2/sla-policies',
        body: { name: 'Keyed', first_response_minutes: 60 },
      }),
    effects: ({ h, t }) => rowsOf(h, 'sla_policies', t.id),
  },
  {
    operationId: 'updateSlaPolicy',
    prepare: async (ctx) => {
      const id = await made(ctx, '/api/v2/sla-policies', { name: 'Before' });
      return asAdmin(ctx, { method: 'PATCH', path: `/api/v2/sla-policies/${id}`, body: { name: 'After' } });
    },
    effects: ({ h, t }) => auditsOf(h, t.id, 'sla_policy.updated'),
  },
  // ---- help desk
  {
    operationId: 'createTeam',
    prepare: async (ctx) => asAdmin(ctx, { method: 'POST', path: '/api/v2/teams', body: { name: 'Keyed' } }),
    effects: ({ h, t }) => rowsOf(h, 'teams', t.id),
  },
  {
    operationId: 'updateTeam',
    prepare: async (ctx) => {
      const id = await made(ctx, '/api/v2/teams', { name: 'Before' });
      return asAdmin(ctx, { method: 'PATCH', path: `/api/v2/teams/${id}`, body: { name: 'After' } });
    },
    effects: ({ h, t }) => auditsOf(h, t.id, 'team.updated'),
  },
  {
    operationId: 'createSavedReply',
    prepare: async (ctx) =>
      asAdmin(ctx, {
        method: 'POST',
        path: '/api/v2/saved-replies',
        body: { title: 'Keyed', body: 'Hello' },
      }),
    effects: ({ h, t }) => rowsOf(h, 'saved_replies', t.id),
  },
  {
    operationId: 'updateSavedReply',
    prepare: async (ctx) => {
      const id = await made(ctx, '/api/v2/saved-replies', { title: 'Before', body: 'Hello' });
      return asAdmin(ctx, { method: 'PATCH', path: `/api/v2/saved-replies/${id}`, body: { title: 'After' } });
    },
    effects: ({ h, t }) => auditsOf(h, t.id, 'saved_reply.updated'),
  },
  {
    operationId: 'createTicketField',
    prepare: async (ctx) =>
      asAdmin(ctx, {
        method: 'POST',
        path: '/api/v2/ticket-fields',
        body: { key: 'keyed', label: 'Keyed', type: 'text' },
      }),
    effects: ({ h, t }) => rowsOf(h, 'ticket_fields', t.id),
  },
  {
    operationId: 'updateTicketField',
    prepare: async (ctx) => {
      const id = await made(ctx, '/api/v2/ticket-fields', { key: 'before', label: 'Before', type: 'text' });
      return asAdmin(ctx, { method: 'PATCH', path: `/api/v2/ticket-fields/${id}`, body: { label: 'After' } });
    },
    effects: ({ h, t }) => auditsOf(h, t.id, 'ticket_field.updated'),
  },
];
