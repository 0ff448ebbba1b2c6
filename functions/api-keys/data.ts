import type { Selectable } from 'kysely';
import { generateApiKey, hashApiKey } from '../../shared/auth/key-format';
import type { ApiKeysTable, Executor } from '../../shared/db/schema';
import { newId } from '../../shared/ids';

export type KeyRow = Selectable<ApiKeysTable>;

const isActive = (k: KeyRow, now = Date.now()) =>
  k.revoked_at === null && (k.expires_at === null || new Date(k.expires_at).getTime() > now);

/** Listing record: never the secret or its hash. */
export const listView = (k: KeyRow) => ({
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
  rotated_from: k.rotated_from,
  is_active: isActive(k),
});

/** Create/rotate response: the only time the full key is shown. */
export const secretView = (k: KeyRow, apiKey: string) => ({
  id: k.id,
  name: k.name,
  description: k.description,
  key_prefix: k.key_prefix,
  scopes: k.scopes,
  created_at: k.created_at,
  expires_at: k.expires_at,
  api_key: apiKey,
});

/** The tenant's environment (`sandbox` tenants get test keys), or undefined for an unknown tenant. */
export async function tenantEnvironment(db: Executor, tenantId: string) {
  const tenant = await db
    .selectFrom('tenants')
    .select('environment')
    .where('id', '=', tenantId)
    .executeTakeFirst();
  return tenant?.environment;
}

export type NewKey = Pick<
  KeyRow,
  'tenant_id' | 'name' | 'description' | 'scopes' | 'created_by' | 'expires_at'
> & {
  environment: 'live' | 'test';
  /** set by a rotation: the key the new one replaces */
  rotated_from?: string;
};

/** A fresh key for `fields`: the row (only its hash is stored) and the full key, to show once. */
export async function insertKey(db: Executor, hashSecret: string, fields: NewKey) {
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

export function findKey(db: Executor, tenantId: string, keyId: string): Promise<KeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', keyId)
    .executeTakeFirst();
}

/** Every key of the tenant, newest first: the spec's list has no pagination (as the webhook list). */
export function listKeys(db: Executor, tenantId: string) {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/**
 * Revokes the key unless it is revoked already: a lock-free compare-and-set, so of concurrent
 * callers only one gets `true`.
 */
export async function revokeKey(db: Executor, keyId: string): Promise<boolean> {
  const revoked = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(revoked.numUpdatedRows) > 0;
}

/** Deletes a key of the tenant: its id and name, or undefined when there is none. */
export function deleteKey(db: Executor, tenantId: string, keyId: string) {
  return db
    .deleteFrom('api_keys')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', keyId)
    .returning(['id', 'name', 'key_hash'])
    .executeTakeFirst();
}
