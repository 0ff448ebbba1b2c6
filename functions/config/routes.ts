import { z } from 'zod';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import { ProviderParam, SectionResponse, TenantProfileBody, WriteResponse } from './schemas';
import { type GeneralSection, SECTIONS } from './sections';

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
export const getConfig = defineRoute({
  method: 'get',
  path: '/api/v1/config',
  access: { surface: 'api', scopes: ['config:read'] },
  ...allSections,
});

export const getConfigGeneral = defineRoute({
  method: 'get',
  path: '/api/v1/config/general',
  access: { surface: 'api', scopes: ['config:read'] },
  ...readSection('general'),
});

export const updateConfigGeneral = defineRoute({
  method: 'patch',
  path: '/api/v1/config/general',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...updateSection('general'),
});

export const replaceConfigGeneral = defineRoute({
  method: 'put',
  path: '/api/v1/config/general',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...replaceSection('general'),
});

export const getConfigBranding = defineRoute({
  method: 'get',
  path: '/api/v1/config/branding',
  access: { surface: 'api', scopes: ['config:read'] },
  ...readSection('branding'),
});

export const updateConfigBranding = defineRoute({
  method: 'patch',
  path: '/api/v1/config/branding',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...updateSection('branding'),
});

export const replaceConfigBranding = defineRoute({
  method: 'put',
  path: '/api/v1/config/branding',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...replaceSection('branding'),
});

export const getConfigChannels = defineRoute({
  method: 'get',
  path: '/api/v1/config/channels',
  access: { surface: 'api', scopes: ['config:read'] },
  ...readSection('channels'),
});

export const updateConfigChannels = defineRoute({
  method: 'patch',
  path: '/api/v1/config/channels',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...updateSection('channels'),
});

export const replaceConfigChannels = defineRoute({
  method: 'put',
  path: '/api/v1/config/channels',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...replaceSection('channels'),
});

export const getConfigOnboarding = defineRoute({
  method: 'get',
  path: '/api/v1/config/onboarding',
  access: { surface: 'api', scopes: ['config:read'] },
  ...readSection('onboarding'),
});

export const updateConfigOnboarding = defineRoute({
  method: 'patch',
  path: '/api/v1/config/onboarding',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...updateSection('onboarding'),
});

export const replaceConfigOnboarding = defineRoute({
  method: 'put',
  path: '/api/v1/config/onboarding',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...replaceSection('onboarding'),
});

export const getConfiguration = defineRoute({
  method: 'get',
  path: '/api/v1/configuration',
  access: { surface: 'api', scopes: ['config:read'] },
  ...allSections,
});

export const getConfigurationGeneral = defineRoute({
  method: 'get',
  path: '/api/v1/configuration/general',
  access: { surface: 'api', scopes: ['config:read'] },
  ...readSection('general'),
});

export const updateConfigurationGeneral = defineRoute({
  method: 'patch',
  path: '/api/v1/configuration/general',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...updateSection('general'),
});

export const replaceConfigurationGeneral = defineRoute({
  method: 'put',
  path: '/api/v1/configuration/general',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...replaceSection('general'),
});

export const getConfigurationBranding = defineRoute({
  method: 'get',
  path: '/api/v1/configuration/branding',
  access: { surface: 'api', scopes: ['config:read'] },
  ...readSection('branding'),
});

export const updateConfigurationBranding = defineRoute({
  method: 'patch',
  path: '/api/v1/configuration/branding',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...updateSection('branding'),
});

export const replaceConfigurationBranding = defineRoute({
  method: 'put',
  path: '/api/v1/configuration/branding',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...replaceSection('branding'),
});

export const getConfigurationChannels = defineRoute({
  method: 'get',
  path: '/api/v1/configuration/channels',
  access: { surface: 'api', scopes: ['config:read'] },
  ...readSection('channels'),
});

export const updateConfigurationChannels = defineRoute({
  method: 'patch',
  path: '/api/v1/configuration/channels',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...updateSection('channels'),
});

export const replaceConfigurationChannels = defineRoute({
  method: 'put',
  path: '/api/v1/configuration/channels',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...replaceSection('channels'),
});

export const getConfigurationOnboarding = defineRoute({
  method: 'get',
  path: '/api/v1/configuration/onboarding',
  access: { surface: 'api', scopes: ['config:read'] },
  ...readSection('onboarding'),
});

export const updateConfigurationOnboarding = defineRoute({
  method: 'patch',
  path: '/api/v1/configuration/onboarding',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...updateSection('onboarding'),
});

export const replaceConfigurationOnboarding = defineRoute({
  method: 'put',
  path: '/api/v1/configuration/onboarding',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  ...replaceSection('onboarding'),
});

export const listIntegrations = defineRoute({
  method: 'get',
  path: '/api/v1/integrations',
  access: { surface: 'api', scopes: ['config:read', 'config:write'] },
  summary: 'List integrations',
  description:
    'Every provider with its settings; secrets (api_token, webhook_secret) masked. Needs config:read and config:write.',
  tags: ['Integrations'],
  responses: {
    200: { description: 'Integrations', schema: IntegrationList },
  },
});

export const getIntegration = defineRoute({
  method: 'get',
  path: '/api/v1/integrations/{provider}',
  access: { surface: 'api', scopes: ['config:read', 'config:write'] },
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
  method: 'patch',
  path: '/api/v1/integrations/{provider}',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  summary: 'Update an integration',
  ...integrationWrite,
});

export const replaceIntegration = defineRoute({
  method: 'put',
  path: '/api/v1/integrations/{provider}',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  summary: 'Replace an integration',
  ...integrationWrite,
});

export const disconnectIntegration = defineRoute({
  method: 'delete',
  path: '/api/v1/integrations/{provider}',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  summary: 'Disconnect an integration',
  description: `Every field back to its default, secrets erased. ${changed}`,
  tags: ['Integrations'],
  params: ProviderParam,
  responses: { 204: { description: 'Disconnected' } },
});

export const getTelephony = defineRoute({
  method: 'get',
  path: '/api/v1/telephony',
  access: { surface: 'api', scopes: ['config:read', 'config:write'] },
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
  method: 'patch',
  path: '/api/v1/telephony',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  summary: 'Update telephony settings',
  ...telephonyWrite,
});

export const replaceTelephony = defineRoute({
  method: 'put',
  path: '/api/v1/telephony',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  summary: 'Replace telephony settings',
  ...telephonyWrite,
});

export const getOnboarding = defineRoute({
  method: 'get',
  path: '/api/v1/onboarding',
  access: { surface: 'api', scopes: ['config:read'] },
  summary: 'Onboarding checklist',
  tags: ['Onboarding'],
  responses: { 200: { description: 'Checklist with progress', schema: Onboarding } },
});

export const updateOnboarding = defineRoute({
  method: 'patch',
  path: '/api/v1/onboarding',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
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
  method: 'get',
  path: '/api/v1/tenant',
  access: { surface: 'api', scopes: ['config:read'] },
  summary: "The tenant's profile",
  tags: ['Tenant'],
  responses: { 200: { description: 'Profile', schema: TenantProfile } },
});

export const renameTenant = defineRoute({
  method: 'patch',
  path: '/api/v1/tenant',
  access: { surface: 'api', scopes: ['config:write'], role: 'tenant_admin' },
  summary: 'Rename the tenant',
  description:
    'Emits config.updated (section tenant) when the name changes. The plan changes through /api/v1/billing/plan.',
  tags: ['Tenant'],
  body: TenantProfileBody,
  responses: { 200: { description: 'Profile', schema: TenantProfile } },
});

/** In reading order, for the reference. */
export const routes = [
  getConfig,
  getConfigGeneral,
  updateConfigGeneral,
  replaceConfigGeneral,
  getConfigBranding,
  updateConfigBranding,
  replaceConfigBranding,
  getConfigChannels,
  updateConfigChannels,
  replaceConfigChannels,
  getConfigOnboarding,
  updateConfigOnboarding,
  replaceConfigOnboarding,
  getConfiguration,
  getConfigurationGeneral,
  updateConfigurationGeneral,
  replaceConfigurationGeneral,
  getConfigurationBranding,
  updateConfigurationBranding,
  replaceConfigurationBranding,
  getConfigurationChannels,
  updateConfigurationChannels,
  replaceConfigurationChannels,
  getConfigurationOnboarding,
  updateConfigurationOnboarding,
  replaceConfigurationOnboarding,
  listIntegrations,
  getIntegration,
  updateIntegration,
  replaceIntegration,
  disconnectIntegration,
  getTelephony,
  updateTelephony,
  replaceTelephony,
  getOnboarding,
  updateOnboarding,
  getTenant,
  renameTenant,
];

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
