import type { ZodType } from 'zod';
import * as z from 'zod';
import type { Surface } from '../context/surface';
import { Detail } from './errors';
import type { ComponentSet, RouteWithAccess } from './openapi';
import {
  COMPONENT_REF,
  type ExampleContext,
  type ExampleValues,
  exampleOf,
  SchemaCatalog,
} from './openapi-schemas';
import { isAuthPath } from './paths';
import { toHonoPath } from './route';

/**
 * Builds the OpenAPI 3.1 document from every function's `routes` (functions/<name>/routes.ts),
 * converting the SAME zod schemas the handlers validate with (JSON Schema 2020-12, which is
 * OpenAPI 3.1's dialect). Per operation it adds what the route's `access` says (the manifest's rule
 * for its path, as the gate applies it, with the route's own role; functions/registry.ts joins them):
 * the credential it takes (security), the scopes an API key needs (`x-required-scopes`), the least
 * dashboard role, and the standard errors (401, 403 with the spec's exact strings; 404, 409, 413, 422, 429, 503 from
 * STANDARD_RESPONSES) with examples.
 */
export interface DocSource {
  /** function name (manifest) */
  name: string;
  /** its routes, each with its access complete (shared/ cannot read the manifest; the registry does) */
  routes: readonly RouteWithAccess[];
  /** named component schemas, their prose and examples */
  components?: ComponentSet;
}

/**
 * The reader-facing text of the reference (functions/docs/guide.ts): getting started, tags in reading
 * order with their descriptions, descriptions of the parameters many routes share, example values.
 */
export interface ReferenceGuide {
  description: string;
  tags: readonly { name: string; description: string }[];
  params: Record<string, string>;
  /** parameter name (or `<collection>.id`) -> an example value, where the value table has none */
  paramExamples?: Record<string, unknown>;
  /** `Component.field` or field name -> description, for schema properties that have none of their own */
  fields?: Record<string, string>;
  examples: ExampleValues;
  /** the webhook events, for the document's top-level `webhooks` */
  webhooks?: readonly WebhookEventDoc[];
}

/** One catalog event: the schema of its `data`, and the example a test delivery carries. */
export interface WebhookEventDoc {
  type: string;
  group: string;
  /** when it is sent */
  description: string;
  data: ZodType;
  example: unknown;
}

/**
 * Two documents from the one route registry: `public` (served at /api/v1/openapi.json and /docs) and
 * `internal` (/api/internal/*: the platform's own services and the QStash callback).
 */
export type Audience = 'public' | 'internal';
const AUDIENCE_OF: Record<Surface, Audience> = {
  sign_in: 'public',
  public: 'public',
  api: 'public',
  dashboard: 'public',
  end_user: 'public',
  internal: 'internal',
  signed: 'internal',
};

type Json = Record<string, unknown>;

const SECURITY_SCHEMES = {
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

const SECURITY_BY_SURFACE: Record<Surface, Json[]> = {
  public: [],
  signed: [{ QStashSignature: [] }],
  internal: [{ InternalToken: [] }],
  end_user: [{ EndUserToken: [] }],
  api: [{ ApiKeyHeader: [] }, { BearerAuth: [] }],
  dashboard: [{ BearerAuth: [] }],
  // no credential needed; logout also reads a session token
  sign_in: [{}, { BearerAuth: [] }],
};

const SURFACE_TEXT: Record<Surface, string> = {
  public: 'No credential.',
  signed: 'Called by QStash: the Upstash-Signature header is verified by the handler.',
  internal: 'Internal services only: `Authorization: Bearer <INTERNAL_API_TOKEN>`.',
  end_user: 'End-user JWT.',
  api: 'API key (X-API-Key or Bearer) or dashboard session.',
  dashboard: 'Dashboard session only: API keys are refused with 403.',
  sign_in: 'No credential needed (dashboard sign-in); API keys are refused with 403.',
};

const errorBody = (example: unknown) => ({
  'application/json': { schema: { $ref: '#/components/schemas/Error' }, example },
});

/** JSON Schema 2020-12 of a zod schema, without `$schema` (the document's dialect applies). */
export function jsonSchemaOf(schema: ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete out.$schema;
  return out;
}

/** `/api/v1/tickets/{ticket_id}` -> `['ticket_id']` */
export const pathParamsOf = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);

function parametersOf(route: RouteWithAccess, build: Build): Json[] {
  const common = build.params;
  const params: Json[] = [];
  // `{id}` means what the segment before it names: `/conversations/{id}` -> `conversations.id`
  const collection = route.path.match(/\/([^/{}]+)\/\{id\}/)?.[1];
  const textOf = (name: string, own?: unknown) =>
    route.paramText?.[name] ??
    (typeof own === 'string' ? own : undefined) ??
    (name === 'id' && collection ? common[`${collection}.id`] : undefined) ??
    common[name];
  const pathSchema = route.params ? jsonSchemaOf(route.params, 'input') : null;
  const pathProps = (pathSchema?.properties ?? {}) as Record<string, Json>;
  for (const name of pathParamsOf(route.path)) {
    const { description, ...schema } = pathProps[name] ?? { type: 'string' };
    const text = textOf(name, description);
    params.push({
      name,
      in: 'path',
      required: true,
      schema,
      ...(text ? { description: text } : {}),
      example: paramExample(name, collection, schema, build),
    });
  }
  if (route.query) {
    const q = jsonSchemaOf(route.query, 'input');
    // zod drops a default from the input view of a transforming schema (a query integer parsed
    // from its text): the output view still has it, and it is what an absent parameter becomes
    const outputProps = (jsonSchemaOf(route.query, 'output').properties ?? {}) as Record<string, Json>;
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const [name, prop] of Object.entries((q.properties ?? {}) as Record<string, Json>)) {
      const { description, ...schema } = prop;
      if (!('default' in schema) && outputProps[name] && 'default' in outputProps[name])
        schema.default = outputProps[name].default;
      // a query parameter with a default is never required of the caller
      const isRequired = required.has(name) && !('default' in schema);
      const text = textOf(name, description);
      params.push({
        name,
        in: 'query',
        required: isRequired,
        schema,
        ...(text ? { description: text } : {}),
        example: paramExample(name, undefined, schema, build),
      });
    }
  }
  return params;
}

/** The guide's example for a parameter (`<collection>.id` first), else one from the value table. */
function paramExample(name: string, collection: string | undefined, schema: Json, build: Build): unknown {
  const own = build.paramExamples;
  // a table value the parameter's own list of values refuses gives way to that list
  const fits = (v: unknown) => !Array.isArray(schema.enum) || schema.enum.includes(v);
  const key = name === 'id' && collection && `${collection}.id` in own ? `${collection}.id` : name;
  if (key in own && fits(own[key])) return own[key];
  return exampleOf(schema, build.examples, 'param', name);
}

const scopeExample = (scope: string) => ({ detail: Detail.missingScope(scope) });

/**
 * The responses every operation of a kind can get from the shared layers (shared/runtime/root.ts,
 * the gate, rate limits, Idempotency-Key, the error handler), whatever its handler does: one table,
 * so "every status the server answers is documented" holds for every function alike.
 */
interface OperationTraits {
  route: RouteWithAccess;
  surface: Surface;
  method: string;
  hasPathIds: boolean;
  hasInput: boolean;
}
/** the surfaces that take a credential (sign-in routes take none: they hand one out) */
const credentialed = (t: OperationTraits) =>
  t.surface !== 'public' && t.surface !== 'signed' && t.surface !== 'sign_in';
/** Idempotency-Key applies to POST and PATCH on the API-key surface (shared/http/idempotency.ts) */
const replayable = (t: OperationTraits) =>
  t.surface === 'api' && (t.method === 'post' || t.method === 'patch');
const STANDARD_RESPONSES: { status: string; when: (t: OperationTraits) => boolean; response: Json }[] = [
  // spec rule 6 on credential-free paths: a key sent anyway is verified (401 when invalid), then refused
  {
    status: '401',
    when: (t) => t.surface === 'public',
    response: {
      description: 'An API key was sent and it is not valid (this operation needs none)',
      content: errorBody({ detail: Detail.invalidApiKey }),
    },
  },
  {
    status: '403',
    when: (t) => t.surface === 'public',
    response: {
      description:
        'An API key was sent: this operation takes none (only GET /api/v2/health and GET /api/v1/openapi.json tolerate one)',
      content: errorBody({ detail: Detail.apiKeyNotPermitted }),
    },
  },
  {
    status: '404',
    when: (t) => t.hasPathIds,
    response: {
      description: "No such resource in this tenant (unknown ids and other tenants' ids alike)",
      content: errorBody({ detail: Detail.notFound }),
    },
  },
  {
    status: '409',
    when: replayable,
    response: {
      description: 'A request with the same Idempotency-Key is still running: retry later',
      content: errorBody({ detail: Detail.idempotencyInProgress }),
    },
  },
  {
    status: '413',
    when: (t) => t.method !== 'get',
    response: {
      description: 'The request body is larger than the server accepts (MAX_BODY_BYTES)',
      content: errorBody({ detail: Detail.bodyTooLarge }),
    },
  },
  {
    status: '422',
    when: replayable,
    response: { $ref: '#/components/responses/ValidationOrKeyReused' },
  },
  {
    status: '422',
    when: (t) => t.hasInput && !replayable(t),
    response: { $ref: '#/components/responses/ValidationError' },
  },
  {
    status: '429',
    when: (t) => credentialed(t) || t.surface === 'sign_in' || isAuthPath(toHonoPath(t.route.path)),
    response: { $ref: '#/components/responses/RateLimited' },
  },
  {
    status: '503',
    when: (t) => credentialed(t) || t.hasInput,
    response: {
      description: 'The database (or the Idempotency-Key store) is unreachable: retry after Retry-After',
      headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
      content: errorBody({ detail: Detail.databaseUnavailable }),
    },
  },
];

function standardErrors(route: RouteWithAccess, surface: Surface, scopes: string[]): Record<string, Json> {
  const responses: Record<string, Json> = {};
  const traits: OperationTraits = {
    route,
    surface,
    method: route.method,
    hasPathIds: pathParamsOf(route.path).length > 0,
    hasInput: Boolean(route.params || route.query || route.body),
  };
  if (surface === 'sign_in') {
    responses['403'] = {
      description: 'API keys may not call this endpoint',
      content: errorBody({ detail: Detail.apiKeyNotPermitted }),
    };
    // a key is verified before it is refused (an invalid one is 401, like everywhere)
    responses['401'] = {
      description: 'An API key that is not valid was sent',
      content: errorBody({ detail: Detail.invalidApiKey }),
    };
  }
  if (credentialed(traits)) {
    const unauthorizedExamples: Record<string, Json> = {
      missing: { value: { detail: Detail.missingCredentials } },
    };
    if (surface === 'api') unauthorizedExamples.invalidKey = { value: { detail: Detail.invalidApiKey } };
    if (surface === 'api' || surface === 'dashboard')
      unauthorizedExamples.invalidSession = { value: { detail: Detail.invalidSession } };
    if (surface === 'internal')
      unauthorizedExamples.invalidToken = { value: { detail: Detail.invalidInternalToken } };
    if (surface === 'end_user')
      unauthorizedExamples.invalidToken = { value: { detail: Detail.invalidEndUserToken } };
    responses['401'] = {
      description: 'Missing or invalid credential',
      headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } },
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          examples: unauthorizedExamples,
        },
      },
    };
    const forbiddenExamples: Record<string, Json> = {};
    if (surface === 'api') {
      const [pathScope, ...extra] = scopes;
      if (pathScope) forbiddenExamples.missingScope = { value: scopeExample(pathScope) };
      extra.forEach((s, i) => {
        forbiddenExamples[`insufficientPermissions${i || ''}`] = {
          value: { detail: Detail.insufficientPermissions(s) },
        };
      });
    } else {
      forbiddenExamples.apiKeyNotPermitted = { value: { detail: Detail.apiKeyNotPermitted } };
    }
    if (surface === 'api' || surface === 'dashboard')
      forbiddenExamples.role = { value: { detail: Detail.roleRequired('tenant_admin') } };
    responses['403'] = {
      description:
        surface === 'api'
          ? 'The API key lacks a required scope (exact detail strings below), or the session lacks the role'
          : 'This credential may not call this endpoint',
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples: forbiddenExamples },
      },
    };
  }
  for (const standard of STANDARD_RESPONSES)
    if (standard.when(traits)) responses[standard.status] = standard.response;
  return responses;
}

/** What one document build shares across its operations. */
interface Build {
  catalog: SchemaCatalog;
  examples: ExampleContext;
  params: Record<string, string>;
  paramExamples: Record<string, unknown>;
}

const IDEMPOTENCY_KEY_PARAM = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Any 1-255 visible ASCII characters, new for each distinct request. The first response is kept 24 hours and replayed (with `Idempotent-Replayed: true`) for a retry with the same key; the same key with another request is 422, a retry while the first still runs is 409.',
  // the server's KEY_SHAPE (shared/http/idempotency.ts): visible ASCII, no spaces
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]{1,255}$' },
  example: 'b3f1c2e4-7a9d-4e35-9c1f-2d8e6a5b4c3d',
};

/** Rate-limited: tenant credentials, and end-user login by IP (shared/ratelimit/middleware.ts). */
const isRateLimited = (surface: Surface, honoPath: string) =>
  surface === 'api' || surface === 'dashboard' || surface === 'end_user' || isAuthPath(honoPath);

const RATE_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};
const REQUEST_ID_HEADER = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };

/** Every inline response gets X-Request-Id, and the X-RateLimit-* headers where the limiter counts. */
function declareHeaders(responses: Record<string, Json>, limited: boolean) {
  for (const response of Object.values(responses)) {
    if ('$ref' in response) continue;
    response.headers = {
      ...REQUEST_ID_HEADER,
      ...(limited ? RATE_HEADERS : {}),
      ...((response.headers as Json | undefined) ?? {}),
    };
  }
}

/** The paragraph every operation ends with: who may call it. */
function accessText(route: RouteWithAccess): string {
  const { surface, scopes = [], role, session } = route.access;
  const access = [
    session === 'required'
      ? 'A dashboard session token (`Authorization: Bearer`) is required.'
      : SURFACE_TEXT[surface],
  ];
  if (scopes.length > 0) access.push(`API-key scopes: ${scopes.map((s) => `\`${s}\``).join(', ')}.`);
  if (role && role !== 'agent') access.push(`Dashboard sessions need the \`${role}\` role or above.`);
  return `**Access:** ${access.join(' ')}`;
}

/**
 * The id a route declares; a route without one (just added) gets one from its path so the document
 * stays valid, and test/integration/openapi.test.ts names it until it declares its own.
 */
const operationIdOf = (route: RouteWithAccess) =>
  route.operationId ??
  `${route.method}${route.path
    .replace(/\{([^}]+)\}/g, 'By_$1')
    .split(/[^A-Za-z0-9_]+/)
    .filter(Boolean)
    .map((s) => s[0]?.toUpperCase() + s.slice(1))
    .join('')}${route.path.length > 1 && route.path.endsWith('/') ? 'Slash' : ''}`;

/** The route's own responses, then the shared layers' (STANDARD_RESPONSES), with their headers. */
function responsesOf(route: RouteWithAccess, build: Build): Record<string, Json> {
  const { surface, scopes = [] } = route.access;
  const responses: Record<string, Json> = {};
  for (const [status, r] of Object.entries(route.responses)) {
    const entry: Json = { description: r.description };
    if (r.mediaTypes)
      // a file: text, or JSON whose shape is the file's own (no schema to hold it to)
      entry.content = Object.fromEntries(
        r.mediaTypes.map((t) => [
          t,
          { schema: t === 'application/json' ? { description: 'The file' } : { type: 'string' } },
        ]),
      );
    else if (r.schema || r.example !== undefined || Number(status) >= 400) {
      const media: Json = {};
      if (r.schema) media.schema = build.catalog.convert(r.schema, 'output');
      // every refusal carries the spec's error body, declared or not
      else if (Number(status) >= 400) media.schema = { $ref: `${COMPONENT_REF}Error` };
      if (r.example !== undefined) media.example = r.example;
      entry.content = { 'application/json': media };
    }
    responses[status] = entry;
  }
  for (const [status, r] of Object.entries(standardErrors(route, surface, [...scopes])))
    if (!(status in responses)) responses[status] = r;
  responses['503'] ??= { $ref: '#/components/responses/ServiceUnavailable' };
  declareHeaders(responses, isRateLimited(surface, toHonoPath(route.path)));
  return responses;
}

function operationOf(route: RouteWithAccess, build: Build): Json {
  const { surface, scopes = [], session } = route.access;
  const emits = route.emits?.length
    ? `**Emits:** ${route.emits.map((e) => `\`${e}\``).join(', ')} (see Webhooks).`
    : undefined;
  const op: Json = {
    operationId: operationIdOf(route),
    summary: route.summary,
    description: [route.description, emits, accessText(route)].filter(Boolean).join('\n\n'),
    tags: route.tags,
    security: session === 'required' ? [{ BearerAuth: [] }] : SECURITY_BY_SURFACE[surface],
    'x-surface': surface,
    responses: responsesOf(route, build),
  };
  if (route.deprecated) op.deprecated = true;
  if (scopes.length > 0) op['x-required-scopes'] = [...scopes];
  const parameters = parametersOf(route, build);
  if (surface === 'api' && (route.method === 'post' || route.method === 'patch'))
    parameters.push(IDEMPOTENCY_KEY_PARAM);
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body) {
    const media: Json = { schema: build.catalog.convert(route.body, 'input') };
    if (route.bodyExample !== undefined) media.example = route.bodyExample;
    // a body the server also accepts absent (an optional schema) is not required
    const required = !route.body.safeParse(undefined).success;
    op.requestBody = { required, content: { 'application/json': media } };
  }
  return op;
}

/**
 * Examples where a route gave none: composed from the named components' own examples and the value
 * table, once every component is known (so a `$ref` finds its example).
 */
function fillExamples(op: Json, build: Build) {
  const where = `${op.operationId}`;
  const media = [
    (op.requestBody as Json | undefined)?.content,
    ...Object.entries(op.responses as Record<string, Json>)
      .filter(([status]) => status.startsWith('2'))
      .map(([, r]) => r.content),
  ];
  for (const content of media) {
    const json = (content as Record<string, Json> | undefined)?.['application/json'];
    if (!json?.schema || json.example !== undefined) continue;
    json.example = exampleOf(json.schema as Json, build.examples, where);
  }
}

export interface DocumentOptions {
  version?: string;
  /** server URL; default: the host serving the document */
  serverUrl?: string;
  /** default `public` */
  audience?: Audience;
  /** getting started, tag order and descriptions, parameter texts, example values */
  guide?: ReferenceGuide;
  /** called with every `Component.field` whose example value was made up (no table entry) */
  onExampleGap?: (where: string) => void;
}

const SECURITY_BY_AUDIENCE: Record<Audience, readonly (keyof typeof SECURITY_SCHEMES)[]> = {
  public: ['ApiKeyHeader', 'BearerAuth', 'EndUserToken', 'WebhookSignature'],
  internal: ['InternalToken', 'QStashSignature'],
};

const MINIMAL_DESCRIPTION =
  'Public API of a multi-tenant customer-support / IT-service-management platform. Errors are `{"detail": "<string>"}` with fixed strings; request validation answers 422 with `{"detail": [{"loc", "msg", "type"}]}`.';

/** The error schemas every operation refers to (what the shared layers answer). */
const ERROR_SCHEMAS: Record<string, Json> = {
  Error: {
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

/** Response headers, and the responses many operations share. */
const SHARED_COMPONENTS = {
  headers: {
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
    'X-RateLimit-Limit': {
      description: 'Requests allowed in the current window for this tenant, plan and kind of endpoint',
      schema: { type: 'integer', minimum: 0 },
    },
    'X-RateLimit-Remaining': {
      description: 'Requests left in the current window',
      schema: { type: 'integer', minimum: 0 },
    },
    'X-RateLimit-Reset': {
      description: 'Seconds until the current window resets',
      schema: { type: 'integer', minimum: 0 },
    },
  },
  responses: {
    ValidationError: {
      description: 'Request validation failed',
      headers: REQUEST_ID_HEADER,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/ValidationError' },
          example: { detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }] },
        },
      },
    },
    ValidationOrKeyReused: {
      description:
        'Request validation failed (`detail` a list), or the Idempotency-Key was already used with a different request (`detail` a string)',
      headers: REQUEST_ID_HEADER,
      content: {
        'application/json': {
          schema: {
            oneOf: [{ $ref: '#/components/schemas/ValidationError' }, { $ref: '#/components/schemas/Error' }],
          },
          examples: {
            validation: {
              summary: 'Invalid input',
              value: { detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }] },
            },
            keyReused: {
              summary: 'Idempotency-Key reused with another request',
              value: { detail: Detail.idempotencyKeyReused },
            },
          },
        },
      },
    },
    RateLimited: {
      description: 'Rate limit exceeded (per tenant and plan; see the X-RateLimit-* headers)',
      headers: {
        ...REQUEST_ID_HEADER,
        ...RATE_HEADERS,
        'Retry-After': { $ref: '#/components/headers/Retry-After' },
      },
      content: errorBody({ detail: Detail.rateLimited }),
    },
    ServiceUnavailable: {
      description:
        'A backing service is briefly unavailable (database, or the idempotency store for a keyed request); safe to retry after Retry-After',
      headers: { ...REQUEST_ID_HEADER, 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
      content: errorBody({ detail: Detail.databaseUnavailable }),
    },
  },
};

function infoOf(audience: Audience, options: DocumentOptions) {
  return {
    title: audience === 'public' ? 'Support Platform API' : 'Support Platform internal API',
    version: options.version ?? '1.0.0',
    description:
      audience === 'public'
        ? (options.guide?.description ?? MINIMAL_DESCRIPTION)
        : 'Routes for the platform’s own services (voice agent, inbound channels, jobs) and the QStash delivery callback. Not for integrators; served to the internal token at /api/internal/openapi.json.',
    // placeholders an operator replaces with the deployment's own (docs/reference.md)
    contact: { name: 'Support Platform API team', email: 'api@support-platform.example' },
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  };
}

/** The headers of every delivery (shared/webhooks/signing.ts), as the receiver reads them. */
const WEBHOOK_HEADERS = (type: string): Json[] => [
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
];

/** `ticket.created` -> `TicketCreated`, `kb.article.published` -> `KbArticlePublished` */
const pascalOf = (type: string) =>
  type
    .split(/[._]/)
    .map((w) => (w[0]?.toUpperCase() ?? '') + w.slice(1))
    .join('');

/**
 * The top-level `webhooks`: per catalog event, the POST a subscriber receives: the envelope
 * (`<Event>Event`), its `data` (`<Event>EventData`), the delivery headers and the event's example.
 */
function webhooksOf(events: readonly WebhookEventDoc[], catalog: SchemaCatalog): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const event of events) {
    const name = pascalOf(event.type);
    catalog.add({ output: { [`${name}EventData`]: event.data } });
    const data = catalog.convert(event.data, 'output');
    catalog.register(`${name}Event`, {
      type: 'object',
      description: `The body of a \`${event.type}\` delivery: ${event.description}`,
      required: ['event_type', 'timestamp', 'data'],
      properties: {
        event_type: { type: 'string', const: event.type, description: 'The event type' },
        timestamp: {
          type: 'string',
          format: 'date-time',
          description: 'When the event happened (ISO 8601 UTC)',
        },
        data: { ...data, description: 'The resource under its named key' },
      },
    });
    out[event.type] = {
      post: {
        operationId: `on${name}`,
        summary: event.type,
        description: `${event.description}\n\nSent to every active subscription of the tenant that lists \`${event.type}\` or \`*\`. Answer 2xx within 10 seconds; otherwise the delivery is retried (2, 4, 8, 16 s later; at most 5 attempts). There is no event id: deduplicate on X-Webhook-Event with the resource's own id.`,
        tags: [`Events: ${event.group}`],
        security: [{ WebhookSignature: [] }],
        parameters: WEBHOOK_HEADERS(event.type),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: `${COMPONENT_REF}${name}Event` },
              example: { event_type: event.type, timestamp: '2026-03-02T09:30:00.000Z', data: event.example },
            },
          },
        },
        responses: {
          '200': { description: 'Any 2xx: delivered (the body is ignored)' },
          default: { description: 'Any other status, or no answer within 10 seconds: retried later' },
        },
      },
    };
  }
  return out;
}

/**
 * Properties without a description of their own get the guide's (`Component.field`, then the field
 * name), in the named schemas and in the operations' inline ones.
 */
function describeFields(
  schemas: Record<string, Json>,
  paths: Record<string, Record<string, Json>>,
  fields: Record<string, string>,
) {
  const visit = (node: unknown, owner: string) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n, owner);
      return;
    }
    const schema = node as Json;
    for (const [field, prop] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      if (!prop.description) {
        const text = fields[`${owner}.${field}`] ?? fields[field];
        if (text) prop.description = text;
      }
      visit(prop, owner);
    }
    for (const key of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties']) visit(schema[key], owner);
  };
  for (const [name, schema] of Object.entries(schemas)) visit(schema, name);
  for (const item of Object.values(paths))
    for (const op of Object.values(item)) {
      const media = (x: unknown) =>
        ((x as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json'];
      visit(media(op.requestBody)?.schema, '');
      for (const r of Object.values((op.responses ?? {}) as Record<string, Json>))
        visit(media(r)?.schema, '');
    }
}

/** The operations of `audience`, by path (sorted), and the tags they use. */
function collectPaths(sources: readonly DocSource[], audience: Audience, build: Build) {
  const paths: Record<string, Record<string, Json>> = {};
  const tags = new Set<string>();
  for (const source of sources) {
    for (const route of source.routes) {
      if (AUDIENCE_OF[route.access.surface] !== audience || route.undocumented) continue;
      paths[route.path] ??= {};
      const item = paths[route.path] as Record<string, Json>;
      if (item[route.method])
        throw new Error(`OpenAPI: ${route.method.toUpperCase()} ${route.path} documented twice`);
      item[route.method] = { ...operationOf(route, build), 'x-function': source.name };
      for (const t of route.tags) tags.add(t);
    }
  }
  const sorted = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  return { paths: sorted, tags };
}

/** Tags in the guide's reading order, then any the guide does not know yet. */
function orderedTags(used: Set<string>, guide: ReferenceGuide | undefined) {
  const known = (guide?.tags ?? []).filter((t) => used.has(t.name));
  const rest = [...used].filter((t) => !known.some((k) => k.name === t)).sort();
  return [...known, ...rest.map((name) => ({ name }))];
}

export function buildOpenApiDocument(sources: readonly DocSource[], options: DocumentOptions = {}) {
  const audience = options.audience ?? 'public';
  const guide = options.guide;
  const catalog = new SchemaCatalog();
  for (const source of sources) if (source.components) catalog.add(source.components);
  const gaps = new Set<string>();
  const build: Build = {
    catalog,
    examples: { catalog, values: guide?.examples ?? { ids: {}, values: {} }, gaps },
    params: guide?.params ?? {},
    paramExamples: guide?.paramExamples ?? {},
  };
  const { paths, tags } = collectPaths(sources, audience, build);
  const webhooks = audience === 'public' ? webhooksOf(guide?.webhooks ?? [], catalog) : undefined;
  catalog.applyDocs();
  for (const item of Object.values(paths)) for (const op of Object.values(item)) fillExamples(op, build);
  for (const gap of gaps) options.onExampleGap?.(gap);
  const schemas = { ...ERROR_SCHEMAS, ...catalog.schemas };
  describeFields(schemas, paths, guide?.fields ?? {});
  return {
    openapi: '3.1.0',
    info: infoOf(audience, options),
    servers: [
      {
        url: options.serverUrl ?? 'http://127.0.0.1:8787',
        description: 'Where this document was served from (`npm start` locally by default)',
      },
    ],
    tags: orderedTags(tags, guide),
    paths,
    ...(webhooks ? { webhooks } : {}),
    components: {
      securitySchemes: Object.fromEntries(
        SECURITY_BY_AUDIENCE[audience].map((name) => [name, SECURITY_SCHEMES[name]]),
      ),
      schemas,
      ...SHARED_COMPONENTS,
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
