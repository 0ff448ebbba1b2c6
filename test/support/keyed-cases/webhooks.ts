import { encryptSecret } from '../../../shared/crypto';
import { newId } from '../../../shared/ids';
import type { CaseContext, KeyedCase } from './types';

const SCOPES = ['webhooks:read', 'webhooks:write'];

/**
 * An active webhook written to the database directly (the API would resolve its host; this one is
 * never reached: deliveries to a loopback address are refused at send time), with `failed` failed
 * deliveries made a minute ago: its id and theirs.
 */
async function hookWithFailures({ h, t }: CaseContext, failed: number) {
  const id = newId('webhook');
  await h.db
    .insertInto('webhooks')
    .values({
      id,
      tenant_id: t.id,
      url: 'https://127.0.0.1/keyed-case',
      events: ['ticket.created'],
      secret_encrypted: await encryptSecret(h.config.WEBHOOK_ENCRYPTION_KEY, 'whsec_keyed_case'),
      description: null,
      // no probes or recovery of its own while the case waits out the lease: the count is the work's
      auto_recover: false,
    })
    .execute();
  const minuteAgo = new Date(Date.now() - 60_000);
  const deliveries = Array.from({ length: failed }, () => ({
    id: newId('delivery'),
    tenant_id: t.id,
    webhook_id: id,
    event_id: null,
    event_type: 'ticket.created',
    payload: JSON.stringify({ ticket: { id: 'tkt_keyed_case' } }),
    event_created_at: minuteAgo,
    status: 'failed' as const,
    attempts: 5,
    next_attempt_at: null,
    error: 'Connection refused',
    created_at: minuteAgo,
  }));
  await h.db.insertInto('webhook_deliveries').values(deliveries).execute();
  return { id, deliveries: deliveries.map((d) => d.id) };
}

/** How many deliveries the case's tenant has (a re-send is a new one). */
const deliveriesOf = async ({ h, t }: CaseContext) =>
  Number(
    (
      await h.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', t.id)
        .executeTakeFirstOrThrow()
    ).n,
  );

export const webhookCases: KeyedCase[] = [
  {
    operationId: 'createWebhook',
    prepare: async ({ key }) => ({
      method: 'POST',
      path: '/api/v1/webhooks',
      // an IP literal is not resolved: a public one passes the destination check offline
      body: { url: 'https://93.184.215.14/keyed-case', events: ['ticket.created'] },
      apiKey: await key(SCOPES),
    }),
    effects: async ({ h, t }) =>
      Number(
        (
          await h.db
            .selectFrom('webhooks')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('tenant_id', '=', t.id)
            .executeTakeFirstOrThrow()
        ).n,
      ),
  },
  {
    operationId: 'redeliverWebhookDelivery',
    prepare: async (ctx) => {
      const hook = await hookWithFailures(ctx, 1);
      return {
        method: 'POST',
        path: `/api/v1/webhooks/${hook.id}/deliveries/${hook.deliveries[0]}/redeliver`,
        apiKey: await ctx.key(SCOPES),
      };
    },
    effects: deliveriesOf,
  },
  {
    // at most one recover a minute per endpoint: a retry that ran again would be a 429
    operationId: 'recoverWebhook',
    prepare: async (ctx) => {
      const hook = await hookWithFailures(ctx, 2);
      return {
        method: 'POST',
        path: `/api/v1/webhooks/${hook.id}/recover`,
        body: { since: new Date(Date.now() - 3_600_000).toISOString() },
        apiKey: await ctx.key(SCOPES),
      };
    },
    effects: deliveriesOf,
  },
];
