import { z } from 'zod';
import { defineComponents, defineRoutes, type RouteDoc } from '../../shared/http/openapi';
import { GENERAL_SECTIONS } from './app';
import { ProviderParam, SectionResponse, TenantProfileBody, WriteResponse } from './schemas';
import { SECTIONS } from './sections';

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

const sectionRoutes: RouteDoc[] = ['/api/v1/config', '/api/v1/configuration'].flatMap((base) => [
  {
    method: 'get' as const,
    path: base,
    summary: 'All general settings',
    description: 'general, branding, channels and onboarding, with defaults filled in.',
    tags: ['Configuration'],
    responses: {
      200: {
        description: 'Settings by section',
        schema: ConfigSections,
      },
    },
  },
  ...GENERAL_SECTIONS.flatMap((section): RouteDoc[] => [
    {
      method: 'get',
      path: `${base}/${section}`,
      summary: `Read ${section} settings`,
      tags: ['Configuration'],
      responses: { 200: { description: 'The section', schema: SectionResponse } },
    },
    {
      method: 'patch',
      path: `${base}/${section}`,
      summary: `Update ${section} settings`,
      description: `Changes the fields given; null resets a field to its default. ${changed}`,
      tags: ['Configuration'],
      body: SECTIONS[section].schema,
      responses: { 200: { description: 'The section and what changed', schema: WriteResponse } },
    },
    {
      method: 'put',
      path: `${base}/${section}`,
      summary: `Replace ${section} settings`,
      description: `Fields not given return to their defaults. ${changed}`,
      tags: ['Configuration'],
      body: SECTIONS[section].schema,
      responses: { 200: { description: 'The section and what changed', schema: WriteResponse } },
    },
  ]),
]);

export const routes = defineRoutes([
  ...sectionRoutes,
  {
    method: 'get',
    path: '/api/v1/integrations',
    summary: 'List integrations',
    description:
      'Every provider with its settings; secrets (api_token, webhook_secret) masked. Needs config:read and config:write.',
    tags: ['Integrations'],
    responses: {
      200: { description: 'Integrations', schema: IntegrationList },
    },
  },
  {
    method: 'get',
    path: '/api/v1/integrations/{provider}',
    summary: 'One integration',
    tags: ['Integrations'],
    params: ProviderParam,
    responses: { 200: { description: 'The integration', schema: Integration } },
  },
  ...(['patch', 'put'] as const).map((method) => ({
    method,
    path: '/api/v1/integrations/{provider}',
    summary: method === 'patch' ? 'Update an integration' : 'Replace an integration',
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
  })),
  {
    method: 'delete',
    path: '/api/v1/integrations/{provider}',
    summary: 'Disconnect an integration',
    description: `Every field back to its default, secrets erased. ${changed}`,
    tags: ['Integrations'],
    params: ProviderParam,
    responses: { 204: { description: 'Disconnected' } },
  },
  {
    method: 'get',
    path: '/api/v1/telephony',
    summary: 'Telephony settings',
    description: 'Needs config:read and config:write; auth_token and sip_uri are masked.',
    tags: ['Telephony'],
    responses: { 200: { description: 'Telephony settings', schema: SectionResponse } },
  },
  ...(['patch', 'put'] as const).map((method) => ({
    method,
    path: '/api/v1/telephony',
    summary: method === 'patch' ? 'Update telephony settings' : 'Replace telephony settings',
    description: changed,
    tags: ['Telephony'],
    body: SECTIONS.telephony.schema,
    responses: { 200: { description: 'Telephony settings and what changed', schema: WriteResponse } },
  })),
  {
    method: 'get',
    path: '/api/v1/onboarding',
    summary: 'Onboarding checklist',
    tags: ['Onboarding'],
    responses: { 200: { description: 'Checklist with progress', schema: Onboarding } },
  },
  {
    method: 'patch',
    path: '/api/v1/onboarding',
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
  },
  {
    method: 'get',
    path: '/api/v1/tenant',
    summary: "The tenant's profile",
    tags: ['Tenant'],
    responses: { 200: { description: 'Profile', schema: TenantProfile } },
  },
  {
    method: 'patch',
    path: '/api/v1/tenant',
    summary: 'Rename the tenant',
    description:
      'Emits config.updated (section tenant) when the name changes. The plan changes through /api/v1/billing/plan.',
    tags: ['Tenant'],
    body: TenantProfileBody,
    responses: { 200: { description: 'Profile', schema: TenantProfile } },
  },
]);

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
