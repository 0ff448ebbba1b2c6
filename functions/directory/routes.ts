import * as z from 'zod';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import {
  CreateTenantUserBody,
  Invitation,
  InvitationIdParam,
  InvitationsQuery,
  InvitedTenantUser,
  Requester,
  RequesterIdParam,
  RequestersQuery,
  ResentInvitation,
  TenantUser,
  TenantUserIdParam,
  TenantUsersQuery,
  UpdateTenantUserBody,
} from './schemas';

const page = (key: string, item: z.ZodType) =>
  z.object({ [key]: z.array(item), total: z.number(), limit: z.number(), offset: z.number() });

export const listRequesters = defineRoute({
  operationId: 'listRequesters',
  method: 'get',
  path: '/api/v1/requesters',
  summary: 'List requesters',
  description:
    "The tenant's end users (who raise tickets), newest first; filter by exact email or search email/name.",
  tags: ['Requesters'],
  query: RequestersQuery,
  responses: { 200: { description: 'A page of requesters', schema: page('requesters', Requester) } },
});

export const getRequester = defineRoute({
  operationId: 'getRequester',
  description:
    'One requester (the people tickets are raised for) with their ticket count. 404 for an unknown id.',
  method: 'get',
  path: '/api/v1/requesters/{id}',
  summary: 'One requester',
  tags: ['Requesters'],
  params: RequesterIdParam,
  responses: {
    200: { description: 'The requester', schema: Requester },
    404: { description: 'Requester not found' },
  },
});

// tenant users: any dashboard session may read them, only a tenant_admin may change them
export const listTenantUsers = defineRoute({
  operationId: 'listTenantUsers',
  method: 'get',
  path: '/api/v1/tenant/users',
  summary: 'List tenant users',
  description: 'Dashboard users (agents and admins). Needs users:read and roles:write.',
  tags: ['Tenant users'],
  query: TenantUsersQuery,
  responses: { 200: { description: 'A page of users', schema: page('users', TenantUser) } },
});

export const createTenantUser = defineRoute({
  operationId: 'createTenantUser',
  method: 'post',
  path: '/api/v1/tenant/users',
  access: { role: 'tenant_admin' },
  summary: 'Add a tenant user',
  description:
    'Needs users:write and roles:write. An email already in the tenant is 409. The user is invited: the invite link is mailed to them (the mailbox is the proof); `invite.token` and `invite.accept_url` are returned only when the server runs with APP_ENV=development.',
  tags: ['Tenant users'],
  body: CreateTenantUserBody,
  responses: {
    201: { description: 'The user and their invite', schema: InvitedTenantUser },
    409: {
      description:
        'Email already used: by a member, or by an invitation not accepted yet (resend or revoke it instead)',
    },
  },
});

export const getTenantUser = defineRoute({
  operationId: 'getTenantUser',
  description: 'One dashboard user of your tenant. 404 for an unknown id.',
  method: 'get',
  path: '/api/v1/tenant/users/{id}',
  summary: 'One tenant user',
  tags: ['Tenant users'],
  params: TenantUserIdParam,
  responses: {
    200: { description: 'The user', schema: TenantUser },
    404: { description: 'User not found' },
  },
});

export const updateTenantUser = defineRoute({
  operationId: 'updateTenantUser',
  method: 'patch',
  path: '/api/v1/tenant/users/{id}',
  access: { role: 'tenant_admin' },
  summary: "Change a tenant user's name or role",
  description: 'Lowering the role (tenant_admin to agent) ends their sign-in sessions at once.',
  tags: ['Tenant users'],
  params: TenantUserIdParam,
  body: UpdateTenantUserBody,
  responses: {
    200: { description: 'The user', schema: TenantUser },
    404: { description: 'User not found' },
  },
});

export const deleteTenantUser = defineRoute({
  operationId: 'deleteTenantUser',
  method: 'delete',
  path: '/api/v1/tenant/users/{id}',
  access: { role: 'tenant_admin' },
  summary: 'Remove a tenant user',
  description: 'Their sign-in sessions and refresh tokens end with them.',
  tags: ['Tenant users'],
  params: TenantUserIdParam,
  responses: { 204: { description: 'Removed' }, 404: { description: 'User not found' } },
});

// invitations: the tenant users who have not accepted yet; the same roles and scopes as tenant users
export const listInvitations = defineRoute({
  operationId: 'listInvitations',
  method: 'get',
  path: '/api/v1/tenant/invitations',
  summary: 'List pending invitations',
  description:
    'Invited tenant users who have not accepted yet, newest first (an `expires_at` in the past: resend it). Needs users:read and roles:write.',
  tags: ['Tenant users'],
  query: InvitationsQuery,
  responses: { 200: { description: 'A page of invitations', schema: page('invitations', Invitation) } },
});

export const resendInvitation = defineRoute({
  operationId: 'resendInvitation',
  method: 'post',
  path: '/api/v1/tenant/invitations/{id}/resend',
  access: { role: 'tenant_admin' },
  summary: 'Resend an invitation',
  description:
    'Issues a new invite link (the earlier one stops working) and mails it; `invite.token` and `invite.accept_url` are returned only when the server runs with APP_ENV=development. Needs users:write and roles:write; an invitation to tenant_admin needs a tenant_admin session.',
  tags: ['Tenant users'],
  params: InvitationIdParam,
  responses: {
    200: { description: 'The invitation and its new link', schema: ResentInvitation },
    404: { description: 'Invitation not found' },
  },
});

export const revokeInvitation = defineRoute({
  operationId: 'revokeInvitation',
  method: 'delete',
  path: '/api/v1/tenant/invitations/{id}',
  access: { role: 'tenant_admin' },
  summary: 'Revoke an invitation',
  description:
    'The invitee is removed and their link stops working. Needs users:write and roles:write; an invitation to tenant_admin needs a tenant_admin session.',
  tags: ['Tenant users'],
  params: InvitationIdParam,
  responses: { 204: { description: 'Revoked' }, 404: { description: 'Invitation not found' } },
});

export const components = defineComponents({
  output: { Requester, TenantUser, InvitedTenantUser, Invitation, ResentInvitation },
  input: { TenantUserCreate: CreateTenantUserBody, TenantUserUpdate: UpdateTenantUserBody },
});
