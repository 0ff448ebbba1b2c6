import * as z from 'zod';
import { smtpLimits } from '../../shared/http/email';
import { requiredName } from '../../shared/http/names';

export const TENANT_PLANS = ['free', 'starter', 'pro', 'enterprise'] as const;
export const TENANT_ENVIRONMENTS = ['production', 'staging', 'sandbox'] as const;

export const CreateTenantBody = z.strictObject({
  name: requiredName(200),
  plan: z.enum(TENANT_PLANS),
  environment: z.enum(TENANT_ENVIRONMENTS),
  /** the first tenant_admin: invited by mail, and the response carries the one-time invite */
  admin_email: z
    .string()
    .trim()
    .toLowerCase()
    .email()
    .max(320)
    .refine(...smtpLimits)
    .optional(),
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

/** A one-time invite (shared/auth/accounts.ts): the token and its link are shown only here. */
export const Invite = z.object({
  user_id: z.string(),
  email: z.string(),
  token: z.string().describe('POST /api/v1/auth/accept-invite {token, password}; single use'),
  accept_url: z.string().describe('the console page that accepts it'),
  expires_at: z.string(),
});
export const CreatedTenant = Tenant.extend({ invite: Invite.optional() });
