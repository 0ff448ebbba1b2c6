import type { Context } from 'hono';
import type { Selectable } from 'kysely';
import type { AppEnv } from '../../shared/context/app-env';
import { decryptSecret, encryptSecret } from '../../shared/crypto';
import type { Db, Executor } from '../../shared/db/schema';
import type { TenantsTable } from '../../shared/db/tables/foundation';
import { emitEvent, iso } from '../../shared/events/emit';
import { SECTIONS, type SectionDef, type SectionKind } from './sections';

/** Secrets read back as this mask plus the last 4 characters (or null when unset). */
export const mask = (value: string) => `••••${value.slice(-4)}`;
export const REDACTED = '[REDACTED]';

interface Loaded {
  settings: Record<string, unknown>;
  /** field -> plaintext (only in memory, for change detection) */
  secrets: Record<string, string>;
  updatedAt: Date | null;
}

async function load(db: Db, key: string, tenantId: string, sealKey: string): Promise<Loaded> {
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
function view(kind: SectionKind, loaded: Loaded): Record<string, unknown> {
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
  const loaded = await load(db, key, tenantId, config.WEBHOOK_ENCRYPTION_KEY);
  return { section: key, settings: view(kind, loaded), updated_at: loaded.updatedAt?.toISOString() ?? null };
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

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Applies `input` to a section (PATCH merges; PUT replaces: fields not given reset to defaults;
 * a null value resets a field) in one transaction, and emits exactly one `config.updated` with
 * `{config: {section, changes: {field: {from, to}}}}` when something changed (secrets as
 * `[REDACTED]`); an unchanged write emits nothing.
 */
export async function writeSection(
  c: Context<AppEnv>,
  tenantId: string,
  kind: SectionKind,
  input: Record<string, unknown>,
  mode: 'merge' | 'replace',
  key: string = kind,
) {
  const { db, config } = c.get('services');
  const def: SectionDef = SECTIONS[kind];
  const result = await db.transaction().execute(async (trx) => {
    // serialise writers of this tenant's section (the row lock comes with the upsert below)
    const before = await load(trx, key, tenantId, config.WEBHOOK_ENCRYPTION_KEY);
    const settings: Record<string, unknown> = mode === 'merge' ? { ...before.settings } : {};
    const secrets: Record<string, string> = mode === 'merge' ? { ...before.secrets } : {};
    for (const [field, value] of Object.entries(input)) {
      if (value === undefined) continue;
      const secret = def.secrets.includes(field);
      if (value === null) {
        delete settings[field];
        delete secrets[field];
      } else if (secret) secrets[field] = String(value);
      else if (same(value, def.defaults[field])) delete settings[field];
      else settings[field] = value;
    }
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const field of Object.keys(def.defaults)) {
      if (def.secrets.includes(field)) {
        const from = before.secrets[field];
        const to = secrets[field];
        if (from !== to)
          changes[field] = {
            from: from === undefined ? null : REDACTED,
            to: to === undefined ? null : REDACTED,
          };
        continue;
      }
      const dflt = def.defaults[field];
      const from = field in before.settings ? before.settings[field] : dflt;
      const to = field in settings ? settings[field] : dflt;
      if (!same(from, to)) changes[field] = { from: from ?? null, to: to ?? null };
    }
    if (Object.keys(changes).length === 0) return { changes, after: before };
    const sealed: Record<string, string> = {};
    for (const [field, v] of Object.entries(secrets))
      sealed[field] = await encryptSecret(config.WEBHOOK_ENCRYPTION_KEY, v);
    const now = new Date();
    await trx
      .insertInto('tenant_settings')
      .values({
        tenant_id: tenantId,
        section: key,
        settings: JSON.stringify(settings),
        secrets: JSON.stringify(sealed),
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'section']).doUpdateSet({
          settings: JSON.stringify(settings),
          secrets: JSON.stringify(sealed),
          updated_at: now,
        }),
      )
      .execute();
    await emitEvent(trx, tenantId, 'config.updated', { config: { section: key, changes } });
    return { changes, after: { settings, secrets, updatedAt: now } };
  });
  if (Object.keys(result.changes).length > 0) c.get('services').events.kick();
  return {
    section: key,
    settings: view(kind, result.after),
    updated_at: result.after.updatedAt?.toISOString() ?? null,
    changes: result.changes,
  };
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

/** The tenant's name, its row locked until the transaction ends (writers of the name queue). */
export async function lockTenantName(trx: Executor, tenantId: string) {
  return trx.selectFrom('tenants').select('name').where('id', '=', tenantId).forUpdate().executeTakeFirst();
}

export async function renameTenant(trx: Executor, tenantId: string, name: string) {
  await trx.updateTable('tenants').set({ name, updated_at: new Date() }).where('id', '=', tenantId).execute();
}
