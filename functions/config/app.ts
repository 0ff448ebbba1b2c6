import { type Context, Hono } from 'hono';
import type { ZodType } from 'zod';
import { tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { findTenant } from '../../shared/db/tenants';
import { emitEvent } from '../../shared/events/emit';
import { notFound } from '../../shared/http/errors';
import { commitAnswer, jsonAnswer, sendAnswer } from '../../shared/http/idempotency';
import { type RouteInput, register } from '../../shared/http/route';
import {
  lockTenant,
  readSection,
  renameTenant,
  storedSections,
  tenantProfileView,
  type WrittenSection,
  writeSection,
} from './data';
import * as routes from './routes';
import { INTEGRATION_PROVIDERS, ONBOARDING_STEPS } from './schemas';
import { GENERAL_SECTIONS, type GeneralSection } from './sections';

/**
 * Tenant configuration. Reads need config:read (integrations and telephony also config:write:
 * they describe credentials); writes need config:write (functions/manifest.ts). Dashboard sessions:
 * an agent may read, only a tenant_admin may change (each write route's `access.role`). Every
 * effective change emits one `config.updated`. `/api/v1/configuration` is an alias of `/api/v1/config`.
 * A write answers with what its transaction committed under the request's Idempotency-Key
 * (writeSection, commitAnswer): the same bytes a retry after a crash is replayed.
 */
export const app = new Hono<AppEnv>();

// --- general settings: the same handlers under /api/v1/config and its alias /api/v1/configuration
type SectionWrite = Context<AppEnv, string, RouteInput<{ body: ZodType<Record<string, unknown>> }>>;

/** Every general section, with defaults filled in. */
async function allSections(c: Context<AppEnv>) {
  const tenantId = tenantOf(c);
  const sections = await Promise.all(GENERAL_SECTIONS.map((s) => readSection(c, tenantId, s)));
  return c.json({ sections: Object.fromEntries(sections.map((s) => [s.section, s])) });
}
const readOne = (section: GeneralSection) => async (c: Context<AppEnv>) =>
  c.json(await readSection(c, tenantOf(c), section));
/** PATCH merges the fields given, PUT replaces the section (data.ts, writeSection). */
const writeOne = (section: GeneralSection, mode: 'merge' | 'replace') => async (c: SectionWrite) =>
  sendAnswer(c, await writeSection(c, tenantOf(c), section, c.req.valid('json'), mode));

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
    await writeSection(
      c,
      tenantOf(c),
      'integration',
      body,
      'merge',
      integrationKey(provider),
      withProvider(provider),
    ),
  );
});

register(app, routes.replaceIntegration, async (c) => {
  const { provider } = c.req.valid('param');
  const body = c.req.valid('json');
  return sendAnswer(
    c,
    await writeSection(
      c,
      tenantOf(c),
      'integration',
      body,
      'replace',
      integrationKey(provider),
      withProvider(provider),
    ),
  );
});

/** Disconnect: every field back to its default (secrets erased); config.updated when anything was set. */
register(app, routes.disconnectIntegration, async (c) => {
  const { provider } = c.req.valid('param');
  await writeSection(c, tenantOf(c), 'integration', {}, 'replace', integrationKey(provider));
  return c.body(null, 204);
});

// --- telephony (secrets write-only); voice-widget settings belong to the calls function
register(app, routes.getTelephony, async (c) => c.json(await readSection(c, tenantOf(c), 'telephony')));

register(app, routes.updateTelephony, async (c) =>
  sendAnswer(c, await writeSection(c, tenantOf(c), 'telephony', c.req.valid('json'), 'merge')),
);

register(app, routes.replaceTelephony, async (c) =>
  sendAnswer(c, await writeSection(c, tenantOf(c), 'telephony', c.req.valid('json'), 'replace')),
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
    await writeSection(c, tenantOf(c), 'onboarding', c.req.valid('json'), 'merge', 'onboarding', (s) => ({
      ...s,
      ...progress(s.settings),
    })),
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
  const { db } = c.get('services');
  const { changed, answer } = await db.transaction().execute(async (trx) => {
    const before = await lockTenant(trx, tenantId);
    if (!before) throw notFound('Tenant');
    const changed = before.name !== name;
    const after = changed ? await renameTenant(trx, tenantId, name) : before;
    if (changed)
      await emitEvent(trx, tenantId, 'config.updated', {
        config: { section: 'tenant', changes: { name: { from: before.name, to: name } } },
      });
    return { changed, answer: await commitAnswer(trx, c, jsonAnswer(200, tenantProfileView(after))) };
  });
  if (changed) c.get('services').events.kick();
  return sendAnswer(c, answer);
});
