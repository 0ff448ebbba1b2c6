import * as z from 'zod';
import { smtpLimits } from '../../shared/http/email';
import { requiredName } from '../../shared/http/names';
import { pageQuery } from '../../shared/http/pagination';
import { CreateTicketBody, TICKET_STATUSES } from '../../shared/tickets/schemas';

const TenantId = z.string().min(1).max(64);
const Email = z
  .string()
  .trim()
  .toLowerCase()
  .email()
  .max(320)
  .refine(...smtpLimits);

export const RegisterBody = z.strictObject({
  tenant_id: TenantId,
  email: Email,
  password: z.string().min(8).max(200),
  name: requiredName(200).nullish(),
});
export const LoginBody = z.strictObject({
  tenant_id: TenantId,
  email: Email,
  password: z.string().min(1).max(200),
});
export const MagicLinkBody = z.strictObject({ tenant_id: TenantId, email: Email });
export const MagicLinkVerifyBody = z.strictObject({ token: z.string().min(1).max(200) });

export const TokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('bearer'),
  expires_in: z.number(),
  user: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }),
});
/** GET /api/v1/app/me */
export const EndUserProfile = z.object({
  id: z.string().describe('The end user (`usr_…`)'),
  email: z.string().describe('Their email address'),
  name: z.string().nullable().describe('Their name'),
  created_at: z.string().describe('When the account was made (ISO 8601 UTC)'),
  tenant_id: z.string().describe('The tenant whose help center it belongs to'),
});
/** The same for every address: the link goes only by mail. */
export const MagicLinkResponse = z.object({
  detail: z.string(),
  expires_in: z.number(),
});

export const AppTicketsQuery = pageQuery({ defaultLimit: 20, maxLimit: 100 }).extend({
  /** one of the ticket statuses; anything else is a 422, as on the agents' list, not an empty page */
  status: z
    .enum(TICKET_STATUSES)
    .optional()
    .describe("Only the end user's tickets in this status (one value)"),
});
export const AppTicketParam = z.object({
  id: z.string().min(1).max(64).describe("The ticket id (`tkt_…`): one of the end user's own tickets"),
});

/** What an end user may set: no status, assignee, requester or source (those are the agents'). */
export const AppCreateTicketBody = CreateTicketBody.pick({
  subject: true,
  description: true,
  priority: true,
  type: true,
  tags: true,
});
