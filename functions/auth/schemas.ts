import * as z from 'zod';
import {
  countedCharacters,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  PASSWORD_TOO_SHORT,
  passwordProblem,
} from '../../shared/auth/password-policy';
import { smtpLimits } from '../../shared/http/email';
import { mailedName } from '../../shared/http/names';

export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH };

const Email = z
  .string()
  .trim()
  .toLowerCase()
  .email()
  .max(320)
  .refine(...smtpLimits);
const TenantId = z.string().min(1).max(64);
const Token = z.string().min(1).max(200);
/**
 * A new password (accept-invite, reset): the policy (shared/auth/password-policy.ts), a 422 saying
 * why. Its length is counted as the policy counts it (NFKC, invisible code points removed).
 */
export const NewPassword = z
  .string()
  .max(PASSWORD_MAX_LENGTH)
  .superRefine((password, ctx) => {
    if (countedCharacters(password).length < PASSWORD_MIN_LENGTH) {
      ctx.addIssue({
        code: 'too_small',
        origin: 'string',
        minimum: PASSWORD_MIN_LENGTH,
        inclusive: true,
        input: password,
        message: PASSWORD_TOO_SHORT,
      });
      return;
    }
    const problem = passwordProblem(password);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const LoginBody = z.strictObject({
  email: Email,
  // not the policy: an old password shorter than today's minimum still signs in
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
  tenant_id: TenantId.optional(),
});
export const RefreshBody = z.strictObject({ refresh_token: Token });
/** Logout takes the session token (Authorization) or the refresh token in the body. */
export const LogoutBody = z.strictObject({ refresh_token: Token.optional() }).optional();
export const AcceptInviteBody = z.strictObject({
  token: Token,
  password: NewPassword,
  name: mailedName(200).optional(),
});
export const InvitePreviewBody = z.strictObject({ token: Token });
/** POST /api/v1/auth/invite-preview: what an unspent invite offers, for the accept page. */
export const InvitePreview = z.object({
  tenant: z.object({ id: z.string(), name: z.string() }),
  email: z.string(),
  name: z.string().nullable().describe('the name the inviter gave, to pre-fill the form'),
  role: z.enum(['agent', 'tenant_admin']),
  expires_at: z.string(),
});
/** GET /api/v1/auth/me: who the session is, for a dashboard's header. */
export const Me = z.object({
  user: z.object({
    id: z.string(),
    email: z.string().nullable(),
    name: z.string().nullable(),
    role: z.enum(['agent', 'tenant_admin', 'super_admin']),
  }),
  tenant: z.object({
    id: z.string(),
    name: z.string(),
    plan: z.string(),
    environment: z.string(),
    created_at: z.string(),
  }),
});

export const PasswordResetBody = z.strictObject({ email: Email, tenant_id: TenantId.optional() });
export const PasswordResetConfirmBody = z.strictObject({ token: Token, password: NewPassword });

export const TokenPair = z.object({
  access_token: z
    .string()
    .describe('dashboard session JWT (HS256; claims sub, tenant_id, role, sid, iat, exp)'),
  token_type: z.literal('Bearer'),
  expires_in: z.number().describe('seconds the access token lives'),
  refresh_token: z.string().describe('single use: exchange it at /api/v1/auth/refresh for a new pair'),
});
/** POST /api/v1/auth/session: the access token; its refresh token stays in the session cookie. */
export const SessionToken = TokenPair.omit({ refresh_token: true });
/** The cookie route reads nothing from the body. */
export const SessionBody = z.strictObject({}).optional();
export const PasswordResetAccepted = z.object({ detail: z.string() });
/** POST /api/v1/auth/login, 409: the password matches accounts in several tenants. */
export const TenantChoice = z.object({
  detail: z.string(),
  tenants: z
    .array(z.object({ id: z.string(), name: z.string() }))
    .describe('the tenants whose account of this address the password opened: send one as tenant_id'),
});
