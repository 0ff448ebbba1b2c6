import * as z from 'zod';
import { DEVELOPMENT_ONLY } from '../../shared/auth/accounts';
import { smtpLimits } from '../../shared/http/email';
import { mailedName } from '../../shared/http/names';
import { pageQuery } from '../../shared/http/pagination';

export const DIRECTORY_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;

export const RequestersQuery = pageQuery(DIRECTORY_PAGE).extend({
  email: z
    .string()
    .max(320)
    .optional()
    .describe('Only requesters with this email address (exact, case-insensitive)'),
  search: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Only requesters whose email or name holds this text (case-insensitive)'),
});
export const TenantUsersQuery = pageQuery(DIRECTORY_PAGE).extend({
  role: z.enum(['agent', 'tenant_admin']).optional().describe('Only tenant users with this role'),
  search: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Only tenant users whose email or name holds this text (case-insensitive)'),
});

const id = z.string().min(1).max(64);
export const RequesterIdParam = z.object({ id: id.describe('The requester id (`req_…`)') });
export const TenantUserIdParam = z.object({ id: id.describe('The tenant user id (`tus_…`)') });
export const InvitationIdParam = z.object({
  id: id.describe('The invitation id: the invited tenant user (`tus_…`)'),
});

export const CreateTenantUserBody = z.strictObject({
  email: z
    .string()
    .email()
    .max(320)
    .refine(...smtpLimits),
  name: mailedName(200).nullish(),
  role: z.enum(['agent', 'tenant_admin']).default('agent'),
});
export const UpdateTenantUserBody = z.strictObject({
  name: mailedName(200).nullish(),
  role: z.enum(['agent', 'tenant_admin']).optional(),
});

export const Requester = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  has_password: z.boolean(),
  ticket_count: z.number(),
  created_at: z.string(),
});
export const TenantUser = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  role: z.enum(['agent', 'tenant_admin']),
  created_at: z.string(),
  updated_at: z.string(),
});

/** A pending invitation: a tenant user who has not accepted yet (their id is the invitation's). */
export const Invitation = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(['agent', 'tenant_admin']),
  expires_at: z.string().describe('when the current invite link lapses (may be past: resend it)'),
  created_at: z.string(),
});
export const InvitationsQuery = pageQuery(DIRECTORY_PAGE);

/** POST /api/v1/tenant/users: the user and their invite (mailed; its token and link returned in development only). */
const InviteLink = z.object({
  token: z
    .string()
    .optional()
    .describe(`POST /api/v1/auth/accept-invite {token, password}; single use, 7 days. ${DEVELOPMENT_ONLY}`),
  accept_url: z.string().optional().describe(`the console page that accepts it. ${DEVELOPMENT_ONLY}`),
  expires_at: z.string(),
});
export const InvitedTenantUser = TenantUser.extend({ invite: InviteLink });
/** POST /api/v1/tenant/invitations/{id}/resend: the invitation and its new link (the old one is void). */
export const ResentInvitation = Invitation.extend({ invite: InviteLink });
