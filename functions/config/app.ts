import { type Context, Hono } from 'hono';
import type { ZodType } from 'zod';
import { tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { findTenant } from '../../shared/db/tenants';
import { emitEvent } from '../../shared/events/emit';
import { answerWithWork, sendAnswer, storedJson } from '../../shared/http/answer-with-work';
import { notFound } from '../../shared/http/errors';
import { type RouteInput, register } from '../../shared/http/route';
import { reindexTenantSearch } from '../../shared/search/reindex';
import {
  loadSection,
  lockTenant,
  REDACTED,
  readSection,
  renameTenant,
  saveSection,
  sectionView,
  storedSections,
  tenantProfileView,
} from './data';
import * as routes from './routes';
import { INTEGRATION_PROVIDERS, ONBOARDING_STEPS } from './schemas';
import {
  applyToSection,
  GENERAL_SECTIONS,
  type GeneralSection,
  type SectionChanges,
  type SectionKind,
} from './sections';

/**
 * Tenant configuration. Reads need config:read (integrations and telephony also config:write:
 * they describe credentials); writes need config:write (functions/manifest.ts). Dashboard sessions:
 * an agent may read, only a tenant_admin may change (each write route's `access.role`). Every
 * effective change emits one `config.updated`. `/api/v1/configuration` is an alias of `/api/v1/config`.
 * A write answers with what its transaction committed under the request's Idempotency-Key
 * (answerWithWork): the same bytes a retry after a crash is replayed.
 */
export const app = new Hono<AppEnv>();

/** A section as a write answers it: the effective settings and what the write changed. */
export interface WrittenSection {
  section: string;
  settings: Record<string, unknown>;
  updated_at: string | null;
  changes: SectionChanges;
}

/** Which section a write changes, and how. */
interface SectionWrite {
  kind: SectionKind;
  /** the stored section: the kind itself, or one per integration provider */
  key?: string;
  /** PATCH merges the fields given; PUT replaces the section (fields not given reset to defaults) */
  mode: 'merge' | 'replace';
  /** the answer's body, from the written section (default: the section itself) */
  shape?: (written: WrittenSection) => unknown;
}

/**
 * One section's write, for every section route: the section loaded, `input` applied, and when that
 * changes something, the section saved and exactly one `config.updated` emitted
 * (`{config: {section, changes: {field: {from, to}}}}`); an unchanged write emits nothing. The
 * answer commits with the write under the request's Idempotency-Key, so a retry after a crash
 * replays it rather than writing again and answering `changes: {}`.
 */
async function writeSection(c: Context<AppEnv>, input: Record<string, unknown>, target: SectionWrite) {
  const { kind, key = kind, mode, shape = (written) => written } = target;
  const tenantId = tenantOf(c);
  const { config, events } = c.get('services');
  const sealKey = config.WEBHOOK_ENCRYPTION_KEY;
  const { result, answer } = await answerWithWork(
    c,
    async (trx) => {
      const before = await loadSection(trx, tenantId, key, sealKey);
      const { after, changes } = applyToSection(kind, before, input, mode, REDACTED);
      const changed = Object.keys(changes).length > 0;
      const stored = changed ? { ...after, updatedAt: new Date() } : before;
      if (changed) {
        await saveSection(trx, tenantId, key, stored, sealKey);
        await emitEvent(trx, tenantId, 'config.updated', { config: { section: key, changes } });
      }
      const written: WrittenSection = {
        section: key,
        settings: sectionView(kind, stored),
        updated_at: stored.updatedAt?.toISOString() ?? null,
        changes,
      };
      return { changed, written };
    },
    ({ written }) => storedJson(200, shape(written)),
    { transaction: true },
  );
  if (result.changed) events.kick();
  // the tenant's rows are indexed in the language of its locale: a new locale indexes them again,
  // in batches after the write (not in its transaction, which would hold every row of the tenant)
  if (key === 'general' && 'locale' in result.written.changes)
    await reindexTenantSearch(
      c.get('services').db,
      tenantId,
      (result.written.settings as { locale?: string | null }).locale ?? null,
    );
  return answer;
}

// --- general settings: the same handlers under /api/v1/config and its alias /api/v1/configuration
type SectionBody = Context<AppEnv, string, RouteInput<{ body: ZodType<Record<string, unknown>> }>>;

/** Every general section, with defaults filled in. */
async function allSections(c: Context<AppEnv>) {
  const tenantId = tenantOf(c);
  const sections = await Promise.all(GENERAL_SECTIONS.map((s) => readSection(c, tenantId, s)));
  return c.json({ sections: Object.fromEntries(sections.map((s) => [s.section, s])) });
}
const readOne = (section: GeneralSection) => async (c: Context<AppEnv>) =>
  c.json(await readSection(c, tenantOf(c), section));
const writeOne = (kind: GeneralSection, mode: 'merge' | 'replace') => async (c: SectionBody) =>
  sendAnswer(c, await writeSection(c, c.req.valid('json'), { kind, mode }));

for (const { all, sections } of routes.generalSettings) {
  register(app, all, allSections);
  for (const { section, read, update, replace } of sections) {
    register(app, read, readOne(section));
    register(app, update, writeOne(section, 'merge'));
    register(app, replace, writeOne(section, 'replace'));
  }
}

// --- integrations: one section per provider (`integration:<provider>`), secrets write-only
const integrationKey = (provider: string) => `integration:${provider}`;
const withProvider = (provider: string) => (written: WrittenSection) => ({ provider, ...written });

register(app, routes.listIntegrations, async (c) => {
  const tenantId = tenantOf(c);
  const stored = new Set(
    (await storedSections(c.get('services').db, tenantId, 'integration:')).map((r) => r.section),
  );
  const integrations = await Promise.all(
    INTEGRATION_PROVIDERS.map(async (provider) => {
      const s = await readSection(c, tenantId, 'integration', integrationKey(provider));
      return { provider, configured: stored.has(integrationKey(provider)), ...s };
    }),
  );
  return c.json({ integrations });
});

register(app, routes.getIntegration, async (c) => {
  const { provider } = c.req.valid('param');
  return c.json({
    provider,
    ...(await readSection(c, tenantOf(c), 'integration', integrationKey(provider))),
  });
});

register(app, routes.updateIntegration, async (c) => {
  const { provider } = c.req.valid('param');
  const body = c.req.valid('json');
  return sendAnswer(
    c,
    await writeSection(c, body, {
      kind: 'integration',
      key: integrationKey(provider),
      mode: 'merge',
      shape: withProvider(provider),
    }),
  );
});

register(app, routes.replaceIntegration, async (c) => {
  const { provider } = c.req.valid('param');
  const body = c.req.valid('json');
  return sendAnswer(
    c,
    await writeSection(c, body, {
      kind: 'integration',
      key: integrationKey(provider),
      mode: 'replace',
      shape: withProvider(provider),
    }),
  );
});

/** Disconnect: every field back to its default (secrets erased); config.updated when anything was set. */
register(app, routes.disconnectIntegration, async (c) => {
  const { provider } = c.req.valid('param');
  await writeSection(c, {}, { kind: 'integration', key: integrationKey(provider), mode: 'replace' });
  return c.body(null, 204);
});

// --- telephony (secrets write-only); voice-widget settings belong to the calls function
register(app, routes.getTelephony, async (c) => c.json(await readSection(c, tenantOf(c), 'telephony')));

register(app, routes.updateTelephony, async (c) =>
  sendAnswer(c, await writeSection(c, c.req.valid('json'), { kind: 'telephony', mode: 'merge' })),
);

register(app, routes.replaceTelephony, async (c) =>
  sendAnswer(c, await writeSection(c, c.req.valid('json'), { kind: 'telephony', mode: 'replace' })),
);

// --- onboarding: the checklist, with progress
const progress = (settings: Record<string, unknown>) => {
  const done = ONBOARDING_STEPS.filter((s) => settings[s] === true).length;
  return {
    completed_steps: done,
    total_steps: ONBOARDING_STEPS.length,
    completed: done === ONBOARDING_STEPS.length,
  };
};

register(app, routes.getOnboarding, async (c) => {
  const s = await readSection(c, tenantOf(c), 'onboarding');
  return c.json({ ...s, ...progress(s.settings) });
});

register(app, routes.updateOnboarding, async (c) =>
  sendAnswer(
    c,
    await writeSection(c, c.req.valid('json'), {
      kind: 'onboarding',
      mode: 'merge',
      shape: (s) => ({ ...s, ...progress(s.settings) }),
    }),
  ),
);

// --- the tenant's own profile (plan changes go through /api/v1/billing/plan)
async function tenantProfile(c: Context<AppEnv>, tenantId: string) {
  const t = await findTenant(c.get('services').db, tenantId);
  if (!t) throw notFound('Tenant');
  return tenantProfileView(t);
}

register(app, routes.getTenant, async (c) => c.json(await tenantProfile(c, tenantOf(c))));

register(app, routes.renameTenant, async (c) => {
  const tenantId = tenantOf(c);
  const { name } = c.req.valid('json');
  const { result, answer } = await answerWithWork(
    c,
    async (trx) => {
      const before = await lockTenant(trx, tenantId);
      if (!before) throw notFound('Tenant');
      const changed = before.name !== name;
      const after = changed ? await renameTenant(trx, tenantId, name) : before;
      if (changed)
        await emitEvent(trx, tenantId, 'config.updated', {
          config: { section: 'tenant', changes: { name: { from: before.name, to: name } } },
        });
      return { changed, after };
    },
    ({ after }) => storedJson(200, tenantProfileView(after)),
    { transaction: true },
  );
  if (result.changed) c.get('services').events.kick();
  return sendAnswer(c, answer);
});
