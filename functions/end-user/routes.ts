import * as z from 'zod';
import { jsonOnlyRefusal } from '../../shared/auth/json-only';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import {
  AppCreateTicketBody,
  AppTicketParam,
  AppTicketsQuery,
  EndUserProfile,
  LoginBody,
  MagicLinkBody,
  MagicLinkResponse,
  MagicLinkVerifyBody,
  RegisterBody,
  TokenResponse,
} from './schemas';

const tags = ['End-user API'];
/** the credential-free sign-in operations that hand out the end-user token: one surface per tag */
const signInTags = ['End-user sign-in'];
const Ticket = z.record(z.string(), z.unknown());
export const registerUser = defineRoute({
  operationId: 'registerEndUser',
  description:
    'Creates an end-user account for a tenant’s help center and signs it in. An email already registered is 409 `An account with this email already exists`.',
  method: 'post',
  path: '/api/v1/app/auth/register',
  summary: 'Register an end user (password)',
  tags: signInTags,
  body: RegisterBody,
  responses: {
    201: { description: 'Account and an end-user token', schema: TokenResponse },
    404: { description: 'Tenant not found' },
    409: { description: 'Email already registered in the tenant' },
    415: jsonOnlyRefusal,
  },
});

export const logIn = defineRoute({
  operationId: 'logInEndUser',
  method: 'post',
  path: '/api/v1/app/auth/login',
  summary: 'Log in with email and password',
  description:
    'Unknown tenant, unknown email and wrong password are the same 401 `Invalid email or password`.',
  tags: signInTags,
  body: LoginBody,
  responses: {
    200: { description: 'End-user token', schema: TokenResponse },
    401: { description: 'Invalid email or password' },
    415: jsonOnlyRefusal,
  },
});

export const requestMagicLink = defineRoute({
  operationId: 'requestMagicLink',
  method: 'post',
  path: '/api/v1/app/auth/magic-link',
  summary: 'Request a one-time sign-in link',
  description:
    'Valid 15 minutes, single use. The answer is the same whether or not the address has an account; the link goes only by mail (development prints the mail on stdout), never in the answer.',
  tags: signInTags,
  body: MagicLinkBody,
  responses: { 202: { description: 'Accepted', schema: MagicLinkResponse }, 415: jsonOnlyRefusal },
});

export const verifyMagicLink = defineRoute({
  operationId: 'verifyMagicLink',
  description:
    'Exchanges a magic-link token for an end-user session. A used, expired or unknown token is 401 `Invalid or expired magic link`.',
  method: 'post',
  path: '/api/v1/app/auth/magic-link/verify',
  summary: 'Exchange a magic-link token for an end-user token',
  tags: signInTags,
  body: MagicLinkVerifyBody,
  responses: {
    200: { description: 'End-user token', schema: TokenResponse },
    401: { description: 'Invalid or expired magic link' },
    415: jsonOnlyRefusal,
  },
});

export const getMe = defineRoute({
  operationId: 'getCurrentEndUser',
  description: 'The signed-in end user. 404 `User not found` when the account was removed.',
  method: 'get',
  path: '/api/v1/app/me',
  summary: 'The signed-in end user',
  tags,
  responses: { 200: { description: 'Profile', schema: EndUserProfile } },
});

export const listTickets = defineRoute({
  operationId: 'listMyTickets',
  description: 'The signed-in end user’s own tickets, newest first; never anyone else’s.',
  method: 'get',
  path: '/api/v1/app/tickets',
  summary: "The end user's own tickets",
  tags,
  query: AppTicketsQuery,
  responses: {
    200: {
      description: 'A page of tickets',
      schema: z.object({
        tickets: z.array(Ticket),
        total: z.number(),
        limit: z.number(),
        offset: z.number(),
      }),
    },
  },
});

export const getTicket = defineRoute({
  operationId: 'getMyTicket',
  description: 'One of the signed-in end user’s tickets; another person’s ticket is 404 like an unknown one.',
  method: 'get',
  path: '/api/v1/app/tickets/{id}',
  summary: 'One of their tickets',
  tags,
  params: AppTicketParam,
  responses: {
    200: { description: 'The ticket', schema: Ticket },
    404: { description: 'Ticket not found' },
  },
});

export const createTicket = defineRoute({
  operationId: 'createMyTicket',
  emits: ['ticket.created'],
  method: 'post',
  path: '/api/v1/app/tickets',
  summary: 'Raise a ticket',
  description:
    'The requester is the signed-in end user; status, assignee and source are set by the platform. Emits ticket.created.',
  tags,
  body: AppCreateTicketBody,
  responses: { 201: { description: 'The ticket', schema: Ticket } },
});

export const components = defineComponents({
  output: {
    EndUserProfile,
    EndUserSession: TokenResponse,
    MagicLinkSent: MagicLinkResponse,
    EndUserTicket: Ticket,
  },
  input: {
    EndUserRegister: RegisterBody,
    EndUserLogin: LoginBody,
    MagicLinkRequest: MagicLinkBody,
    MagicLinkVerify: MagicLinkVerifyBody,
    EndUserTicketCreate: AppCreateTicketBody,
  },
});
