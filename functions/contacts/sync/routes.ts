import { Hono } from 'hono';
import type { Selectable } from 'kysely';
import { actorOf, roleGuard, tenantOf } from '../../../shared/auth/credential';
import type { AppEnv } from '../../../shared/context/app-env';
import { encryptSecret } from '../../../shared/crypto';
import { pageWithTotal } from '../../../shared/db/paging';
import type {
  ContactSyncConnectionsTable,
  ContactSyncRunsTable,
} from '../../../shared/db/tables/contacts_kb';
import { iso } from '../../../shared/events/emit';
import { notFound, validationError } from '../../../shared/http/errors';
import { pageEnvelope } from '../../../shared/http/pagination';
import { validate } from '../../../shared/http/validation';
import { outboundPortOf } from '../../../shared/webhooks/port';
import { ListRunsQuery, ProviderParam, PutConnectionBody, SyncRunIdParam, TriggerRunBody } from '../schemas';
import { runContactSync, syncKey } from './engine';
import { refuseBaseUrlResolved } from './providers';

export const syncApp = new Hono<AppEnv>();

// Sync configuration and runs: dashboard session, tenant_admin or higher.
syncApp.use('/api/sync/*', roleGuard('tenant_admin'));

export const connectionView = (r: Selectable<ContactSyncConnectionsTable>) => ({
  provider: r.provider,
  base_url: r.base_url,
  has_token: true as const,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export const runView = (r: Selectable<ContactSyncRunsTable>) => ({
  id: r.id,
  provider: r.provider,
  mode: r.mode,
  status: r.status,
  pages: Number(r.pages),
  fetched: Number(r.fetched),
  created: Number(r.created),
  updated: Number(r.updated),
  unchanged: Number(r.unchanged),
  deactivated: Number(r.deactivated),
  skipped: Number(r.skipped),
  error: r.error,
  triggered_by: r.triggered_by,
  started_at: iso(r.started_at),
  finished_at: iso(r.finished_at),
});

/** Create or replace the tenant's connection to a provider. The token is sealed and never returned. */
syncApp.put(
  '/api/sync/contacts/connections/:provider',
  validate('param', ProviderParam),
  validate('json', PutConnectionBody),
  async (c) => {
    const { provider } = c.req.valid('param');
    const body = c.req.valid('json');
    const services = c.get('services');
    const { db, config } = services;
    const refused = await refuseBaseUrlResolved(
      body.base_url,
      config.SYNC_HTTP_ALLOW_HOSTS,
      outboundPortOf(services).resolveHost,
    );
    if (refused) throw validationError([{ loc: ['body', 'base_url'], msg: refused, type: 'value_error' }]);
    const sealed = await encryptSecret(syncKey(config), body.api_token);
    const now = new Date();
    const row = await db
      .insertInto('contact_sync_connections')
      .values({ tenant_id: tenantOf(c), provider, base_url: body.base_url, token_sealed: sealed })
      .onConflict((oc) =>
        oc
          .columns(['tenant_id', 'provider'])
          .doUpdateSet({ base_url: body.base_url, token_sealed: sealed, updated_at: now }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return c.json(connectionView(row), 200);
  },
);

syncApp.get('/api/sync/contacts/connections', async (c) => {
  const rows = await c
    .get('services')
    .db.selectFrom('contact_sync_connections')
    .selectAll()
    .where('tenant_id', '=', tenantOf(c))
    .orderBy('provider')
    .execute();
  return c.json({ connections: rows.map(connectionView) });
});

syncApp.delete('/api/sync/contacts/connections/:provider', validate('param', ProviderParam), async (c) => {
  const { provider } = c.req.valid('param');
  const done = await c
    .get('services')
    .db.deleteFrom('contact_sync_connections')
    .where('tenant_id', '=', tenantOf(c))
    .where('provider', '=', provider)
    .executeTakeFirst();
  if (Number(done.numDeletedRows) === 0) throw notFound('Sync connection');
  return c.body(null, 204);
});

/**
 * Trigger a run. It runs to completion inside the request and answers 201 with the run record,
 * whose status is `succeeded` or `failed` (with `error`; a failed run changed nothing).
 */
syncApp.post('/api/sync/contacts/runs', validate('json', TriggerRunBody), async (c) => {
  const body = c.req.valid('json');
  const services = c.get('services');
  const { db, config, events } = services;
  const { run, emitted } = await runContactSync(
    { db, config, resolve: outboundPortOf(services).resolveHost },
    tenantOf(c),
    body.provider,
    body.mode,
    actorOf(c),
  );
  if (emitted > 0) events.kick();
  return c.json(runView(run), 201);
});

syncApp.get('/api/sync/contacts/runs', validate('query', ListRunsQuery), async (c) => {
  const query = c.req.valid('query');
  const { db } = c.get('services');
  let base = db.selectFrom('contact_sync_runs').where('tenant_id', '=', tenantOf(c));
  if (query.provider) base = base.where('provider', '=', query.provider);
  const { rows, total } = await pageWithTotal(base, query, (q) =>
    q.selectAll().orderBy('started_at', 'desc').orderBy('id', 'desc'),
  );
  return c.json(pageEnvelope('runs', rows.map(runView), total, query));
});

syncApp.get('/api/sync/contacts/runs/:run_id', validate('param', SyncRunIdParam), async (c) => {
  const { run_id } = c.req.valid('param');
  const row = await c
    .get('services')
    .db.selectFrom('contact_sync_runs')
    .selectAll()
    .where('tenant_id', '=', tenantOf(c))
    .where('id', '=', run_id)
    .executeTakeFirst();
  if (!row) throw notFound('Sync run');
  return c.json(runView(row));
});
