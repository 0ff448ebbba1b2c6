import * as z from 'zod';
import { DEVELOPMENT_ONLY } from '../../shared/auth/accounts';
import { smtpLimits } from '../../shared/http/email';
import { mailedName } from '../../shared/http/names';

export const TENANT_PLANS = ['free', 'starter', 'pro', 'enterprise'] as const;
export const TENANT_ENVIRONMENTS = ['production', 'staging', 'sandbox'] as const;

export const CreateTenantBody = z.strictObject({
  name: mailedName(200),
  plan: z.enum(TENANT_PLANS),
  environment: z.enum(TENANT_ENVIRONMENTS),
  /** the first tenant_admin: invited by mail (the response carries its link in development only) */
  admin_email: z
    .string()
    .trim()
    .toLowerCase()
    .email()
    .max(320)
    .refine(...smtpLimits)
    .optional(),
});

export const TenantIdParam = z.object({
  tenant_id: z.string().min(1).max(64).describe('The tenant id (`ten_…`)'),
});

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

/** The first admin's invite (shared/auth/accounts.ts): mailed; its token and link returned in development only. */
export const Invite = z.object({
  user_id: z.string(),
  email: z.string(),
  token: z
    .string()
    .optional()
    .describe(`POST /api/v1/auth/accept-invite {token, password}; single use. ${DEVELOPMENT_ONLY}`),
  accept_url: z.string().optional().describe(`the console page that accepts it. ${DEVELOPMENT_ONLY}`),
  expires_at: z.string(),
});
export const CreatedTenant = Tenant.extend({ invite: Invite.optional() });
