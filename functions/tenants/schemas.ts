import { z } from 'zod';

export const TENANT_PLANS = ['free', 'starter', 'pro', 'enterprise'] as const;
export const TENANT_ENVIRONMENTS = ['production', 'staging', 'sandbox'] as const;

export const CreateTenantBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  plan: z.enum(TENANT_PLANS),
  environment: z.enum(TENANT_ENVIRONMENTS),
});

export const TenantIdParam = z.object({ tenant_id: z.string().min(1).max(64) });

/** The tenant record (responses). */
export const Tenant = z.object({
  id: z.string(),
  name: z.string(),
  plan: z.enum(TENANT_PLANS),
  environment: z.enum(TENANT_ENVIRONMENTS),
  api_key_prefix: z
    .enum(['itsm_sk_live_', 'itsm_sk_test_'])
    .describe('keys issued for this tenant start with this'),
  created_at: z.string(),
  updated_at: z.string(),
});
