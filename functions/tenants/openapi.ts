import { z } from 'zod';
import { defineRoutes } from '../../shared/http/openapi';
import { CreatedTenant, CreateTenantBody, Tenant, TenantIdParam } from './schemas';

const example = {
  id: 'ten_01J9Z3',
  name: 'Acme',
  plan: 'pro',
  environment: 'production',
  api_key_prefix: 'itsm_sk_live_',
  created_at: '2026-11-21T10:00:00.000Z',
  updated_at: '2026-11-21T10:00:00.000Z',
};
const Detail = z.object({ detail: z.string() });

export const routes = defineRoutes([
  {
    method: 'post',
    path: '/api/v1/tenants',
    summary: 'Create a tenant',
    description:
      "Platform operators only: a dashboard session with the `super_admin` role. Sandbox tenants get `itsm_sk_test_` keys. With `admin_email`, that address becomes the tenant's first `tenant_admin`: the invite is mailed and shown once in `invite` (valid 7 days, single use; POST /api/v1/auth/accept-invite).",
    tags: ['Tenants'],
    body: CreateTenantBody,
    responses: { 201: { description: 'The created tenant', schema: CreatedTenant, example } },
  },
  {
    method: 'get',
    path: '/api/v1/tenants/{tenant_id}',
    summary: 'Get a tenant',
    description: "The tenant's own admins (tenant_admin) or a super_admin; anyone else gets 404.",
    tags: ['Tenants'],
    params: TenantIdParam,
    responses: {
      200: { description: 'The tenant', schema: Tenant, example },
      404: {
        description: 'Unknown tenant, or not yours',
        schema: Detail,
        example: { detail: 'Tenant not found' },
      },
    },
  },
]);
