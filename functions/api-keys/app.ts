import { Hono } from 'hono';
import type { Selectable } from 'kysely';
import { recordAudit } from '../../shared/audit/audit';
import { actorOf, roleGuard, tenantOf } from '../../shared/auth/credential';
import { generateApiKey, hashApiKey } from '../../shared/auth/key-format';
import { isScope, SCOPE_CATALOG } from '../../shared/auth/scopes';
import type { AppEnv } from '../../shared/context/app-env';
import { pageWithTotal } from '../../shared/db/paging';
import type { ApiKeysTable, Db } from '../../shared/db/schema';
import { badRequest, conflict, Detail, notFound } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { validate } from '../../shared/http/validation';
import { newId } from '../../shared/ids';
import { CreateApiKeyBody, KeyIdParam, ListApiKeysQuery } from './schemas';

type KeyRow = Selectable<ApiKeysTable>;

/** Lower-cased, trimmed, de-duplicated, in the caller's order; unknown ones (incl. `*`) are a 400. */
export function normalizeScopes(requested: readonly string[]): string[] {
  const scopes = [...new Set(requested.map((s) => s.trim().toLowerCase()))];
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) throw badRequest(Detail.unknownScopes(unknown, SCOPE_CATALOG));
  return scopes;
}

const isActive = (k: KeyRow, now = Date.now()) =>
  k.revoked_at === null && (k.expires_at === null || new Date(k.expires_at).getTime() > now);

/** Listing record: never the secret or its hash. */
const listView = (k: KeyRow) => ({
  id: k.id,
  name: k.name,
  description: k.description,
  key_prefix: k.key_prefix,
  scopes: k.scopes,
  created_by: k.created_by,
  created_at: k.created_at,
  expires_at: k.expires_at,
  last_used_at: k.last_used_at,
  revoked_at: k.revoked_at,
  is_active: isActive(k),
});

/** Create/rotate response: the only time the full key is shown. */
const secretView = (k: KeyRow, apiKey: string) => ({
  id: k.id,
  name: k.name,
  description: k.description,
  key_prefix: k.key_prefix,
  scopes: k.scopes,
  created_at: k.created_at,
  expires_at: k.expires_at,
  api_key: apiKey,
});

async function insertKey(
  db: Db,
  hashSecret: string,
  fields: Pick<KeyRow, 'tenant_id' | 'name' | 'description' | 'scopes' | 'created_by' | 'expires_at'> & {
    environment: 'live' | 'test';
  },
) {
  const generated = generateApiKey(fields.environment);
  const row = await db
    .insertInto('api_keys')
    .values({
      id: newId('apiKey'),
      ...fields,
      key_prefix: generated.keyPrefix,
      key_hash: await hashApiKey(hashSecret, generated.apiKey),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, apiKey: generated.apiKey };
}

async function findKey(db: Db, tenantId: string, keyId: string): Promise<KeyRow> {
  const row = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', keyId)
    .executeTakeFirst();
  if (!row) throw notFound('API key');
  return row;
}

export const app = new Hono<AppEnv>();

// Every route here is dashboard-only (the gate refuses API keys) and needs tenant_admin or higher.
app.use('/api/v1/api-keys/*', roleGuard('tenant_admin'));
app.use('/api/v1/api-keys', roleGuard('tenant_admin'));

app.post('/api/v1/api-keys', validate('json', CreateApiKeyBody), async (c) => {
  const body = c.req.valid('json');
  const scopes = normalizeScopes(body.scopes);
  const { db, config } = c.get('services');
  const tenantId = tenantOf(c);
  const tenant = await db
    .selectFrom('tenants')
    .select('environment')
    .where('id', '=', tenantId)
    .executeTakeFirst();
  if (!tenant) throw notFound('Tenant');
  const expiresAt = body.expires_in_days ? new Date(Date.now() + body.expires_in_days * 86_400_000) : null;
  const { row, apiKey } = await db.transaction().execute(async (trx) => {
    const created = await insertKey(trx, config.API_KEY_HASH_SECRET, {
      tenant_id: tenantId,
      name: body.name,
      description: body.description ?? null,
      scopes,
      created_by: actorOf(c),
      expires_at: expiresAt,
      environment: tenant.environment === 'sandbox' ? 'test' : 'live',
    });
    await recordAudit(
      trx,
      c,
      'api_key.created',
      { type: 'api_key', id: created.row.id },
      { name: body.name, scopes },
    );
    return created;
  });
  return c.json(secretView(row, apiKey), 201);
});

app.get('/api/v1/api-keys', validate('query', ListApiKeysQuery), async (c) => {
  const page = c.req.valid('query');
  const base = c.get('services').db.selectFrom('api_keys').where('tenant_id', '=', tenantOf(c));
  const { rows, total } = await pageWithTotal(base, page, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
  );
  return c.json(pageEnvelope('api_keys', rows.map(listView), total, page));
});

app.post('/api/v1/api-keys/:key_id/rotate', validate('param', KeyIdParam), async (c) => {
  const { key_id } = c.req.valid('param');
  const { db, config, keyCache } = c.get('services');
  const tenantId = tenantOf(c);
  const result = await db.transaction().execute(async (trx) => {
    const old = await findKey(trx, tenantId, key_id);
    // Lock-free compare-and-set: only one concurrent rotation wins.
    const revoked = await trx
      .updateTable('api_keys')
      .set({ revoked_at: new Date() })
      .where('id', '=', old.id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(revoked.numUpdatedRows) === 0) throw conflict('API key is revoked and cannot be rotated');
    const created = await insertKey(trx, config.API_KEY_HASH_SECRET, {
      tenant_id: tenantId,
      name: old.name,
      description: old.description,
      scopes: old.scopes,
      created_by: actorOf(c),
      expires_at: old.expires_at,
      environment: old.environment,
    });
    await recordAudit(
      trx,
      c,
      'api_key.rotated',
      { type: 'api_key', id: old.id },
      { replaced_by: created.row.id },
    );
    return created;
  });
  keyCache?.evict(key_id);
  return c.json(secretView(result.row, result.apiKey), 200);
});

app.post('/api/v1/api-keys/:key_id/revoke', validate('param', KeyIdParam), async (c) => {
  const { key_id } = c.req.valid('param');
  const { db, keyCache } = c.get('services');
  const key = await findKey(db, tenantOf(c), key_id);
  if (key.revoked_at === null) {
    await db.transaction().execute(async (trx) => {
      const revoked = await trx
        .updateTable('api_keys')
        .set({ revoked_at: new Date() })
        .where('id', '=', key.id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(revoked.numUpdatedRows) > 0)
        await recordAudit(trx, c, 'api_key.revoked', { type: 'api_key', id: key.id });
    });
  }
  keyCache?.evict(key.id);
  return c.body(null, 204);
});

app.delete('/api/v1/api-keys/:key_id', validate('param', KeyIdParam), async (c) => {
  const { key_id } = c.req.valid('param');
  const { db, keyCache } = c.get('services');
  await db.transaction().execute(async (trx) => {
    const deleted = await trx
      .deleteFrom('api_keys')
      .where('tenant_id', '=', tenantOf(c))
      .where('id', '=', key_id)
      .returning(['id', 'name'])
      .executeTakeFirst();
    if (!deleted) throw notFound('API key');
    await recordAudit(trx, c, 'api_key.deleted', { type: 'api_key', id: deleted.id }, { name: deleted.name });
  });
  keyCache?.evict(key_id);
  return c.body(null, 204);
});
