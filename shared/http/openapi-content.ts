import type { Surface } from '../context/surface';
import { Detail } from './errors';

/**
 * The reference's fixed prose and shapes that no route declares: the credentials, the error bodies,
 * the response headers every answer may carry, a webhook delivery's headers. The mechanism that
 * places them is shared/http/openapi-doc.ts; what a middleware adds is declared beside it
 * (`MiddlewareDoc`); the reader-facing guide is functions/docs/guide.ts.
 */
type Json = Record<string, unknown>;

/** The error body's component name: not `Error`, which every TypeScript generator would shadow. */
export const ERROR_COMPONENT = 'ErrorBody';
export const ERROR_REF = `#/components/schemas/${ERROR_COMPONENT}`;
export const VALIDATION_REF = '#/components/schemas/ValidationError';

export const SECURITY_SCHEMES = {
  ApiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      'Tenant API key (`itsm_sk_live_…` or `itsm_sk_test_…`), created with POST /api/v1/api-keys. Scoped: each operation lists the scopes it needs in `x-required-scopes`. The same key is also accepted as `Authorization: Bearer <key>`.',
  },
  BearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'Dashboard session JWT (HS256 with the platform secret, or JWKS): claims `sub`, `tenant_id`, `role` (agent < tenant_admin < super_admin), `exp` at most 3600 s after `iat`. On API-key paths an API key is accepted here too.',
  },
  InternalToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'INTERNAL_API_TOKEN of the platform (voice agent, jobs). /api/internal/* only.',
  },
  EndUserToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'End-user JWT from /api/v1/app/auth/*. /api/v1/app/* only.',
  },
  WebhookSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Webhook-Signature',
    description:
      'How a subscriber knows a delivery is ours: lowercase hex HMAC-SHA256, keyed with the subscription secret, over `X-Webhook-Timestamp + "." + raw body`.',
  },
  QStashSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'Upstash-Signature',
    description:
      "QStash's signed callback (JWT signed with the QStash signing keys); verified by the handler.",
  },
} as const;

/** The paragraph of who may call an operation, by its surface. */
export const SURFACE_TEXT: Record<Surface, string> = {
  public: 'No credential.',
  signed: 'Called by QStash: the Upstash-Signature header is verified by the handler.',
  internal: 'Internal services only: `Authorization: Bearer <INTERNAL_API_TOKEN>`.',
  end_user: 'End-user JWT.',
  api: 'API key (X-API-Key or Bearer) or dashboard session.',
  dashboard: 'Dashboard session only: API keys are refused with 403.',
  sign_in: 'No credential needed (dashboard sign-in); API keys are refused with 403.',
};

export const MINIMAL_DESCRIPTION =
  'Public API of a multi-tenant customer-support / IT-service-management platform. Errors are `{"detail": "<string>"}` with fixed strings; request validation answers 422 with `{"detail": [{"loc", "msg", "type"}]}`.';

export const INTERNAL_DESCRIPTION =
  'Routes for the platform’s own services (voice agent, inbound channels, jobs) and the QStash delivery callback. Not for integrators; served to the internal token at /api/internal/openapi.json.';

/** The error schemas every operation refers to (what the shared layers answer). */
export const ERROR_SCHEMAS: Record<string, Json> = {
  [ERROR_COMPONENT]: {
    type: 'object',
    description:
      'Every error other than request validation: one fixed, human-readable string (the exact strings are part of the contract).',
    required: ['detail'],
    properties: { detail: { type: 'string', description: 'What went wrong' } },
    example: { detail: Detail.notFound },
  },
  ValidationIssue: {
    type: 'object',
    description: 'One invalid input.',
    required: ['loc', 'msg', 'type'],
    properties: {
      loc: {
        type: 'array',
        description: 'Where: `body`, `query`, `path` or `header`, then the field path',
        items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      },
      msg: { type: 'string', description: 'Human-readable message' },
      type: { type: 'string', description: 'Machine-readable kind, e.g. `missing`, `string_too_long`' },
    },
  },
  ValidationError: {
    type: 'object',
    description: 'The 422 answer to invalid input (body, query, path or header).',
    required: ['detail'],
    properties: {
      detail: {
        type: 'array',
        description: 'One entry per invalid input',
        items: { $ref: '#/components/schemas/ValidationIssue' },
      },
    },
  },
};

export const VALIDATION_EXAMPLE = {
  detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }],
};

/** The response headers the root layers set (what a middleware sets is declared beside it). */
export const SHARED_HEADERS: Record<string, Json> = {
  'WWW-Authenticate': { description: 'Always `Bearer`', schema: { type: 'string', const: 'Bearer' } },
  'Retry-After': {
    description:
      'Seconds to wait before retrying (429: until the rate window frees up; 503: try again shortly)',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Request-Id': {
    description:
      'The request id: the caller’s own `X-Request-Id` (up to 128 characters) echoed back, else one generated by the server. Quote it when reporting a problem.',
    schema: { type: 'string', maxLength: 128 },
  },
};

/** What the gate and the root layers answer, whatever the handler does. */
export const STANDARD_TEXT = {
  publicKeyInvalid: 'An API key was sent and it is not valid (this operation needs none)',
  publicKeyRefused:
    'An API key was sent: this operation takes none (only GET /api/v2/health and GET /api/v1/openapi.json tolerate one)',
  signInKeyRefused: 'API keys may not call this endpoint',
  signInKeyInvalid: 'An API key that is not valid was sent',
  unauthorized: 'Missing or invalid credential',
  forbiddenApi:
    'The API key lacks a required scope (exact detail strings below), or the session lacks the role',
  forbidden: 'This credential may not call this endpoint',
  notFound: "No such resource in this tenant (unknown ids and other tenants' ids alike)",
  bodyTooLarge: 'The request body is larger than the server accepts (MAX_BODY_BYTES)',
  contentEncoding:
    'The request body was sent compressed (`Content-Encoding` other than `identity`): send it as it is',
  validation: 'Request validation failed',
  unavailable:
    'A backing service is briefly unavailable (database, or the idempotency store for a keyed request); safe to retry after Retry-After',
} as const;

/** The headers of every delivery (shared/webhooks/signing.ts), as the receiver reads them. */
export const WEBHOOK_HEADERS = (type: string): Json[] => [
  {
    name: 'X-Webhook-Event',
    in: 'header',
    required: true,
    description: 'The event type (also `event_type` in the body)',
    schema: { type: 'string', const: type },
    example: type,
  },
  {
    name: 'X-Webhook-Timestamp',
    in: 'header',
    required: true,
    description: 'When this attempt was signed (ISO 8601 UTC): the first part of the signed message',
    schema: { type: 'string', format: 'date-time' },
    example: '2026-03-02T09:30:01.204Z',
  },
  {
    name: 'X-Webhook-Signature',
    in: 'header',
    required: true,
    description:
      'Lowercase hex HMAC-SHA256, keyed with the subscription secret, over `X-Webhook-Timestamp + "." + raw body` (no `sha256=` prefix): recompute it and compare in constant time',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    example: '5f2b3c8e1d0a4f6b9c7e2a1d3b5f8e0c4a6d9b2e7f1c3a5d8b0e2f4a6c8d0e1f',
  },
  {
    name: 'X-Webhook-Delivery-Id',
    in: 'header',
    required: true,
    description: 'The delivery (`dlv_…`), the same on every retry of it: the delivery log’s id',
    schema: { type: 'string' },
    example: 'dlv_0mhbq3k9aQm2Vx8RtL5cBn',
  },
  {
    name: 'X-Webhook-Test',
    in: 'header',
    required: false,
    description:
      '`true` on a test delivery (POST /api/v2/webhooks/{id}/test): the body is the event’s documented example, not a real event; absent on real events. Not signed (no header is): the body and the signatures are made as for any delivery',
    schema: { type: 'string', const: 'true' },
    example: 'true',
  },
];

/** What a subscriber is told about one event's delivery. */
export const webhookDeliveryText = (type: string, description: string) =>
  `${description}\n\nSent to every active subscription of the tenant that lists \`${type}\` or \`*\`. Answer 2xx within 10 seconds; otherwise the delivery is retried (2, 4, 8, 16 s later; at most 5 attempts). There is no event id: deduplicate on X-Webhook-Event with the resource's own id.`;

/** Placeholders an operator replaces with the deployment's own (docs/reference.md). */
export const INFO_CONTACT = { name: 'Support Platform API team', email: 'api@support-platform.example' };
export const INFO_LICENSE = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };
