import { Hono } from 'hono';
import { auditRow, recordAudit } from '../../shared/audit/audit';
import { actorOf, tenantOf } from '../../shared/auth/credential';
import { forgetKey } from '../../shared/auth/key-verify';
import type { AppEnv } from '../../shared/context/app-env';
import { isScope, SCOPE_CATALOG } from '../../shared/context/scopes';
import type { Executor } from '../../shared/db/schema';
import { answerWithWork, sendAnswer, storedEmpty, storedJson } from '../../shared/http/answer-with-work';
import { badRequest, conflict, Detail, notFound } from '../../shared/http/errors';
import { register } from '../../shared/http/route';
import {
  deleteKey,
  findKey,
  insertKey,
  insertKeyAudited,
  type KeyRow,
  listKeys,
  listView,
  revokeKey,
  revokeKeyAudited,
  secretView,
  tenantEnvironment,
} from './data';
import * as routes from './routes';

/** Lower-cased, trimmed, de-duplicated, in the caller's order; unknown ones (incl. `*`) are a 400. */
export function normalizeScopes(requested: readonly string[]): string[] {
  const scopes = [...new Set(requested.map((s) => s.trim().toLowerCase()))];
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) throw badRequest(Detail.unknownScopes(unknown, SCOPE_CATALOG));
  return scopes;
}

/** A key of the tenant, else 404 `API key not found`. */
async function keyOf(db: Executor, tenantId: string, keyId: string): Promise<KeyRow> {
  const key = await findKey(db, tenantId, keyId);
  if (!key) throw notFound('API key');
  return key;
}

export const app = new Hono<AppEnv>();

// Every route here is dashboard-only (the gate refuses API keys) and declares tenant_admin or higher.

register(app, routes.createApiKey, async (c) => {
  const body = c.req.valid('json');
  const scopes = normalizeScopes(body.scopes);
  const { db, config } = c.get('services');
  const tenantId = tenantOf(c);
  const environment = await tenantEnvironment(db, tenantId);
  if (!environment) throw notFound('Tenant');
  const expiresAt = body.expires_in_days ? new Date(Date.now() + body.expires_in_days * 86_400_000) : null;
  // the answer is the only place the key is shown: under an Idempotency-Key it commits with the
  // key, so a retry after a crash gets this key rather than a second one
  const { answer } = await answerWithWork(
    c,
    (ex) =>
      insertKeyAudited(
        ex,
        config.API_KEY_HASH_SECRET,
        {
          tenant_id: tenantId,
          name: body.name,
          description: body.description ?? null,
          scopes,
          created_by: actorOf(c),
          expires_at: expiresAt,
          environment: environment === 'sandbox' ? 'test' : 'live',
        },
        (id) => auditRow(c, 'api_key.created', { type: 'api_key', id }, { name: body.name, scopes }),
      ),
    ({ row, apiKey }) => storedJson(201, secretView(row, apiKey)),
  );
  return sendAnswer(c, answer);
});

register(app, routes.listApiKeys, async (c) => {
  const rows = await listKeys(c.get('services').db, tenantOf(c));
  return c.json({ api_keys: rows.map(listView) });
});

register(app, routes.rotateApiKey, async (c) => {
  const { key_id } = c.req.valid('param');
  const services = c.get('services');
  const { config } = services;
  const tenantId = tenantOf(c);
  const { result, answer } = await answerWithWork(
    c,
    async (trx) => {
      const old = await keyOf(trx, tenantId, key_id);
      // only one concurrent rotation wins the revocation
      if (!(await revokeKey(trx, old.id))) throw conflict(Detail.apiKeyRevoked);
      const created = await insertKey(trx, config.API_KEY_HASH_SECRET, {
        tenant_id: tenantId,
        name: old.name,
        description: old.description,
        scopes: old.scopes,
        created_by: actorOf(c),
        expires_at: old.expires_at,
        environment: old.environment,
        rotated_from: old.id,
      });
      await recordAudit(
        trx,
        c,
        'api_key.rotated',
        { type: 'api_key', id: old.id },
        { replaced_by: created.row.id },
      );
      return { ...created, old };
    },
    ({ row, apiKey }) => storedJson(200, secretView(row, apiKey)),
    { transaction: true },
  );
  await forgetKey(services, result.old);
  return sendAnswer(c, answer);
});

register(app, routes.revokeApiKey, async (c) => {
  const { key_id } = c.req.valid('param');
  const services = c.get('services');
  const { result: key, answer } = await answerWithWork(
    c,
    async (ex) => {
      const key = await keyOf(ex, tenantOf(c), key_id);
      // idempotent: only the call that revokes it records it
      if (key.revoked_at === null)
        await revokeKeyAudited(ex, key.id, auditRow(c, 'api_key.revoked', { type: 'api_key', id: key.id }));
      return key;
    },
    () => storedEmpty(204),
  );
  await forgetKey(services, key);
  return sendAnswer(c, answer);
});

register(app, routes.deleteApiKey, async (c) => {
  const { key_id } = c.req.valid('param');
  const services = c.get('services');
  const audit = auditRow(c, 'api_key.deleted', { type: 'api_key', id: key_id });
  const deleted = await deleteKey(services.db, tenantOf(c), key_id, audit);
  if (!deleted) throw notFound('API key');
  await forgetKey(services, deleted);
  return c.body(null, 204);
});
