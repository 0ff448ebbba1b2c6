import * as z from 'zod';
import { SCOPE_CATALOG } from '../../shared/context/scopes';
import { ErrorBody, unknownIdResponse } from '../../shared/http/error-body';
import { Detail as ErrorDetail } from '../../shared/http/errors';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import { CreateApiKeyBody, KeyIdParam } from './schemas';

const Scope = z.enum(SCOPE_CATALOG);
const ApiKey = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  key_prefix: z.string().describe('first characters of the key, to recognise it'),
  scopes: z.array(Scope),
  created_by: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  rotated_from: z.string().nullable(),
  is_active: z.boolean(),
});
const ApiKeyWithSecret = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  key_prefix: z.string(),
  scopes: z.array(Scope),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  api_key: z.string().describe('the full key: shown only in this response'),
});
const keyNotFound = unknownIdResponse('API key', 'Unknown key, or a key of another tenant');
const secretExample = {
  id: 'key_0mha4j8s2Xv5CnT7wRq1Dk',
  name: 'Warehouse sync',
  description: null,
  key_prefix: 'pEYaUrVn1wcX',
  scopes: ['tickets:read', 'tickets:write'],
  created_at: '2026-03-14T09:26:53.412Z',
  expires_at: null,
  api_key: 'itsm_sk_live_pEYaUrVn1wcXXZUk0PIg9cehOY5m8nwr2JIi5z',
};
const adminOnly = 'Dashboard session with tenant_admin or higher; API keys cannot manage keys.';

export const createApiKey = defineRoute({
  operationId: 'createApiKey',
  method: 'post',
  path: '/api/v1/api-keys',
  access: { role: 'tenant_admin' },
  summary: 'Create an API key',
  description: `${adminOnly} Scopes from the catalog (${SCOPE_CATALOG.join(', ')}); unknown scopes are a 400. The secret is returned once.`,
  tags: ['API keys'],
  body: CreateApiKeyBody,
  responses: {
    201: {
      description: 'The key, with its secret (shown only here)',
      schema: ApiKeyWithSecret,
      example: secretExample,
    },
    400: {
      description: 'Unknown scope',
      schema: ErrorBody,
      example: { detail: ErrorDetail.unknownScopes(['tickets:admin'], SCOPE_CATALOG) },
    },
  },
});

export const listApiKeys = defineRoute({
  operationId: 'listApiKeys',
  method: 'get',
  path: '/api/v1/api-keys',
  access: { role: 'tenant_admin' },
  summary: "List the tenant's API keys",
  description: `${adminOnly} The full list, newest first, with no pagination fields; never a secret or its hash.`,
  tags: ['API keys'],
  responses: {
    200: {
      // the spec's shape: `{api_keys: [...]}`, no query and no pagination fields (as the webhook list)
      description: 'Every key of the tenant, newest first',
      schema: z.object({ api_keys: z.array(ApiKey) }),
    },
  },
});

export const rotateApiKey = defineRoute({
  operationId: 'rotateApiKey',
  method: 'post',
  path: '/api/v1/api-keys/{key_id}/rotate',
  access: { role: 'tenant_admin' },
  summary: 'Rotate an API key',
  description: `${adminOnly} Revokes the key and issues a new one with the same name, scopes and expiry; the old one stops working on the next request.`,
  tags: ['API keys'],
  params: KeyIdParam,
  responses: {
    200: { description: 'The new key, with its secret', schema: ApiKeyWithSecret, example: secretExample },
    404: keyNotFound,
    409: {
      description: 'The key is already revoked',
      schema: ErrorBody,
      example: { detail: 'API key is revoked and cannot be rotated' },
    },
  },
});

export const revokeApiKey = defineRoute({
  operationId: 'revokeApiKey',
  method: 'post',
  path: '/api/v1/api-keys/{key_id}/revoke',
  access: { role: 'tenant_admin' },
  summary: 'Revoke an API key',
  description: `${adminOnly} Idempotent; takes effect on the next request.`,
  tags: ['API keys'],
  params: KeyIdParam,
  responses: { 204: { description: 'Revoked' }, 404: keyNotFound },
});

export const deleteApiKey = defineRoute({
  operationId: 'deleteApiKey',
  method: 'delete',
  path: '/api/v1/api-keys/{key_id}',
  access: { role: 'tenant_admin' },
  summary: 'Delete an API key',
  description: adminOnly,
  tags: ['API keys'],
  params: KeyIdParam,
  responses: { 204: { description: 'Deleted' }, 404: keyNotFound },
});

export const components = defineComponents({
  docs: {
    ApiKey: {
      description: 'An API key as listed: never the secret itself.',
      fields: {
        id: 'Key id (`key_…`)',
        name: 'Your label for it',
        description: 'What it is for',
        key_prefix: 'First 12 characters after `itsm_sk_live_`/`itsm_sk_test_`, to recognise it',
        scopes: 'What it may do (see each operation’s `x-required-scopes`)',
        created_by: 'User who created it',
        created_at: 'When it was created (ISO 8601 UTC)',
        expires_at: 'When it stops working (null: never)',
        last_used_at: 'Last authenticated request',
        revoked_at: 'When it was revoked',
        rotated_from:
          'The key this one replaced by a rotation (same name, new secret); null for a created key',
        is_active: '`false` once revoked or expired',
      },
    },
    ApiKeyCreated: {
      description: 'The new key: `api_key` is shown only in this response.',
      fields: {
        id: 'Key id (`key_…`)',
        name: 'Your label for it',
        description: 'What it is for',
        key_prefix: 'First 12 characters after `itsm_sk_live_`/`itsm_sk_test_`, shown in listings',
        scopes: 'What it may do',
        created_at: 'When it was created (ISO 8601 UTC)',
        expires_at: 'When it stops working (null: never)',
        api_key: 'The full key (`itsm_sk_live_…`/`itsm_sk_test_…`): store it now',
      },
    },
  },
  output: { ApiKey, ApiKeyCreated: ApiKeyWithSecret },
  input: { ApiKeyCreate: CreateApiKeyBody },
});
