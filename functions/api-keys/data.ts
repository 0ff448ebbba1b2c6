import { type QueryCreator, type Selectable, sql } from 'kysely';
import { AUDIT_COLUMNS, type AuditRow, auditSelection } from '../../shared/audit/audit';
import { generateApiKey, hashApiKey } from '../../shared/auth/key-format';
import type { ApiKeysTable, Database, Executor } from '../../shared/db/schema';
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

/** A fresh key for `fields`: the row's values (only the key's hash is stored) and the full key. */
async function keyValues(hashSecret: string, fields: NewKey) {
  const generated = generateApiKey(fields.environment);
  const values = {
    id: newId('apiKey'),
    ...fields,
    key_prefix: generated.keyPrefix,
    key_hash: await hashApiKey(hashSecret, generated.apiKey),
  };
  return { values, apiKey: generated.apiKey };
}

/** A fresh key for `fields`: the row (only its hash is stored) and the full key, to show once. */
export async function insertKey(db: Executor, hashSecret: string, fields: NewKey) {
  const { values, apiKey } = await keyValues(hashSecret, fields);
  const row = await db.insertInto('api_keys').values(values).returningAll().executeTakeFirstOrThrow();
  return { row, apiKey };
}

/**
 * As `insertKey`, with the audit row `audit(id)` written by the same statement (a data-modifying
 * CTE): both commit or neither, in one round trip and with no transaction to open.
 */
export async function insertKeyAudited(
  db: Executor,
  hashSecret: string,
  fields: NewKey,
  audit: (keyId: string) => AuditRow,
) {
  const { values, apiKey } = await keyValues(hashSecret, fields);
  const row = await db
    .with('audit', (w) => w.insertInto('audit_log').values(audit(values.id)))
    .insertInto('api_keys')
    .values(values)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, apiKey };
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
  const revoked = await revokeUnlessRevoked(db, keyId).executeTakeFirst();
  return Number(revoked.numUpdatedRows) > 0;
}

/** The compare-and-set both revokes run, alone or as the first part of a statement. */
const revokeUnlessRevoked = (db: QueryCreator<Database>, keyId: string) =>
  db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null);

/**
 * Revokes the key as `revokeKey` does and, when this call revoked it, writes `audit` in the same
 * statement (so a revoke that changes nothing records nothing); whether this call revoked it.
 */
export async function revokeKeyAudited(db: Executor, keyId: string, audit: AuditRow): Promise<boolean> {
  const row = await db
    .with('revoked', (w) => revokeUnlessRevoked(w, keyId).returning('id'))
    .with('audit', (w) =>
      w
        .insertInto('audit_log')
        .columns(AUDIT_COLUMNS)
        .expression(w.selectFrom('revoked').select(auditSelection(audit))),
    )
    .selectFrom('revoked')
    .select('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Deletes a key of the tenant and writes `audit` with `{name}` as its metadata in the same
 * statement: its id, name and hash, or undefined (and no audit row) when there is none.
 */
export function deleteKey(db: Executor, tenantId: string, keyId: string, audit: AuditRow) {
  return db
    .with('deleted', (w) =>
      w
        .deleteFrom('api_keys')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', keyId)
        .returning(['id', 'name', 'key_hash']),
    )
    .with('audit', (w) =>
      w
        .insertInto('audit_log')
        .columns(AUDIT_COLUMNS)
        .expression(
          w
            .selectFrom('deleted')
            .select(auditSelection(audit, sql`jsonb_build_object('name', ${sql.ref('deleted.name')})`)),
        ),
    )
    .selectFrom('deleted')
    .select(['id', 'name', 'key_hash'])
    .executeTakeFirst();
}
