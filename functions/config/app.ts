import { Hono } from 'hono';
import { roleGuard, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { emitEvent } from '../../shared/events/emit';
import { notFound } from '../../shared/http/errors';
import { validate } from '../../shared/http/validation';
import { readSection, storedSections, writeSection } from './data';
import { INTEGRATION_PROVIDERS, ONBOARDING_STEPS, ProviderParam, TenantProfileBody } from './schemas';
import { SECTIONS, type SectionKind } from './sections';

/**
 * Tenant configuration. Reads need config:read (integrations and telephony also config:write:
 * they describe credentials); writes need config:write (shared/auth/scopes.ts). Every effective
 * change emits one `config.updated`. `/api/v1/configuration` is an alias of `/api/v1/config`.
 */
export const app = new Hono<AppEnv>();
// dashboard sessions: an agent may read, only a tenant_admin may change; API keys go by their scopes
const tenantAdminWrites = roleGuard('tenant_admin', { keysByScope: true, readsForAnySession: true });
for (const base of [
  '/api/v1/config',
  '/api/v1/configuration',
  '/api/v1/integrations',
  '/api/v1/telephony',
  '/api/v1/onboarding',
]) {
  app.use(base, tenantAdminWrites);
  app.use(`${base}/*`, tenantAdminWrites);
}
app.use('/api/v1/tenant', tenantAdminWrites);

export const GENERAL_SECTIONS = ['general', 'branding', 'channels', 'onboarding'] as const;
export const CONFIG_BASES = ['/api/v1/config', '/api/v1/configuration'] as const;

for (const base of CONFIG_BASES) {
  app.get(base, async (c) => {
    const tenantId = tenantOf(c);
    const sections = await Promise.all(GENERAL_SECTIONS.map((s) => readSection(c, tenantId, s)));
    return c.json({ sections: Object.fromEntries(sections.map((s) => [s.section, s])) });
  });
  for (const section of GENERAL_SECTIONS) {
    const schema = SECTIONS[section].schema;
    app.get(`${base}/${section}`, async (c) => c.json(await readSection(c, tenantOf(c), section)));
    app.patch(`${base}/${section}`, validate('json', schema), async (c) =>
      c.json(await writeSection(c, tenantOf(c), section, c.req.valid('json'), 'merge')),
    );
    app.put(`${base}/${section}`, validate('json', schema), async (c) =>
      c.json(await writeSection(c, tenantOf(c), section, c.req.valid('json'), 'replace')),
    );
  }
}

// --- integrations: one section per provider (`integration:<provider>`), secrets write-only
const integrationKey = (provider: string) => `integration:${provider}`;

app.get('/api/v1/integrations', async (c) => {
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

app.get('/api/v1/integrations/:provider', validate('param', ProviderParam), async (c) => {
  const { provider } = c.req.valid('param');
  return c.json({
    provider,
    ...(await readSection(c, tenantOf(c), 'integration', integrationKey(provider))),
  });
});

for (const [method, mode] of [
  ['patch', 'merge'],
  ['put', 'replace'],
] as const) {
  app[method](
    '/api/v1/integrations/:provider',
    validate('param', ProviderParam),
    validate('json', SECTIONS.integration.schema),
    async (c) => {
      const { provider } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await writeSection(c, tenantOf(c), 'integration', body, mode, integrationKey(provider));
      return c.json({ provider, ...written });
    },
  );
}

/** Disconnect: every field back to its default (secrets erased); config.updated when anything was set. */
app.delete('/api/v1/integrations/:provider', validate('param', ProviderParam), async (c) => {
  const { provider } = c.req.valid('param');
  await writeSection(c, tenantOf(c), 'integration', {}, 'replace', integrationKey(provider));
  return c.body(null, 204);
});

// --- telephony (secrets write-only); voice-widget settings belong to the calls function
app.get('/api/v1/telephony', async (c) => c.json(await readSection(c, tenantOf(c), 'telephony')));
app.patch('/api/v1/telephony', validate('json', SECTIONS.telephony.schema), async (c) =>
  c.json(await writeSection(c, tenantOf(c), 'telephony', c.req.valid('json'), 'merge')),
);
app.put('/api/v1/telephony', validate('json', SECTIONS.telephony.schema), async (c) =>
  c.json(await writeSection(c, tenantOf(c), 'telephony', c.req.valid('json'), 'replace')),
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
app.get('/api/v1/onboarding', async (c) => {
  const s = await readSection(c, tenantOf(c), 'onboarding');
  return c.json({ ...s, ...progress(s.settings) });
});
app.patch('/api/v1/onboarding', validate('json', SECTIONS.onboarding.schema), async (c) => {
  const s = await writeSection(c, tenantOf(c), 'onboarding', c.req.valid('json'), 'merge');
  return c.json({ ...s, ...progress(s.settings) });
});

// --- the tenant's own profile (plan changes go through /api/v1/billing/plan)
async function tenantProfile(c: Parameters<typeof tenantOf>[0], tenantId: string) {
  const t = await c
    .get('services')
    .db.selectFrom('tenants')
    .selectAll()
    .where('id', '=', tenantId)
    .executeTakeFirst();
  if (!t) throw notFound('Tenant');
  return {
    id: t.id,
    name: t.name,
    plan: t.plan,
    environment: t.environment,
    created_at: new Date(t.created_at).toISOString(),
    updated_at: new Date(t.updated_at).toISOString(),
  };
}

app.get('/api/v1/tenant', async (c) => c.json(await tenantProfile(c, tenantOf(c))));

app.patch('/api/v1/tenant', validate('json', TenantProfileBody), async (c) => {
  const tenantId = tenantOf(c);
  const { name } = c.req.valid('json');
  const { db } = c.get('services');
  const changed = await db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('tenants')
      .select('name')
      .where('id', '=', tenantId)
      .forUpdate()
      .executeTakeFirst();
    if (!before) throw notFound('Tenant');
    if (before.name === name) return false;
    await trx
      .updateTable('tenants')
      .set({ name, updated_at: new Date() })
      .where('id', '=', tenantId)
      .execute();
    await emitEvent(trx, tenantId, 'config.updated', {
      config: { section: 'tenant', changes: { name: { from: before.name, to: name } } },
    });
    return true;
  });
  if (changed) c.get('services').events.kick();
  return c.json(await tenantProfile(c, tenantId));
});

export type { SectionKind };
