import * as z from 'zod';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import { ProviderParam, SectionResponse, TenantProfileBody, WriteResponse } from './schemas';
import { GENERAL_SECTIONS, type GeneralSection, SECTIONS } from './sections';

const changed =
  'Emits one config.updated {config: {section, changes: {field: {from, to}}}} when something changed (nothing when not); secrets appear as [REDACTED].';
const TenantProfile = z.object({
  id: z.string(),
  name: z.string(),
  plan: z.string(),
  environment: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
const Onboarding = SectionResponse.extend({
  completed_steps: z.number(),
  total_steps: z.number(),
  completed: z.boolean(),
});
const Integration = SectionResponse.extend({ provider: z.string(), configured: z.boolean().optional() });
const ConfigSections = z.object({ sections: z.record(z.string(), SectionResponse) });
const IntegrationList = z.object({ integrations: z.array(Integration) });
const IntegrationChange = Integration.extend({ changes: WriteResponse.shape.changes });
const OnboardingChange = Onboarding.extend({ changes: WriteResponse.shape.changes });

// The general settings are served at /api/v1/config and at its alias /api/v1/configuration: each
// route is declared on its own below, with these texts (the same under both bases).
const allSections = {
  summary: 'All general settings',
  description: 'general, branding, channels and onboarding, with defaults filled in.',
  tags: ['Configuration'],
  responses: {
    200: {
      description: 'Settings by section',
      schema: ConfigSections,
    },
  },
};
// One realistic change per section for the reference's examples: a request that changes it and
// the answer the server gives (the section with defaults filled in, and the change).
const EXAMPLE_CHANGE: Record<GeneralSection, [field: string, to: unknown]> = {
  general: ['timezone', 'Europe/Lisbon'],
  branding: ['primary_color', '#0F766E'],
  channels: ['whatsapp_enabled', true],
  onboarding: ['team_invited', true],
};
const EXAMPLE_UPDATED_AT = '2026-03-14T09:41:07.038Z';
const changedSettings = (section: GeneralSection) => {
  const [field, to] = EXAMPLE_CHANGE[section];
  return { ...SECTIONS[section].defaults, [field]: to };
};
const writeExample = (section: GeneralSection) => {
  const [field, to] = EXAMPLE_CHANGE[section];
  return {
    section,
    settings: changedSettings(section),
    updated_at: EXAMPLE_UPDATED_AT,
    changes: { [field]: { from: (SECTIONS[section].defaults as Record<string, unknown>)[field], to } },
  };
};

const readSection = (section: GeneralSection) => ({
  summary: `Read ${section} settings`,
  tags: ['Configuration'],
  responses: {
    200: {
      description: 'The section',
      schema: SectionResponse,
      example: { section, settings: changedSettings(section), updated_at: EXAMPLE_UPDATED_AT },
    },
  },
});
const updateSection = <S extends GeneralSection>(section: S) => ({
  summary: `Update ${section} settings`,
  description: `Changes the fields given; null resets a field to its default. ${changed}`,
  tags: ['Configuration'],
  body: SECTIONS[section].schema,
  bodyExample: Object.fromEntries([EXAMPLE_CHANGE[section]]),
  responses: {
    200: {
      description: 'The section and what changed',
      schema: WriteResponse,
      example: writeExample(section),
    },
  },
});
const replaceSection = <S extends GeneralSection>(section: S) => ({
  summary: `Replace ${section} settings`,
  description: `Fields not given return to their defaults. ${changed}`,
  tags: ['Configuration'],
  body: SECTIONS[section].schema,
  bodyExample: changedSettings(section),
  responses: {
    200: {
      description: 'The section and what changed',
      schema: WriteResponse,
      example: writeExample(section),
    },
  },
});
/** A section's read, in words, under each base: the alias points to the same route of `/config`. */
const READ_TEXT: Record<GeneralSection, { config: string; configuration: string }> = {
  general: {
    config: 'The general settings: company name, support email, locale, time zone, business hours, defaults.',
    configuration:
      'The general settings (same as GET /api/v1/config/general, under the `configuration` prefix).',
  },
  branding: {
    config: 'The branding settings: logo, primary color, widget greeting, help-center title.',
    configuration: 'The branding settings (same as GET /api/v1/config/branding).',
  },
  channels: {
    config: 'Which channels are on (email, chat, phone, WhatsApp) and the default one.',
    configuration: 'The channel settings (same as GET /api/v1/config/channels).',
  },
  onboarding: {
    config: 'The onboarding checklist as a configuration section.',
    configuration: 'The onboarding section (same as GET /api/v1/config/onboarding).',
  },
};

/**
 * The general settings' bases: `/api/v1/config`, and `/api/v1/configuration`, the same routes
 * under the older name, kept for the clients that call it and marked deprecated in the reference.
 */
const BASES = {
  config: { path: '/api/v1/config', name: 'Config' },
  configuration: { path: '/api/v1/configuration', name: 'Configuration', deprecated: true as const },
};
type Base = keyof typeof BASES;
const capitalized = (s: string) => `${s[0]?.toUpperCase()}${s.slice(1)}`;

/** One section's routes under one base: read it, change the fields given, replace it. */
export function sectionRoutes<S extends GeneralSection>(base: Base, section: S) {
  const { path, name, ...alias } = BASES[base];
  const id = `${name}${capitalized(section)}`;
  const write = { emits: ['config.updated'] as const, access: { role: 'tenant_admin' } as const, ...alias };
  return {
    read: defineRoute({
      operationId: `get${id}`,
      description: READ_TEXT[section][base],
      method: 'get',
      path: `${path}/${section}`,
      ...alias,
      ...readSection(section),
    }),
    update: defineRoute({
      operationId: `update${id}`,
      method: 'patch',
      path: `${path}/${section}`,
      ...write,
      ...updateSection(section),
    }),
    replace: defineRoute({
      operationId: `replace${id}`,
      method: 'put',
      path: `${path}/${section}`,
      ...write,
      ...replaceSection(section),
    }),
  };
}

/** Under each base: every section at once, then each section's routes (`app.ts` serves them all). */
export const generalSettings = (Object.keys(BASES) as Base[]).map((base) => ({
  all: defineRoute({
    operationId: `get${BASES[base].name}`,
    method: 'get',
    path: BASES[base].path,
    ...(base === 'configuration' ? { deprecated: true as const } : {}),
    ...allSections,
  }),
  sections: GENERAL_SECTIONS.map((section) => ({ section, ...sectionRoutes(base, section) })),
}));

export const listIntegrations = defineRoute({
  operationId: 'listIntegrations',
  method: 'get',
  path: '/api/v1/integrations',
  summary: 'List integrations',
  description:
    'Every provider with its settings; secrets (api_token, webhook_secret) masked. Needs config:read and config:write.',
  tags: ['Integrations'],
  responses: {
    200: { description: 'Integrations', schema: IntegrationList },
  },
});

export const getIntegration = defineRoute({
  operationId: 'getIntegration',
  description:
    'One integration’s settings, secrets masked, and whether it is configured. An unknown provider is 422.',
  method: 'get',
  path: '/api/v1/integrations/{provider}',
  summary: 'One integration',
  tags: ['Integrations'],
  params: ProviderParam,
  responses: { 200: { description: 'The integration', schema: Integration } },
});

const integrationWrite = {
  description: `Secrets are write-only: stored encrypted, read back masked. ${changed}`,
  tags: ['Integrations'],
  params: ProviderParam,
  body: SECTIONS.integration.schema,
  responses: {
    200: {
      description: 'The integration and what changed',
      schema: IntegrationChange,
    },
  },
};

export const updateIntegration = defineRoute({
  operationId: 'updateIntegration',
  emits: ['config.updated'],
  method: 'patch',
  path: '/api/v1/integrations/{provider}',
  access: { role: 'tenant_admin' },
  summary: 'Update an integration',
  ...integrationWrite,
});

export const replaceIntegration = defineRoute({
  operationId: 'replaceIntegration',
  emits: ['config.updated'],
  method: 'put',
  path: '/api/v1/integrations/{provider}',
  access: { role: 'tenant_admin' },
  summary: 'Replace an integration',
  ...integrationWrite,
});

export const disconnectIntegration = defineRoute({
  operationId: 'disconnectIntegration',
  emits: ['config.updated'],
  method: 'delete',
  path: '/api/v1/integrations/{provider}',
  access: { role: 'tenant_admin' },
  summary: 'Disconnect an integration',
  description: `Every field back to its default, secrets erased. ${changed}`,
  tags: ['Integrations'],
  params: ProviderParam,
  responses: { 204: { description: 'Disconnected' } },
});

export const getTelephony = defineRoute({
  operationId: 'getTelephony',
  method: 'get',
  path: '/api/v1/telephony',
  summary: 'Telephony settings',
  description: 'Needs config:read and config:write; auth_token and sip_uri are masked.',
  tags: ['Telephony'],
  responses: { 200: { description: 'Telephony settings', schema: SectionResponse } },
});

const telephonyWrite = {
  description: changed,
  tags: ['Telephony'],
  body: SECTIONS.telephony.schema,
  responses: { 200: { description: 'Telephony settings and what changed', schema: WriteResponse } },
};

export const updateTelephony = defineRoute({
  operationId: 'updateTelephony',
  emits: ['config.updated'],
  method: 'patch',
  path: '/api/v1/telephony',
  access: { role: 'tenant_admin' },
  summary: 'Update telephony settings',
  ...telephonyWrite,
});

export const replaceTelephony = defineRoute({
  operationId: 'replaceTelephony',
  emits: ['config.updated'],
  method: 'put',
  path: '/api/v1/telephony',
  access: { role: 'tenant_admin' },
  summary: 'Replace telephony settings',
  ...telephonyWrite,
});

export const getOnboarding = defineRoute({
  operationId: 'getOnboarding',
  description: 'The onboarding checklist: which steps are done, how many in all.',
  method: 'get',
  path: '/api/v1/onboarding',
  summary: 'Onboarding checklist',
  tags: ['Onboarding'],
  responses: { 200: { description: 'Checklist with progress', schema: Onboarding } },
});

export const updateOnboarding = defineRoute({
  operationId: 'updateOnboarding',
  emits: ['config.updated'],
  method: 'patch',
  path: '/api/v1/onboarding',
  access: { role: 'tenant_admin' },
  summary: 'Tick onboarding steps',
  description: changed,
  tags: ['Onboarding'],
  body: SECTIONS.onboarding.schema,
  responses: {
    200: {
      description: 'Checklist with progress',
      schema: OnboardingChange,
    },
  },
});

export const getTenant = defineRoute({
  operationId: 'getCurrentTenant',
  description: 'The signed-in tenant’s profile: name, plan, environment.',
  method: 'get',
  path: '/api/v1/tenant',
  summary: "The tenant's profile",
  tags: ['Tenant'],
  responses: { 200: { description: 'Profile', schema: TenantProfile } },
});

export const renameTenant = defineRoute({
  operationId: 'renameCurrentTenant',
  emits: ['config.updated'],
  method: 'patch',
  path: '/api/v1/tenant',
  access: { role: 'tenant_admin' },
  summary: 'Rename the tenant',
  description:
    'Emits config.updated (section tenant) when the name changes. The plan changes through /api/v1/billing/plan.',
  tags: ['Tenant'],
  body: TenantProfileBody,
  responses: { 200: { description: 'Profile', schema: TenantProfile } },
});

export const components = defineComponents({
  output: {
    ConfigSection: SectionResponse,
    ConfigSectionChange: WriteResponse,
    ConfigSections,
    Integration,
    IntegrationList,
    IntegrationChange,
    Onboarding,
    OnboardingChange,
    TenantProfile,
  },
  input: {
    GeneralSettings: SECTIONS.general.schema,
    BrandingSettings: SECTIONS.branding.schema,
    ChannelsSettings: SECTIONS.channels.schema,
    OnboardingSettings: SECTIONS.onboarding.schema,
    TelephonySettings: SECTIONS.telephony.schema,
    IntegrationSettings: SECTIONS.integration.schema,
    TenantProfileUpdate: TenantProfileBody,
  },
});
