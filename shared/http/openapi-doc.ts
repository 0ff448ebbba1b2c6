import { type ZodType, z } from 'zod';
import { type Surface, scopeRequirement, surfaceOf } from '../auth/access';
import { Detail } from './errors';
import type { RouteDoc } from './openapi';

/**
 * Builds the OpenAPI 3.1 document from every function's `routes` (functions/<name>/openapi.ts),
 * converting the SAME zod schemas the handlers validate with (JSON Schema 2020-12, which is
 * OpenAPI 3.1's dialect). Per operation it adds what the tables of shared/auth decide: the
 * credential the path takes (security), the scopes an API key needs (`x-required-scopes`), and
 * the standard errors (401, 403 with the spec's exact strings, 422, 429) with examples.
 */
export interface DocSource {
  /** function name (manifest) */
  name: string;
  routes: readonly RouteDoc[];
}

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

/** `/api/v1/tickets/{ticket_id}` -> `/api/v1/tickets/:ticket_id` (the Hono form, for the tables) */
export const toHonoPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

function parametersOf(route: RouteDoc): Json[] {
  const params: Json[] = [];
  const pathSchema = route.params ? jsonSchemaOf(route.params, 'input') : null;
  const pathProps = (pathSchema?.properties ?? {}) as Record<string, Json>;
  for (const name of pathParamsOf(route.path)) {
    const { description, ...schema } = pathProps[name] ?? { type: 'string' };
    params.push({ name, in: 'path', required: true, schema, ...(description ? { description } : {}) });
  }
  if (route.query) {
    const q = jsonSchemaOf(route.query, 'input');
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const [name, prop] of Object.entries((q.properties ?? {}) as Record<string, Json>)) {
      const { description, ...schema } = prop;
      // a query parameter with a default is never required of the caller
      const isRequired = required.has(name) && !('default' in schema);
      params.push({
        name,
        in: 'query',
        required: isRequired,
        schema,
        ...(description ? { description } : {}),
      });
    }
  }
  return params;
}

const scopeExample = (scope: string) => ({ detail: Detail.missingScope(scope) });

function standardErrors(route: RouteDoc, surface: Surface, scopes: string[]): Record<string, Json> {
  const responses: Record<string, Json> = {};
  const hasInput = Boolean(route.params || route.query || route.body);
  if (surface === 'sign_in')
    responses['403'] = {
      description: 'API keys may not call this endpoint',
      content: errorBody({ detail: Detail.apiKeyNotPermitted }),
    };
  if (surface !== 'public' && surface !== 'signed' && surface !== 'sign_in') {
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
  if (hasInput) responses['422'] = { $ref: '#/components/responses/ValidationError' };
  if (surface !== 'public' && surface !== 'signed' && surface !== 'sign_in')
    responses['429'] = { $ref: '#/components/responses/RateLimited' };
  return responses;
}

function operationOf(route: RouteDoc): Json {
  const honoPath = toHonoPath(route.path);
  const surface = surfaceOf(honoPath);
  const need = surface === 'api' ? scopeRequirement(route.method.toUpperCase(), honoPath) : null;
  const scopes = need ? [need.pathScope, ...need.extraScopes] : [];
  const access = [SURFACE_TEXT[surface]];
  if (scopes.length > 0) access.push(`API-key scopes: ${scopes.map((s) => `\`${s}\``).join(', ')}.`);
  const responses: Record<string, Json> = {};
  for (const [status, r] of Object.entries(route.responses)) {
    const entry: Json = { description: r.description };
    if (r.schema || r.example !== undefined) {
      const media: Json = {};
      if (r.schema) media.schema = jsonSchemaOf(r.schema, 'output');
      if (r.example !== undefined) media.example = r.example;
      entry.content = { 'application/json': media };
    }
    responses[status] = entry;
  }
  for (const [status, r] of Object.entries(standardErrors(route, surface, scopes)))
    if (!(status in responses)) responses[status] = r;
  const op: Json = {
    operationId: `${route.method}${route.path
      .replace(/\{([^}]+)\}/g, 'By_$1')
      .split(/[^A-Za-z0-9_]+/)
      .filter(Boolean)
      .map((s) => s[0]?.toUpperCase() + s.slice(1))
      .join('')}`,
    summary: route.summary,
    description: [route.description, `**Access:** ${access.join(' ')}`].filter(Boolean).join('\n\n'),
    tags: route.tags,
    security: SECURITY_BY_SURFACE[surface],
    'x-surface': surface,
    responses,
  };
  if (scopes.length > 0) op['x-required-scopes'] = scopes;
  const parameters = parametersOf(route);
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body)
    op.requestBody = {
      required: true,
      content: { 'application/json': { schema: jsonSchemaOf(route.body, 'input') } },
    };
  return op;
}

export interface DocumentOptions {
  version?: string;
  /** server URL; default: the host serving the document */
  serverUrl?: string;
}

export function buildOpenApiDocument(sources: readonly DocSource[], options: DocumentOptions = {}) {
  const paths: Record<string, Record<string, Json>> = {};
  const tags = new Set<string>();
  for (const source of sources) {
    for (const route of source.routes) {
      paths[route.path] ??= {};
      const item = paths[route.path] as Record<string, Json>;
      if (item[route.method])
        throw new Error(`OpenAPI: ${route.method.toUpperCase()} ${route.path} documented twice`);
      item[route.method] = { ...operationOf(route), 'x-function': source.name };
      for (const t of route.tags) tags.add(t);
    }
  }
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Support Platform API',
      version: options.version ?? '1.0.0',
      description:
        'Public API of a multi-tenant customer-support / IT-service-management platform. Errors are `{"detail": "<string>"}` with fixed strings; request validation answers 422 with `{"detail": [{"loc", "msg", "type"}]}`.',
    },
    servers: [{ url: options.serverUrl ?? '/' }],
    tags: [...tags].sort().map((name) => ({ name })),
    paths: sortedPaths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: {
        Error: {
          type: 'object',
          required: ['detail'],
          properties: { detail: { type: 'string' } },
          example: { detail: Detail.notFound },
        },
        ValidationIssue: {
          type: 'object',
          required: ['loc', 'msg', 'type'],
          properties: {
            loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
            msg: { type: 'string' },
            type: { type: 'string' },
          },
        },
        ValidationError: {
          type: 'object',
          required: ['detail'],
          properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationIssue' } } },
        },
      },
      headers: {
        'WWW-Authenticate': { description: 'Always `Bearer`', schema: { type: 'string', const: 'Bearer' } },
        'Retry-After': { description: 'Seconds until the window frees up', schema: { type: 'integer' } },
      },
      responses: {
        ValidationError: {
          description: 'Request validation failed',
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/ValidationError' },
              example: { detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }] },
            },
          },
        },
        RateLimited: {
          description: 'Rate limit exceeded (per tenant and plan; see the X-RateLimit-* headers)',
          headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
          content: errorBody({ detail: Detail.rateLimited }),
        },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
