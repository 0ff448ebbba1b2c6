import { z } from 'zod';
import { defineComponents, defineRoutes } from '../../shared/http/openapi';
import {
  CreateTenantUserBody,
  IdParam,
  InvitedTenantUser,
  Requester,
  RequestersQuery,
  TenantUser,
  TenantUsersQuery,
  UpdateTenantUserBody,
} from './schemas';

const page = (key: string, item: z.ZodType) =>
  z.object({ [key]: z.array(item), total: z.number(), limit: z.number(), offset: z.number() });

export const routes = defineRoutes([
  {
    method: 'get',
    path: '/api/v1/requesters',
    summary: 'List requesters',
    description:
      "The tenant's end users (who raise tickets), newest first; filter by exact email or search email/name.",
    tags: ['Requesters'],
    query: RequestersQuery,
    responses: { 200: { description: 'A page of requesters', schema: page('requesters', Requester) } },
  },
  {
    method: 'get',
    path: '/api/v1/requesters/{id}',
    summary: 'One requester',
    tags: ['Requesters'],
    params: IdParam,
    responses: {
      200: { description: 'The requester', schema: Requester },
      404: { description: 'Requester not found' },
    },
  },
  {
    method: 'get',
    path: '/api/v1/tenant/users',
    summary: 'List tenant users',
    description: 'Dashboard users (agents and admins). Needs users:read and roles:write.',
    tags: ['Tenant users'],
    query: TenantUsersQuery,
    responses: { 200: { description: 'A page of users', schema: page('users', TenantUser) } },
  },
  {
    method: 'post',
    path: '/api/v1/tenant/users',
    summary: 'Add a tenant user',
    description:
      'Needs users:write and roles:write. An email already in the tenant is 409. The user is invited: the invite link is mailed to them and shown once in `invite`.',
    tags: ['Tenant users'],
    body: CreateTenantUserBody,
    responses: {
      201: { description: 'The user and their invite', schema: InvitedTenantUser },
      409: { description: 'Email already used' },
    },
  },
  {
    method: 'get',
    path: '/api/v1/tenant/users/{id}',
    summary: 'One tenant user',
    tags: ['Tenant users'],
    params: IdParam,
    responses: {
      200: { description: 'The user', schema: TenantUser },
      404: { description: 'User not found' },
    },
  },
  {
    method: 'patch',
    path: '/api/v1/tenant/users/{id}',
    summary: "Change a tenant user's name or role",
    description: 'Lowering the role (tenant_admin to agent) ends their sign-in sessions at once.',
    tags: ['Tenant users'],
    params: IdParam,
    body: UpdateTenantUserBody,
    responses: {
      200: { description: 'The user', schema: TenantUser },
      404: { description: 'User not found' },
    },
  },
  {
    method: 'delete',
    path: '/api/v1/tenant/users/{id}',
    summary: 'Remove a tenant user',
    description: 'Their sign-in sessions and refresh tokens end with them.',
    tags: ['Tenant users'],
    params: IdParam,
    responses: { 204: { description: 'Removed' }, 404: { description: 'User not found' } },
  },
]);

export const components = defineComponents({
  output: { Requester, TenantUser, InvitedTenantUser },
  input: { TenantUserCreate: CreateTenantUserBody, TenantUserUpdate: UpdateTenantUserBody },
});
