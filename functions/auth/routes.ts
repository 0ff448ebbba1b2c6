import { jsonOnlyRefusal } from '../../shared/auth/json-only';
import { ErrorBody } from '../../shared/http/error-body';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import {
  AcceptInviteBody,
  InvitePreview,
  InvitePreviewBody,
  LoginBody,
  LogoutBody,
  Me,
  PasswordResetAccepted,
  PasswordResetBody,
  PasswordResetConfirmBody,
  RefreshBody,
  SessionBody,
  SessionToken,
  TenantChoice,
  TokenPair,
} from './schemas';

const tags = ['Dashboard sign-in'];
const pair = {
  access_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9…',
  token_type: 'Bearer',
  expires_in: 900,
  refresh_token: 'itsm_rt_…',
};
const locked = {
  description:
    'Too many failed sign-ins for this account from this client address (5 in 15 minutes) or from this address (20 in 15 minutes): locked there for 15 minutes, Retry-After in seconds; other addresses are not affected',
  schema: ErrorBody,
  example: { detail: 'Too many failed sign-in attempts; try again later' },
};

const cookieNote =
  "With `X-Session-Cookie: 1` (the console) the refresh token is also set in the `itsm_refresh` cookie (httpOnly, Secure, SameSite=Strict, Path=/api/v1/auth), which `POST /api/v1/auth/session` spends; such a request must come from this server's own origin (403 otherwise).";

export const login = defineRoute({
  operationId: 'logIn',
  method: 'post',
  path: '/api/v1/auth/login',
  summary: 'Sign in to the dashboard',
  description:
    "Email and password of a tenant user. Without `tenant_id` the password is checked against every active account of the address: one match signs in; matches in several tenants answer 409 with those tenants, to send one as `tenant_id`. The access token is the dashboard session JWT every dashboard route takes (900 s); the refresh token is single use. Every failure (unknown email, wrong password, disabled user, wrong tenant) is the same 401 at the same cost; failures from the third on are answered after a growing delay. Another tenant's account or invitation of the address never turns a right password into a 401 or counts as a failure. Each sign-in and each failure is written to the audit log of the account's tenant (never the password). " +
    cookieNote,
  tags,
  body: LoginBody,
  responses: {
    200: { description: 'A session', schema: TokenPair, example: pair },
    401: { description: 'Any failure', schema: ErrorBody, example: { detail: 'Invalid email or password' } },
    409: {
      description:
        "No `tenant_id` sent and the password matches the address's accounts in several tenants: sign in again with one of them as `tenant_id`",
      schema: TenantChoice,
      example: {
        detail: 'This address has accounts in several tenants: send tenant_id',
        tenants: [
          { id: 'ten_demo', name: 'Acme' },
          { id: 'ten_0mh2v9w8xPr6JzL3qNb5Gc', name: 'Beta' },
        ],
      },
    },
    429: locked,
    415: jsonOnlyRefusal,
  },
});

export const refresh = defineRoute({
  operationId: 'refreshSession',
  method: 'post',
  path: '/api/v1/auth/refresh',
  summary: 'Exchange a refresh token for a new pair',
  description:
    'Rotation: the presented token is spent. Presenting a spent token again revokes the whole session (reuse detection): every token of it stops working.',
  tags,
  body: RefreshBody,
  responses: {
    200: { description: 'A new pair', schema: TokenPair, example: pair },
    401: {
      description: 'Unknown, spent, expired or revoked',
      schema: ErrorBody,
      example: { detail: 'Invalid or expired refresh token' },
    },
    415: jsonOnlyRefusal,
  },
});

export const restoreSession = defineRoute({
  operationId: 'restoreSession',
  method: 'post',
  path: '/api/v1/auth/session',
  summary: "Renew the console's session from its cookie",
  description:
    "For the console in a browser: exchanges the refresh token in the `itsm_refresh` cookie (set by a sign-in sent with `X-Session-Cookie: 1`) for a new access token, and sets its successor in the cookie, so the refresh token never reaches script and every tab shares one sign-in. It rotates like `/refresh` (a spent token revokes the session). Needs `X-Session-Cookie: 1` and this server's own `Origin` (a foreign page can send neither), else 403; no cookie, or a dead one, is 401 and clears the cookie.",
  tags,
  body: SessionBody,
  responses: {
    200: {
      description: 'A new access token; the new refresh token is in the Set-Cookie',
      schema: SessionToken,
      example: { access_token: pair.access_token, token_type: 'Bearer', expires_in: 900 },
    },
    401: {
      description: 'No session cookie, or its token is unknown, spent, expired or revoked',
      schema: ErrorBody,
      example: { detail: 'Invalid or expired refresh token' },
    },
    415: jsonOnlyRefusal,
  },
});

export const logout = defineRoute({
  operationId: 'logOut',
  method: 'post',
  path: '/api/v1/auth/logout',
  summary: 'End the session',
  description:
    'Ends the session of the `Authorization: Bearer` access token, or of the `refresh_token` in the body, or (with `X-Session-Cookie: 1`) of the session cookie, which is cleared: its refresh token no longer works (access tokens already issued lapse within 900 s).',
  tags,
  body: LogoutBody,
  responses: {
    204: { description: 'Signed out' },
    401: {
      description: 'Neither a session token nor a refresh token',
      schema: ErrorBody,
      example: { detail: 'Missing authentication credentials' },
    },
    415: jsonOnlyRefusal,
  },
});

export const me = defineRoute({
  operationId: 'getCurrentUser',
  method: 'get',
  path: '/api/v1/auth/me',
  access: { session: 'required' },
  summary: 'Who the session is',
  description:
    'The signed-in user (email and name, null for a token minted without an account) and their tenant, for a dashboard header; any role may read it. Needs a dashboard session token (`Authorization: Bearer`) whose sign-in session is live.',
  tags,
  responses: {
    200: {
      description: 'The user and the tenant',
      schema: Me,
      example: {
        user: {
          id: 'tus_0mh2v9w8xPr6JzL3qNb5Gc',
          email: 'ana@example.com',
          name: 'Ana Silva',
          role: 'tenant_admin',
        },
        tenant: {
          id: 'ten_demo',
          name: 'Acme',
          plan: 'pro',
          environment: 'production',
          created_at: '2026-03-14T09:26:53.412Z',
        },
      },
    },
    401: {
      description: 'No dashboard session token, or its session ended',
      schema: ErrorBody,
      example: { detail: 'Missing authentication credentials' },
    },
    404: {
      description: 'The token names a tenant that does not exist',
      schema: ErrorBody,
      example: { detail: 'Tenant not found' },
    },
  },
});

export const components = defineComponents({
  output: { TokenPair, SessionToken, TenantChoice, PasswordResetAccepted, Me, InvitePreview },
  input: {
    SignIn: LoginBody,
    SessionRefresh: RefreshBody,
    SignOut: LogoutBody,
    SessionRestore: SessionBody,
    InviteAcceptance: AcceptInviteBody,
    InvitePreviewRequest: InvitePreviewBody,
    PasswordResetRequest: PasswordResetBody,
    PasswordResetConfirmation: PasswordResetConfirmBody,
  },
});

export const invitePreview = defineRoute({
  operationId: 'previewInvite',
  method: 'post',
  path: '/api/v1/auth/invite-preview',
  summary: 'What an invite token offers',
  description:
    'The tenant, address and role an unspent invite token stands for, for the page that accepts it; the token is not spent.',
  tags,
  body: InvitePreviewBody,
  responses: {
    200: {
      description: 'The invitation',
      schema: InvitePreview,
      example: {
        tenant: { id: 'ten_demo', name: 'Acme' },
        email: 'ana@example.com',
        name: 'Ana Silva',
        role: 'agent',
        expires_at: '2026-03-21T09:26:53.412Z',
      },
    },
    404: {
      description: 'Unknown, used or expired',
      schema: ErrorBody,
      example: { detail: 'Invitation not found or expired' },
    },
    415: jsonOnlyRefusal,
  },
});

export const acceptInvite = defineRoute({
  operationId: 'acceptInvite',
  method: 'post',
  path: '/api/v1/auth/accept-invite',
  summary: 'Accept an invite: set the password and sign in',
  description: `The invite token (from POST /api/v1/tenants or POST /api/v1/tenant/users, or its mail) works once. ${cookieNote}`,
  tags,
  body: AcceptInviteBody,
  responses: {
    200: { description: 'A session for the new user', schema: TokenPair, example: pair },
    400: {
      description: 'Unknown, used or expired',
      schema: ErrorBody,
      example: { detail: 'Invalid or expired invite' },
    },
    415: jsonOnlyRefusal,
  },
});

export const requestPasswordReset = defineRoute({
  operationId: 'requestPasswordReset',
  method: 'post',
  path: '/api/v1/auth/password-reset',
  summary: 'Request a password reset link',
  description:
    'The same answer whether or not the account exists; the link (valid one hour, single use) is mailed.',
  tags,
  body: PasswordResetBody,
  responses: {
    202: {
      description: 'Accepted',
      schema: PasswordResetAccepted,
      example: { detail: 'If the address belongs to an account, a password reset link has been sent' },
    },
    415: jsonOnlyRefusal,
  },
});

export const confirmPasswordReset = defineRoute({
  operationId: 'confirmPasswordReset',
  method: 'post',
  path: '/api/v1/auth/password-reset/confirm',
  summary: 'Set a new password with a reset token',
  description: `Ends every existing session of the user and answers with a new one. ${cookieNote}`,
  tags,
  body: PasswordResetConfirmBody,
  responses: {
    200: { description: 'A new session', schema: TokenPair, example: pair },
    400: {
      description: 'Unknown, used or expired',
      schema: ErrorBody,
      example: { detail: 'Invalid or expired password reset token' },
    },
    415: jsonOnlyRefusal,
  },
});
