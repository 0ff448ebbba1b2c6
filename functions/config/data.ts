import type { Context } from 'hono';
import type { Selectable } from 'kysely';
import type { AppEnv } from '../../shared/context/app-env';
import { decryptSecret, encryptSecret } from '../../shared/crypto';
import type { Db, Executor } from '../../shared/db/schema';
import type { TenantsTable } from '../../shared/db/tables/foundation';
import { iso } from '../../shared/events/emit';
import { SECTIONS, type SectionDef, type SectionKind } from './sections';

/** Secrets read back as this mask plus the last 4 characters (or null when unset). */
export const mask = (value: string) => `••••${value.slice(-4)}`;
export const REDACTED = '[REDACTED]';

/** A section as stored, its secrets opened. */
export interface Loaded {
  settings: Record<string, unknown>;
  /** field -> plaintext (only in memory, for change detection) */
  secrets: Record<string, string>;
  updatedAt: Date | null;
}

/** The stored section `key` of a tenant (empty when nothing is stored), its secrets opened. */
export async function loadSection(
  db: Executor,
  tenantId: string,
  key: string,
  sealKey: string,
): Promise<Loaded> {
  const row = await db
    .selectFrom('tenant_settings')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('section', '=', key)
    .executeTakeFirst();
  const secrets: Record<string, string> = {};
  for (const [field, sealed] of Object.entries(row?.secrets ?? {})) {
    secrets[field] = await decryptSecret(sealKey, sealed);
  }
  return { settings: row?.settings ?? {}, secrets, updatedAt: row ? new Date(row.updated_at) : null };
}

/** The effective settings: defaults, then stored values; secrets masked. */
export function sectionView(kind: SectionKind, loaded: Loaded): Record<string, unknown> {
  const def: SectionDef = SECTIONS[kind];
  const out: Record<string, unknown> = { ...def.defaults, ...loaded.settings };
  for (const field of def.secrets) {
    const v = loaded.secrets[field];
    out[field] = v === undefined ? null : mask(v);
  }
  return out;
}

export async function readSection(
  c: Context<AppEnv>,
  tenantId: string,
  kind: SectionKind,
  key: string = kind,
) {
  const { db, config } = c.get('services');
  const loaded = await loadSection(db, tenantId, key, config.WEBHOOK_ENCRYPTION_KEY);
  return {
    section: key,
    settings: sectionView(kind, loaded),
    updated_at: loaded.updatedAt?.toISOString() ?? null,
  };
}

/** Is any value stored for this section (integrations list: only configured providers). */
export async function storedSections(db: Db, tenantId: string, prefix: string) {
  return db
    .selectFrom('tenant_settings')
    .select('section')
    .where('tenant_id', '=', tenantId)
    .where('section', 'like', `${prefix}%`)
    .orderBy('section')
    .execute();
}

/** Stores a section's settings and its secrets, sealed (one row per tenant and section). */
export async function saveSection(trx: Executor, tenantId: string, key: string, s: Loaded, sealKey: string) {
  const sealed: Record<string, string> = {};
  for (const [field, v] of Object.entries(s.secrets)) sealed[field] = await encryptSecret(sealKey, v);
  const values = {
    settings: JSON.stringify(s.settings),
    secrets: JSON.stringify(sealed),
    updated_at: s.updatedAt ?? new Date(),
  };
  await trx
    .insertInto('tenant_settings')
    .values({ tenant_id: tenantId, section: key, ...values })
    .onConflict((oc) => oc.columns(['tenant_id', 'section']).doUpdateSet(values))
    .execute();
}

// --- the tenant's own profile (plan changes go through /api/v1/billing/plan)

export function tenantProfileView(t: Selectable<TenantsTable>) {
  return {
    id: t.id,
    name: t.name,
    plan: t.plan,
    environment: t.environment,
    created_at: iso(t.created_at),
    updated_at: iso(t.updated_at),
  };
}

/** The tenant, its row locked until the transaction ends (writers of the name queue). */
export async function lockTenant(trx: Executor, tenantId: string) {
  return trx.selectFrom('tenants').selectAll().where('id', '=', tenantId).forUpdate().executeTakeFirst();
}

/** Renames the tenant; the row as it now is. */
export async function renameTenant(trx: Executor, tenantId: string, name: string) {
  return trx
    .updateTable('tenants')
    .set({ name, updated_at: new Date() })
    .where('id', '=', tenantId)
    .returningAll()
    .executeTakeFirstOrThrow();
}
