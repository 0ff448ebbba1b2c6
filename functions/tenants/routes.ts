import { ErrorBody } from '../../shared/http/error-body';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import { CreatedTenant, CreateTenantBody, Tenant, TenantIdParam } from './schemas';

const example = {
  id: 'ten_0mh1k4d7qAc8NzR2wLx5Tb',
  name: 'Acme',
  plan: 'pro',
  environment: 'production',
  api_key_prefix: 'itsm_sk_live_',
  created_at: '2026-03-14T09:26:53.412Z',
  updated_at: '2026-03-14T09:26:53.412Z',
};

export const createTenant = defineRoute({
  operationId: 'createTenant',
  method: 'post',
  path: '/api/v1/tenants',
  access: { role: 'super_admin' },
  summary: 'Create a tenant',
  description:
    "Platform operators only: a dashboard session with the `super_admin` role. Sandbox tenants get `itsm_sk_test_` keys. With `admin_email`, that address becomes the tenant's first `tenant_admin`: the invite is mailed (valid 7 days, single use; POST /api/v1/auth/accept-invite); `invite.token` and `invite.accept_url` are returned only when the server runs with APP_ENV=development.",
  tags: ['Tenants'],
  body: CreateTenantBody,
  responses: { 201: { description: 'The created tenant', schema: CreatedTenant, example } },
});

export const getTenant = defineRoute({
  operationId: 'getTenant',
  method: 'get',
  path: '/api/v1/tenants/{tenant_id}',
  access: { role: 'tenant_admin' },
  summary: 'Get a tenant',
  description: "The tenant's own admins (tenant_admin) or a super_admin; anyone else gets 404.",
  tags: ['Tenants'],
  params: TenantIdParam,
  responses: {
    200: { description: 'The tenant', schema: Tenant, example },
    404: {
      description: 'Unknown tenant, or not yours',
      schema: ErrorBody,
      example: { detail: 'Tenant not found' },
    },
  },
});

export const components = defineComponents({
  docs: {
    Tenant: {
      description:
        'A customer of the platform: its data, keys and limits are separate from every other tenant.',
      fields: {
        id: 'Tenant id (`ten_…`)',
        name: 'Name',
        plan: 'Plan: quotas and rate limits follow it',
        environment: '`production`, or `sandbox` (keys `itsm_sk_test_…`)',
        created_at: 'When it was created (ISO 8601 UTC)',
        updated_at: 'Last change',
      },
    },
  },
  output: { Tenant, CreatedTenant },
  input: { TenantCreate: CreateTenantBody },
});
