import type { Harness } from '../harness';
import type { CaseContext, KeyedCase } from './types';

/** The rows a tenant has in a table (what a case's work writes: a double run moves it). */
export async function tenantRows(
  h: Harness,
  table: 'tickets' | 'ticket_replies' | 'events' | 'conversations' | 'messages' | 'conversation_exports',
  tenantId: string,
): Promise<number> {
  const row = await h.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A ticket of the case's tenant, made through the API; its id. */
async function newTicket({ h }: CaseContext, apiKey: string): Promise<string> {
  const res = await h.request('POST', '/api/v1/tickets', {
    apiKey,
    body: { subject: 'A ticket to work on', priority: 'high' },
  });
  if (res.status !== 201) throw new Error(`ticket creation failed: ${res.status} ${res.text}`);
  return res.body.id as string;
}

export const ticketCases: KeyedCase[] = [
  {
    operationId: 'createTicket',
    prepare: async ({ key }) => ({
      method: 'POST',
      path: '/api/v1/tickets',
      body: { subject: 'Answer with the work', priority: 'high' },
      apiKey: await key(['tickets:write']),
    }),
    effects: ({ h, t }) => tenantRows(h, 'tickets', t.id),
  },
  {
    operationId: 'updateTicket',
    prepare: async (ctx) => {
      const apiKey = await ctx.key(['tickets:read', 'tickets:write']);
      return {
        method: 'PATCH',
        path: `/api/v1/tickets/${await newTicket(ctx, apiKey)}`,
        body: { priority: 'urgent', tags: ['crash'] },
        apiKey,
      };
    },
    // ticket.updated: a second run finds nothing to change, but its answer is the ticket as it is then
    effects: ({ h, t }) => tenantRows(h, 'events', t.id),
  },
  {
    operationId: 'createTicketReply',
    prepare: async (ctx) => {
      const apiKey = await ctx.key(['tickets:read', 'tickets:write']);
      return {
        method: 'POST',
        path: `/api/v1/tickets/${await newTicket(ctx, apiKey)}/replies`,
        body: { body: 'We are on it.' },
        apiKey,
      };
    },
    effects: async ({ h, t }) =>
      (await tenantRows(h, 'ticket_replies', t.id)) + (await tenantRows(h, 'events', t.id)),
  },
];
