import type { Context } from 'hono';
import type { Selectable } from 'kysely';
import type { AppEnv } from '../../shared/context/app-env';
import { decryptSecret, encryptSecret } from '../../shared/crypto';
import type { Db, Executor } from '../../shared/db/schema';
import type { TenantsTable } from '../../shared/db/tables/foundation';
import { emitEvent, iso } from '../../shared/events/emit';
import { commitAnswer, jsonAnswer, type StoredResponse } from '../../shared/http/idempotency';
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

/** A section as a write answers it: the effective settings and what the write changed. */
export interface WrittenSection {
  section: string;
  settings: Record<string, unknown>;
  updated_at: string | null;
  changes: Record<string, { from: unknown; to: unknown }>;
}

/**
 * Applies `input` to a section (PATCH merges; PUT replaces: fields not given reset to defaults;
 * a null value resets a field) in one transaction, and emits exactly one `config.updated` with
 * `{config: {section, changes: {field: {from, to}}}}` when something changed (secrets as
 * `[REDACTED]`); an unchanged write emits nothing. Returns the route's 200 answer, `shape` of
 * the written section, committed in that transaction under the request's Idempotency-Key (a
 * retry after a crash replays it rather than writing again and answering `changes: {}`).
 */
export async function writeSection(
  c: Context<AppEnv>,
  tenantId: string,
  kind: SectionKind,
  input: Record<string, unknown>,
  mode: 'merge' | 'replace',
  key: string = kind,
  shape: (written: WrittenSection) => unknown = (written) => written,
): Promise<StoredResponse> {
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
    const changed = Object.keys(changes).length > 0;
    let after = before;
    if (changed) {
      after = { settings, secrets, updatedAt: new Date() };
      await saveSection(trx, tenantId, key, after, config.WEBHOOK_ENCRYPTION_KEY);
      await emitEvent(trx, tenantId, 'config.updated', { config: { section: key, changes } });
    }
    const written: WrittenSection = {
      section: key,
      settings: view(kind, after),
      updated_at: after.updatedAt?.toISOString() ?? null,
      changes,
    };
    return { changed, answer: await commitAnswer(trx, c, jsonAnswer(200, shape(written))) };
  });
  if (result.changed) c.get('services').events.kick();
  return result.answer;
}

/** Stores a section's settings and its secrets, sealed (one row per tenant and section). */
async function saveSection(trx: Executor, tenantId: string, key: string, s: Loaded, sealKey: string) {
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
