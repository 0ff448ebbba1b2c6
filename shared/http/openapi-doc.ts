import type { ZodType } from 'zod';
import * as z from 'zod';
import type { Surface } from '../context/surface';
import { Detail } from './errors';
import type { ComponentSet, MiddlewareDoc, OperationTraits, RouteWithAccess } from './openapi';
import {
  ERROR_REF,
  ERROR_SCHEMAS,
  INFO_CONTACT,
  INFO_LICENSE,
  INTERNAL_DESCRIPTION,
  MINIMAL_DESCRIPTION,
  SECURITY_SCHEMES,
  SHARED_HEADERS,
  STANDARD_TEXT,
  SURFACE_TEXT,
  VALIDATION_EXAMPLE,
  VALIDATION_REF,
  WEBHOOK_HEADERS,
  webhookDeliveryText,
} from './openapi-content';
import {
  COMPONENT_REF,
  type ExampleContext,
  type ExampleValues,
  exampleOf,
  expandRequiredVariants,
  SchemaCatalog,
  tidy,
} from './openapi-schemas';
import { toHonoPath } from './route';

/**
 * Builds the OpenAPI 3.1 document from every function's `routes` (functions/<name>/routes.ts),
 * converting the SAME zod schemas the handlers validate with (JSON Schema 2020-12, which is
 * OpenAPI 3.1's dialect). Per operation it adds what the route's `access` says (the manifest's rule
 * for its path, as the gate applies it, with the route's own role; functions/registry.ts joins them):
 * the credential it takes (security), the scopes an API key needs (`x-required-scopes`), the least
 * dashboard role, and the standard errors (401, 403 with the spec's exact strings; 404, 409, 413,
 * 415, 422, 429, 503 from STANDARD_RESPONSES) with examples.
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
 * order with their descriptions, example values.
 */
export interface ReferenceGuide {
  description: string;
  tags: readonly { name: string; description: string }[];
  /** parameter name (or `<collection>.id`) -> an example value, where the value table has none */
  paramExamples?: Record<string, unknown>;
  /**
   * component -> field -> description, for the properties of a component whose schema has none of
   * its own (nested properties by their own name). No fallback by field name alone: a field no entry
   * describes stays undescribed, and the document test fails on it.
   */
  fields?: Record<string, Record<string, string>>;
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

const errorBody = (example: unknown) => ({
  'application/json': { schema: { $ref: ERROR_REF }, example },
});

/** JSON Schema 2020-12 of a zod schema, without `$schema` (the document's dialect applies). */
export function jsonSchemaOf(schema: ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete out.$schema;
  return tidy(out) as Json;
}

/** `/api/v1/tickets/{ticket_id}` -> `['ticket_id']` */
export const pathParamsOf = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);

/**
 * A parameter's text is its route's own: `paramText`, else its zod schema's description. Nothing
 * fills it in by name, since one name means different things on different routes (a `from` of one
 * range is not the `from` of another); an undescribed parameter fails the document test.
 */
function parametersOf(route: RouteWithAccess, build: Build): Json[] {
  const params: Json[] = [];
  // `{id}` means what the segment before it names: `/conversations/{id}` -> `conversations.id`
  const collection = route.path.match(/\/([^/{}]+)\/\{id\}/)?.[1];
  const textOf = (name: string, own?: unknown) =>
    route.paramText?.[name] ?? (typeof own === 'string' ? own : undefined);
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
        ...(FROM_A_PREVIOUS_PAGE.has(name) ? {} : { example: paramExample(name, undefined, schema, build) }),
      });
    }
  }
  return params;
}

/**
 * Query parameters whose only valid values come from a previous answer (a page's `next_cursor`, a
 * delivery id of the log read): no example, since tools send every example at once (Swagger UI's
 * "Try it out" pre-fills them all) and a made-up one is refused, or refused beside `offset`.
 */
export const FROM_A_PREVIOUS_PAGE: ReadonlySet<string> = new Set(['cursor', 'before']);

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

/** the surfaces that take a credential (sign-in routes take none: they hand one out) */
const credentialed = (t: OperationTraits) =>
  t.surface !== 'public' && t.surface !== 'signed' && t.surface !== 'sign_in';

const REQUEST_ID_HEADER = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
const RETRY_AFTER = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };

/**
 * The refusals the gate and the root layers give an operation of a kind, whatever its handler does
 * (what a middleware adds is its `MiddlewareDoc`): one table, so "every status the server answers is
 * documented" holds for every function alike. Each response is written out in the operation, not a
 * `$ref` to `components/responses`, which some generators type as the first error schema they meet.
 */
const STANDARD_RESPONSES: { status: string; when: (t: OperationTraits) => boolean; response: () => Json }[] =
  [
    // spec rule 6 on credential-free paths: a key sent anyway is verified (401 when invalid), then refused
    {
      status: '401',
      when: (t) => t.surface === 'public',
      response: () => ({
        description: STANDARD_TEXT.publicKeyInvalid,
        content: errorBody({ detail: Detail.invalidApiKey }),
      }),
    },
    {
      status: '403',
      when: (t) => t.surface === 'public',
      response: () => ({
        description: STANDARD_TEXT.publicKeyRefused,
        content: errorBody({ detail: Detail.apiKeyNotPermitted }),
      }),
    },
    {
      status: '404',
      when: (t) => t.hasPathIds,
      response: () => ({
        description: STANDARD_TEXT.notFound,
        content: errorBody({ detail: Detail.notFound }),
      }),
    },
    {
      status: '413',
      when: (t) => t.method !== 'get',
      response: () => ({
        description: STANDARD_TEXT.bodyTooLarge,
        content: errorBody({ detail: Detail.bodyTooLarge }),
      }),
    },
    {
      status: '415',
      when: (t) => t.method !== 'get',
      response: () => withRefusal(undefined, contentCoded(true)),
    },
    {
      status: '422',
      when: (t) => t.hasInput,
      response: () => ({
        description: STANDARD_TEXT.validation,
        content: { 'application/json': { schema: { $ref: VALIDATION_REF }, example: VALIDATION_EXAMPLE } },
      }),
    },
    {
      status: '503',
      when: (t) => credentialed(t) || t.hasInput,
      response: () => ({
        description: STANDARD_TEXT.unavailable,
        headers: { ...RETRY_AFTER },
        content: errorBody({ detail: Detail.databaseUnavailable }),
      }),
    },
  ];

/**
 * The gate's refusal of a compressed body (shared/runtime/body-size.ts), on every operation that
 * takes a body. Its Accept-Encoding is required where it is the operation's only 415, and optional
 * beside a route's own 415 (JSON only), which does not carry it.
 */
const contentCoded = (alone: boolean) => ({
  name: 'contentEncoding',
  summary: 'A body sent with Content-Encoding (gzip, br, …)',
  description: STANDARD_TEXT.contentEncoding,
  detail: Detail.contentEncodingUnsupported,
  headers: {
    'Accept-Encoding': {
      description: 'The only content coding a request body may have',
      required: alone,
      schema: { type: 'string', const: 'identity' },
    },
  },
});

/** The gate's 401 and 403 on a surface that takes a credential (or hands one out). */
function gateErrors(surface: Surface, scopes: string[]): Record<string, Json> {
  const responses: Record<string, Json> = {};
  if (surface === 'sign_in') {
    responses['403'] = {
      description: STANDARD_TEXT.signInKeyRefused,
      content: errorBody({ detail: Detail.apiKeyNotPermitted }),
    };
    // a key is verified before it is refused (an invalid one is 401, like everywhere)
    responses['401'] = {
      description: STANDARD_TEXT.signInKeyInvalid,
      content: errorBody({ detail: Detail.invalidApiKey }),
    };
  }
  if (surface === 'public' || surface === 'signed' || surface === 'sign_in') return responses;
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
    description: STANDARD_TEXT.unauthorized,
    headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } },
    content: { 'application/json': { schema: { $ref: ERROR_REF }, examples: unauthorizedExamples } },
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
    description: surface === 'api' ? STANDARD_TEXT.forbiddenApi : STANDARD_TEXT.forbidden,
    content: { 'application/json': { schema: { $ref: ERROR_REF }, examples: forbiddenExamples } },
  };
  return responses;
}

/**
 * A middleware's refusal added to an operation: on its own, an error body with its example; where
 * the operation already answers that status (a 422 of validation), both bodies and both examples.
 */
function withRefusal(
  existing: Json | undefined,
  refusal: NonNullable<MiddlewareDoc['refusals']>[string],
): Json {
  const example = { summary: refusal.summary, value: { detail: refusal.detail } };
  const headers = refusal.headers ? { ...refusal.headers } : undefined;
  if (!existing) {
    return {
      description: refusal.description,
      ...(headers ? { headers } : {}),
      content: errorBody({ detail: refusal.detail }),
    };
  }
  const media = (existing.content as Record<string, Json>)['application/json'] as Json;
  const schemas = media.schema ? [media.schema as Json] : [];
  const examples: Record<string, Json> = (media.examples as Record<string, Json> | undefined) ?? {
    ...(media.example !== undefined
      ? { first: { summary: existing.description, value: media.example } }
      : {}),
  };
  const isValidation = schemas.some((s) => s.$ref === VALIDATION_REF);
  return {
    description: `${existing.description}${isValidation ? ' (`detail` a list)' : ''}, or ${refusal.description}`,
    ...(headers || existing.headers ? { headers: { ...(existing.headers as Json), ...headers } } : {}),
    content: {
      'application/json': {
        schema: schemas.some((s) => s.$ref === ERROR_REF)
          ? schemas[0]
          : { oneOf: [...schemas, { $ref: ERROR_REF }] },
        examples: {
          ...(isValidation ? { validation: { summary: 'Invalid input', value: media.example } } : examples),
          [refusal.name]: example,
        },
      },
    },
  };
}

/** What one document build shares across its operations. */
interface Build {
  catalog: SchemaCatalog;
  examples: ExampleContext;
  paramExamples: Record<string, unknown>;
  middleware: readonly MiddlewareDoc[];
}

/**
 * Every inline response gets X-Request-Id, and the headers each applying middleware sets on the
 * answers that carry them.
 */
function declareHeaders(responses: Record<string, Json>, traits: OperationTraits, applying: MiddlewareDoc[]) {
  for (const [status, response] of Object.entries(responses)) {
    const set: Json = {};
    for (const mw of applying) {
      const h = mw.responseHeaders;
      if (!h?.carriedBy(status, traits)) continue;
      for (const name of Object.keys(h.components)) set[name] = { $ref: `#/components/headers/${name}` };
    }
    response.headers = { ...REQUEST_ID_HEADER, ...set, ...((response.headers as Json | undefined) ?? {}) };
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

const traitsOf = (route: RouteWithAccess): OperationTraits => ({
  route,
  surface: route.access.surface,
  method: route.method,
  honoPath: toHonoPath(route.path),
  hasPathIds: pathParamsOf(route.path).length > 0,
  hasInput: Boolean(route.params || route.query || route.body || route.rawBody),
});

/**
 * The route's own responses, then the gate's and the root layers' (STANDARD_RESPONSES), then each
 * applying middleware's refusals, with the headers each answer carries.
 */
function responsesOf(route: RouteWithAccess, build: Build, applying: MiddlewareDoc[]): Record<string, Json> {
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
      else if (Number(status) >= 400) media.schema = { $ref: ERROR_REF };
      if (r.example !== undefined) media.example = r.example;
      entry.content = { 'application/json': media };
    }
    responses[status] = entry;
  }
  // a header a middleware reads is input the server validates (422) like the rest
  const traits = { ...traitsOf(route) };
  traits.hasInput ||= applying.some((mw) => (mw.parameters?.length ?? 0) > 0);
  for (const [status, r] of Object.entries(gateErrors(surface, [...scopes])))
    if (!(status in responses)) responses[status] = r;
  for (const standard of STANDARD_RESPONSES)
    if (standard.when(traits) && !(standard.status in responses))
      responses[standard.status] = standard.response();
  // a route's own 415 (JSON only) is answered after the gate's: both bodies, both examples
  if (traits.method !== 'get' && route.responses[415] !== undefined)
    responses['415'] = withRefusal(responses['415'], contentCoded(false));
  for (const mw of applying)
    for (const [code, refusal] of Object.entries(mw.refusals ?? {}))
      if (route.responses[Number(code)] === undefined)
        responses[code] = withRefusal(responses[code], refusal);
  responses['503'] ??= STANDARD_RESPONSES.find((s) => s.status === '503')!.response();
  declareHeaders(responses, traits, applying);
  return responses;
}

function operationOf(route: RouteWithAccess, build: Build): Json {
  const { surface, scopes = [], session } = route.access;
  const emits = route.emits?.length
    ? `**Emits:** ${route.emits.map((e) => `\`${e}\``).join(', ')} (see Webhooks).`
    : undefined;
  const applying = build.middleware.filter((mw) => mw.appliesTo(traitsOf(route)));
  const op: Json = {
    operationId: operationIdOf(route),
    summary: route.summary,
    description: [route.description, emits, accessText(route)].filter(Boolean).join('\n\n'),
    tags: route.tags,
    security: session === 'required' ? [{ BearerAuth: [] }] : SECURITY_BY_SURFACE[surface],
    'x-surface': surface,
    responses: responsesOf(route, build, applying),
  };
  if (route.deprecated) op.deprecated = true;
  if (scopes.length > 0) op['x-required-scopes'] = [...scopes];
  const parameters = parametersOf(route, build);
  for (const mw of applying) parameters.push(...(mw.parameters ?? []).map((p) => ({ ...p })));
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body) {
    const media: Json = { schema: build.catalog.convert(route.body, 'input') };
    if (route.bodyExample !== undefined) media.example = route.bodyExample;
    // a body the server also accepts absent (an optional schema) is not required
    const required = !route.body.safeParse(undefined).success;
    op.requestBody = { required, content: { 'application/json': media } };
  }
  if (route.rawBody) {
    const { mediaTypes, description, example } = route.rawBody;
    // the bytes themselves (OpenAPI 3.1: a binary body is a media type with no JSON schema to hold it)
    const media = { schema: { type: 'string', contentMediaType: 'application/octet-stream' }, example };
    op.requestBody = {
      required: true,
      description,
      content: Object.fromEntries(mediaTypes.map((t) => [t, { ...media }])),
    };
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
  /** getting started, tag order and descriptions, example values */
  guide?: ReferenceGuide;
  /** called with every `Component.field` whose example value was made up (no table entry) */
  onExampleGap?: (where: string) => void;
  /** what each middleware adds to the operations it runs on, declared beside it */
  middleware?: readonly MiddlewareDoc[];
}

const SECURITY_BY_AUDIENCE: Record<Audience, readonly (keyof typeof SECURITY_SCHEMES)[]> = {
  public: ['ApiKeyHeader', 'BearerAuth', 'EndUserToken', 'WebhookSignature'],
  internal: ['InternalToken', 'QStashSignature'],
};

function infoOf(audience: Audience, options: DocumentOptions) {
  return {
    title: audience === 'public' ? 'Support Platform API' : 'Support Platform internal API',
    version: options.version ?? '1.0.0',
    description:
      audience === 'public' ? (options.guide?.description ?? MINIMAL_DESCRIPTION) : INTERNAL_DESCRIPTION,
    contact: INFO_CONTACT,
    license: INFO_LICENSE,
  };
}

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
        description: webhookDeliveryText(event.type, event.description),
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
 * Properties of a named schema without a description of their own get their component's entry in the
 * guide; the operations' inline schemas have none (theirs come from `.describe()` alone).
 */
function describeFields(schemas: Record<string, Json>, fields: Record<string, Record<string, string>>) {
  const visit = (node: unknown, owner: string) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n, owner);
      return;
    }
    const schema = node as Json;
    for (const [field, prop] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      if (!prop.description) {
        const text = fields[owner]?.[field];
        if (text) prop.description = text;
      }
      visit(prop, owner);
    }
    for (const key of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties']) visit(schema[key], owner);
  };
  for (const [name, schema] of Object.entries(schemas)) visit(schema, name);
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
    paramExamples: guide?.paramExamples ?? {},
    middleware: options.middleware ?? [],
  };
  const { paths, tags } = collectPaths(sources, audience, build);
  const webhooks = audience === 'public' ? webhooksOf(guide?.webhooks ?? [], catalog) : undefined;
  catalog.applyDocs();
  for (const item of Object.values(paths)) for (const op of Object.values(item)) fillExamples(op, build);
  for (const gap of gaps) options.onExampleGap?.(gap);
  const schemas = { ...ERROR_SCHEMAS, ...catalog.schemas };
  describeFields(schemas, guide?.fields ?? {});
  // after the prose is on the properties: each variant carries its own copy of them
  expandRequiredVariants(schemas, paths);
  const headers = { ...SHARED_HEADERS };
  for (const mw of build.middleware) Object.assign(headers, mw.responseHeaders?.components);
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
      headers,
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
