import type { KeyedCase } from './types';

export const ticketCases: KeyedCase[] = [
  {
    operationId: 'createTicket',
    prepare: async ({ key }) => ({
      method: 'POST',
      path: '/api/v1/tickets',
      body: { subject: 'Answer with the work', priority: 'high' },
      apiKey: await key(['tickets:write']),
    }),
    effects: async ({ h, t }) =>
      Number(
        (
          await h.db
            .selectFrom('tickets')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('tenant_id', '=', t.id)
            .executeTakeFirstOrThrow()
        ).n,
      ),
  },
];
