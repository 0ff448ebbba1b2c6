import type { CaseContext, KeyedCase } from './types';

// Configuration and billing PATCHes. A re-run of a settings PATCH changes nothing the second time
// (the fields already hold their values), so no new config.updated: what gives it away is its
// answer (`changes: {}`, a moved updated_at) and the missing Idempotent-Replayed. The effects
// count the config.updated events (one per effective change) and, for payment settings, which
// are rewritten on every write, the row's updated_at.

/** config.updated events recorded for the case's tenant */
const configEvents = async ({ h, t }: CaseContext) =>
  Number(
    (
      await h.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', t.id)
        .where('event_type', '=', 'config.updated')
        .executeTakeFirstOrThrow()
    ).n,
  );

/** One change to each general section, as sent to PATCH /api/v1/{config,configuration}/<section> */
const SECTION_CHANGES = {
  General: { timezone: 'Europe/Lisbon', company_name: 'Crash Co' },
  Branding: { primary_color: '#0F766E', widget_greeting: 'Hello again' },
  Channels: { whatsapp_enabled: true, default_channel: 'chat' },
  Onboarding: { team_invited: true },
} as const;

const sectionCases: KeyedCase[] = (['config', 'configuration'] as const).flatMap((base) =>
  Object.entries(SECTION_CHANGES).map(
    ([section, body]): KeyedCase => ({
      operationId: `update${base === 'config' ? 'Config' : 'Configuration'}${section}`,
      prepare: async ({ key }) => ({
        method: 'PATCH',
        path: `/api/v1/${base}/${section.toLowerCase()}`,
        body,
        apiKey: await key(['config:read', 'config:write']),
      }),
      effects: configEvents,
    }),
  ),
);

export const settingsCases: KeyedCase[] = [
  ...sectionCases,
  {
    operationId: 'updateIntegration',
    prepare: async ({ key }) => ({
      method: 'PATCH',
      path: '/api/v1/integrations/slack',
      body: { enabled: true, channel: '#support', api_token: 'xoxb-crash-1234' },
      apiKey: await key(['config:read', 'config:write']),
    }),
    effects: configEvents,
  },
  {
    operationId: 'updateTelephony',
    prepare: async ({ key }) => ({
      method: 'PATCH',
      path: '/api/v1/telephony',
      body: { provider: 'twilio', phone_numbers: ['+15551234567'], auth_token: 'tok-crash-9876' },
      apiKey: await key(['config:read', 'config:write']),
    }),
    effects: configEvents,
  },
  {
    operationId: 'updateOnboarding',
    prepare: async ({ key }) => ({
      method: 'PATCH',
      path: '/api/v1/onboarding',
      body: { profile_completed: true, first_ticket: true },
      apiKey: await key(['config:read', 'config:write']),
    }),
    effects: configEvents,
  },
  {
    // a re-run renames nothing (same name, same updated_at): only Idempotent-Replayed tells it
    operationId: 'renameCurrentTenant',
    prepare: async ({ key }) => ({
      method: 'PATCH',
      path: '/api/v1/tenant',
      body: { name: 'Renamed after a crash' },
      apiKey: await key(['config:read', 'config:write']),
    }),
    effects: configEvents,
  },
  {
    // the case's tenant is on enterprise; a re-run finds pro already set: only Idempotent-Replayed tells it
    operationId: 'changePlan',
    prepare: async ({ key }) => ({
      method: 'PATCH',
      path: '/api/v1/billing/plan',
      body: { plan: 'pro' },
      apiKey: await key(['billing:read', 'billing:write']),
    }),
    effects: configEvents,
  },
  {
    operationId: 'updatePaymentSettings',
    prepare: async ({ key }) => ({
      method: 'PATCH',
      path: '/api/v1/billing/payment-settings',
      body: { billing_email: 'billing@crash.example', tax_id: 'DE123456789' },
      apiKey: await key(['billing:read', 'billing:write']),
    }),
    // every write stamps the row anew: a second run moves it
    effects: async ({ h, t }) => {
      const row = await h.db
        .selectFrom('billing_accounts')
        .select('updated_at')
        .where('tenant_id', '=', t.id)
        .executeTakeFirstOrThrow();
      return new Date(row.updated_at).getTime();
    },
  },
];
