// The OpenAPI documents (public and internal, from one route registry): valid OpenAPI 3.1 (checked by
// @readme/openapi-parser), and complete: every route any function of the manifest serves is in one of
// them (a function without functions/<name>/routes.ts fails here until its docs land), with the
// security and scopes the gate's tables decide. And a reference that teaches: every example validates
// against its own schema, every parameter is described, every resource is a named component.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/docs/document';
import { REFERENCE_GUIDE } from '../../functions/docs/guide';
import { FUNCTIONS } from '../../functions/manifest';
import { ACCESS, DOC_SOURCES } from '../../functions/registry';
import { EVENT_TYPES } from '../../shared/events/catalog';
import { EVENT_EXAMPLES } from '../../shared/events/examples';

const { scopeRequirement, surfaceOf } = ACCESS;

import type { FunctionApp } from '../../shared/context/app-env';
import { buildOpenApiDocument, FROM_A_PREVIOUS_PAGE } from '../../shared/http/openapi-doc';
import { type Harness, postgresUnavailable, startHarness, TEST_SECRETS } from '../support/harness';

const ROOT = join(import.meta.dirname, '..', '..');
const publicDoc = openApiDocument('public') as any;
const internalDoc = openApiDocument('internal') as any;
/** both documents' operations: the completeness and gate checks cover every route */
const doc = { paths: { ...publicDoc.paths, ...internalDoc.paths } } as any;
for (const [path, item] of Object.entries<any>(internalDoc.paths))
  if (publicDoc.paths[path]) doc.paths[path] = { ...publicDoc.paths[path], ...item };

const operations = (d: any) =>
  Object.entries<any>(d.paths).flatMap(([path, item]) =>
    Object.entries<any>(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })),
  );
const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');

describe('OpenAPI document', () => {
  it.each([
    ['public', publicDoc],
    ['internal', internalDoc],
  ])('the %s document is valid OpenAPI 3.1', async (_, d) => {
    const result = await validate(structuredClone(d));
    expect(result.valid ? [] : result.errors, 'OpenAPI validation errors').toEqual([]);
    expect(result.valid).toBe(true);
    expect(d.openapi).toBe('3.1.0');
  });

  it('lists every functions/<name>/routes.ts in functions/registry.ts', () => {
    const onDisk = FUNCTIONS.filter((f) => existsSync(join(ROOT, 'functions', f.name, 'routes.ts'))).map(
      (f) => f.name,
    );
    const registered = DOC_SOURCES.map((s) => s.name);
    expect(onDisk.filter((n) => !registered.includes(n))).toEqual([]);
  });

  describe.each(FUNCTIONS.map((f) => f.name))('function %s', (name) => {
    it('documents every route its app serves', async () => {
      const { app } = (await import(`../../functions/${name}/app.ts`)) as { app: FunctionApp };
      const served = [
        ...new Set(
          app.routes
            .filter((r) => r.method !== 'ALL' && !r.path.includes('*'))
            .map((r) => `${r.method.toUpperCase()} ${toOpenApiPath(r.path)}`),
        ),
      ];
      // a route may stay out of the document only by saying why (`undocumented`)
      const leftOut = new Set(
        DOC_SOURCES.flatMap((s) => s.routes)
          .filter((r) => r.undocumented)
          .map((r) => `${r.method.toUpperCase()} ${r.path}`),
      );
      const missing = served.filter((entry) => {
        const [method, path] = entry.split(' ') as [string, string];
        return !doc.paths[path]?.[method.toLowerCase()] && !leftOut.has(entry);
      });
      expect(missing, `undocumented routes of ${name}`).toEqual([]);
    });
  });

  it('states security, required scopes and the standard errors from the gate tables', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const honoPath = path.replace(/\{([^}]+)\}/g, ':$1');
        const surface = surfaceOf(honoPath);
        expect(op['x-surface'], `${method} ${path}`).toBe(surface);
        if (surface === 'api') {
          const need = scopeRequirement(method.toUpperCase(), honoPath)!;
          expect(op['x-required-scopes']).toEqual([need.pathScope, ...need.extraScopes]);
          expect(op.security).toEqual([{ ApiKeyHeader: [] }, { BearerAuth: [] }]);
          expect(op.responses['403'].content['application/json'].examples.missingScope.value).toEqual({
            detail: `API key missing required scope: ${need.pathScope}`,
          });
          expect(op.description).toContain(need.pathScope);
        }
        if (surface === 'public') expect(op.security).toEqual([]);
        if (surface === 'sign_in') {
          // a credential is optional there, but GET /api/v1/auth/me needs a session
          expect(op.security).toEqual(
            op.operationId === 'getCurrentUser' ? [{ BearerAuth: [] }] : [{}, { BearerAuth: [] }],
          );
          expect(op.responses['403'].content['application/json'].example).toEqual({
            detail: 'API keys are not permitted for this endpoint',
          });
        }
        if (surface !== 'public' && surface !== 'signed' && surface !== 'sign_in') {
          expect(op.responses['401'].content['application/json'].examples.missing.value).toEqual({
            detail: 'Missing authentication credentials',
          });
          expect(op.responses['401'].headers['WWW-Authenticate']).toBeTruthy();
          // the limiter counts tenants' credentials; internal-token calls are not limited
          if (surface !== 'internal') expect(op.responses['429'], `${method} ${path}`).toBeTruthy();
          else expect(op.responses['429'], `${method} ${path}`).toBeUndefined();
        }
        if (surface === 'dashboard')
          expect(op.responses['403'].content['application/json'].examples.apiKeyNotPermitted.value).toEqual({
            detail: 'API keys are not permitted for this endpoint',
          });
        if (op.parameters || op.requestBody) expect(op.responses['422']).toBeTruthy();
      }
    }
  });

  it('documents the responses the shared layers answer, per kind of operation', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const id = `${method} ${path}`;
        const statuses = Object.keys(op.responses);
        if (path.includes('{')) expect(statuses, id).toContain('404');
        if (method !== 'get') {
          expect(statuses, id).toEqual(expect.arrayContaining(['413', '415']));
          // the gate's 415 names the one coding a body may have
          expect(op.responses['415'].headers['Accept-Encoding'], id).toBeTruthy();
        }
        // a raw file upload reads no Idempotency-Key (its fingerprint would read the whole file)
        const json = op.requestBody === undefined || op.requestBody.content?.['application/json'];
        if (op['x-surface'] === 'api' && (method === 'post' || method === 'patch') && json)
          expect(statuses, id).toEqual(expect.arrayContaining(['409', '422']));
        if (op['x-surface'] !== 'public' && op['x-surface'] !== 'signed')
          expect(statuses, id).toContain('503');
      }
    }
    // the per-IP limit of the end-user auth routes (docs/rate-limits.md)
    for (const path of ['register', 'login', 'magic-link', 'magic-link/verify'])
      expect(Object.keys(doc.paths[`/api/v1/app/auth/${path}`].post.responses)).toContain('429');
    expect(doc.paths['/api/internal/usage/report'].post.responses['400']).toBeTruthy();
  });

  it('converts the validating zod schemas (limits and enums survive)', () => {
    const schemas = publicDoc.components.schemas;
    expect(doc.paths['/api/v1/api-keys'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ApiKeyCreate',
    });
    const create = schemas.ApiKeyCreate;
    expect(create.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 100 });
    expect(create.required).toEqual(expect.arrayContaining(['name', 'scopes']));
    expect(schemas.TenantCreate.properties.plan.enum).toEqual(['free', 'starter', 'pro', 'enterprise']);
  });
});

describe('a reference that teaches', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const d of [publicDoc, internalDoc])
    for (const [name, schema] of Object.entries<any>(d.components.schemas)) {
      const id = `#/components/schemas/${name}`;
      if (!ajv.getSchema(id)) ajv.addSchema(schema, id);
    }
  /** `#/components/schemas/X` refs resolve against the schemas added above */
  const check = (schema: any, value: unknown) => {
    const validator = schema.$ref ? ajv.getSchema(schema.$ref)! : ajv.compile(schema);
    return validator(value) ? [] : (validator.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
  /** every JSON media type with a schema: request bodies and 2xx responses */
  const media = (d: any) =>
    operations(d).flatMap(({ where, op }) => [
      // (a file upload's body is bytes, not JSON: its own test below)
      ...(op.requestBody?.content?.['application/json']
        ? [{ where: `${where} request`, m: op.requestBody.content['application/json'] }]
        : []),
      ...Object.entries<any>(op.responses)
        .filter(([status, r]) => status.startsWith('2') && r.content?.['application/json']?.schema)
        .map(([status, r]) => ({ where: `${where} ${status}`, m: r.content['application/json'] })),
    ]);

  it.each([
    ['public', publicDoc],
    ['internal', internalDoc],
  ])(
    '%s: every request body and JSON success response has an example that validates against its schema',
    (_, d) => {
      const problems: string[] = [];
      for (const { where, m } of media(d)) {
        if (m.example === undefined) problems.push(`${where}: no example`);
        else for (const e of check(m.schema, m.example)) problems.push(`${where}: ${e}`);
      }
      expect(problems).toEqual([]);
    },
  );

  it('every request example passes the zod schema the handler validates with (refinements too)', () => {
    const problems: string[] = [];
    for (const source of DOC_SOURCES)
      for (const route of source.routes) {
        if (route.undocumented) continue;
        const op = doc.paths[route.path][route.method];
        if (route.body) {
          const parsed = route.body.safeParse(op.requestBody.content['application/json'].example);
          if (!parsed.success) problems.push(`${route.method} ${route.path}: ${parsed.error.message}`);
        }
        for (const [status, r] of Object.entries(route.responses)) {
          const example = op.responses[status]?.content?.['application/json']?.example;
          if (!r.schema || example === undefined) continue;
          const parsed = r.schema.safeParse(example);
          if (!parsed.success)
            problems.push(`${route.method} ${route.path} ${status}: ${parsed.error.message}`);
        }
      }
    expect(problems).toEqual([]);
  });

  it('every error example in the document validates too', () => {
    const problems: string[] = [];
    for (const { where, op } of operations(publicDoc))
      for (const [status, r] of Object.entries<any>(op.responses)) {
        const m = r.content?.['application/json'];
        if (!m?.schema) continue;
        const values = [m.example, ...Object.values<any>(m.examples ?? {}).map((x) => x.value)];
        for (const v of values.filter((x) => x !== undefined))
          for (const e of check(m.schema, v)) problems.push(`${where} ${status}: ${e}`);
      }
    expect(problems).toEqual([]);
  });

  it('composes examples from the hand-written value table: no field is made up', () => {
    const gaps: string[] = [];
    for (const audience of ['public', 'internal'] as const)
      buildOpenApiDocument(DOC_SOURCES, {
        audience,
        guide: REFERENCE_GUIDE,
        onExampleGap: (g) => gaps.push(g),
      });
    expect(gaps).toEqual([]);
    // and the values look real: 2026 times, no zod-bound counts
    const text = JSON.stringify(media(publicDoc).map(({ m }) => m.example));
    expect(text).not.toMatch(/9007199254740991/);
    for (const [, year] of text.matchAll(/"(\d{4})-\d{2}-\d{2}T/g)) expect(year).toBe('2026');
  });

  it('documents only components that exist', () => {
    const named = new Set([
      ...Object.keys(publicDoc.components.schemas),
      ...Object.keys(internalDoc.components.schemas),
    ]);
    const documented = DOC_SOURCES.flatMap((s) => Object.keys(s.components?.docs ?? {}));
    expect(documented.filter((n) => !named.has(n))).toEqual([]);
  });

  it('describes every field of the main resources', () => {
    const main = ['Ticket', 'TicketReply', 'Call', 'Conversation', 'Message', 'Webhook', 'WebhookCreated'];
    main.push('WebhookDelivery', 'ApiKey', 'ApiKeyCreated', 'UsageSummary', 'Contact', 'Company', 'Tenant');
    const bare = main.flatMap((name) => {
      const schema = publicDoc.components.schemas[name];
      if (!schema?.description) return [`${name} (no description)`];
      return Object.entries<any>(schema.properties)
        .filter(([, p]) => !p.description)
        .map(([field]) => `${name}.${field}`);
    });
    expect(bare).toEqual([]);
  });

  it('documents a file upload as a binary body with an example file under each media type', () => {
    const uploads = operations(doc).filter(
      ({ op }) => op.requestBody && !op.requestBody.content['application/json'],
    );
    expect(uploads.map(({ where }) => where)).toEqual(
      expect.arrayContaining([
        'POST /api/v1/tickets/{ticket_id}/attachments',
        'POST /api/v1/conversations/{id}/attachments',
      ]),
    );
    for (const { where, op } of uploads) {
      expect(op.requestBody.required, where).toBe(true);
      for (const [type, m] of Object.entries<any>(op.requestBody.content)) {
        expect(m.schema, `${where} ${type}`).toEqual({
          type: 'string',
          contentMediaType: 'application/octet-stream',
        });
        expect(typeof m.example, `${where} ${type}`).toBe('string');
      }
    }
  });

  it('describes every parameter', () => {
    const bare = operations(doc).flatMap(({ where, op }) =>
      (op.parameters ?? []).filter((p: any) => !p.description?.trim()).map((p: any) => `${where} ${p.name}`),
    );
    expect(bare).toEqual([]);
  });

  it('names every JSON success schema and request body (generated clients get named types)', () => {
    // a free-form JSON file (an export's download) has no shape to name
    const inline = media(doc)
      .filter(({ m }) => !m.schema.$ref && Object.keys(m.schema).some((k) => k !== 'description'))
      .map(({ where }) => where);
    expect(inline).toEqual([]);
    for (const name of [
      'Ticket',
      'TicketList',
      'Call',
      'CallList',
      'Conversation',
      'Webhook',
      'ApiKey',
      'ErrorBody',
      'ValidationError',
    ])
      expect(publicDoc.components.schemas[name], name).toBeTruthy();
  });

  it('keeps internal and QStash routes, and their credentials, out of the public document', () => {
    const leaked = Object.keys(publicDoc.paths).filter((p) => p.startsWith('/api/internal/'));
    expect(leaked).toEqual([]);
    expect(Object.keys(publicDoc.components.securitySchemes).sort()).toEqual([
      'ApiKeyHeader',
      'BearerAuth',
      'EndUserToken',
      'WebhookSignature',
    ]);
    expect(Object.keys(internalDoc.components.securitySchemes).sort()).toEqual([
      'InternalToken',
      'QStashSignature',
    ]);
    for (const { where, op } of operations(internalDoc))
      expect(['internal', 'signed'], where).toContain(op['x-surface']);
  });

  it('declares X-Request-Id on every response and the rate-limit headers where the limiter counts', () => {
    const { headers } = publicDoc.components;
    for (const h of [
      'X-Request-Id',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
    ])
      expect(headers[h], h).toBeTruthy();
    const tickets = publicDoc.paths['/api/v1/tickets'].get.responses;
    expect(Object.keys(tickets['429'].headers)).toEqual(
      expect.arrayContaining(['Retry-After', 'X-RateLimit-Limit', 'X-Request-Id']),
    );
    expect(Object.keys(tickets['503'].headers)).toContain('Retry-After');
    // answered before the limiter runs (the gate and its refusals): never with X-RateLimit-*
    const before = ['401', '413', '415'];
    for (const { where, op } of operations(publicDoc))
      for (const [status, r] of Object.entries<any>(op.responses)) {
        expect(r.$ref, `${where} ${status}: written out, not a $ref`).toBeUndefined();
        expect(r.headers?.['X-Request-Id'], `${where} ${status}`).toBeTruthy();
        const limited = Boolean(r.headers['X-RateLimit-Remaining']);
        if (before.includes(status)) expect(limited, `${where} ${status}`).toBe(false);
        // a 403 comes from the gate, except a role refusal (the route's own guard, after the limiter)
        else if (status === '403') {
          const roleGuarded = /role or above/.test(op.description);
          expect(limited, `${where} 403`).toBe(roleGuarded && op['x-surface'] !== 'public');
        } else if (op['x-surface'] === 'api') expect(limited, `${where} ${status}`).toBe(true);
      }
  });

  it('orders the tags for a reader, each with a description, and opens with getting started', () => {
    const names = publicDoc.tags.map((t: any) => t.name);
    expect(names.slice(0, 3)).toEqual(['Health', 'Tickets', 'Calls']);
    expect(names.indexOf('API keys')).toBeGreaterThan(names.indexOf('Usage'));
    expect(publicDoc.tags.filter((t: any) => !t.description).map((t: any) => t.name)).toEqual([]);
    for (const section of [
      '## Authentication',
      '## Errors',
      '## Pagination',
      '## Rate limits',
      '## Idempotency',
      '## Webhooks',
    ])
      expect(publicDoc.info.description).toContain(section);
    expect(publicDoc.info.description).toContain('createHmac');
  });

  it('every route declares an SDK-style operationId and a description of its own', () => {
    const ids = new Map<string, string>();
    const problems: string[] = [];
    for (const source of DOC_SOURCES)
      for (const route of source.routes) {
        const where = `${route.method.toUpperCase()} ${route.path}`;
        const id = route.operationId;
        if (!id) problems.push(`${where}: no operationId`);
        else if (!/^[a-z]+[A-Z][A-Za-z0-9]*$/.test(id))
          problems.push(`${where}: ${id} is not a camelCase verb phrase`);
        else if (ids.has(id)) problems.push(`${where}: ${id} also names ${ids.get(id)}`);
        if (id) ids.set(id, where);
        if (!route.description?.trim()) problems.push(`${where}: no description`);
      }
    expect(problems).toEqual([]);
    expect(publicDoc.paths['/api/v1/tickets'].get.operationId).toBe('listTickets');
    expect(publicDoc.paths['/api/v1/api-keys/{key_id}/rotate'].post.operationId).toBe('rotateApiKey');
    expect(publicDoc.paths['/api/v2/conversations'].get.operationId).toBe('listConversationsV2');
    expect(publicDoc.paths['/api/v1/tickets'].post.description).toContain('**Emits:** `ticket.created`');
  });

  it('names its error body so that no generated type shadows a built-in (no component `Error`)', () => {
    for (const d of [publicDoc, internalDoc]) {
      expect(Object.keys(d.components.schemas)).not.toContain('Error');
      expect(JSON.stringify(d)).not.toContain('"#/components/schemas/Error"');
    }
    expect(publicDoc.components.responses, 'every response written out in its operation').toBeUndefined();
  });

  it('gives every operation a description of its own beyond its access line', () => {
    const thin = operations(doc)
      .map(({ where, op }) => ({ where, own: op.description.split('\n\n**')[0] as string }))
      .filter(({ own }) => own.startsWith('**') || own.length < 40)
      .map(({ where, own }) => `${where}: ${JSON.stringify(own)}`);
    expect(thin).toEqual([]);
  });

  it('keeps each tag to one surface (one credential per SDK group)', () => {
    const surfaces = new Map<string, Set<string>>();
    for (const { op } of operations(publicDoc))
      for (const tag of op.tags) surfaces.set(tag, (surfaces.get(tag) ?? new Set()).add(op['x-surface']));
    const mixed = [...surfaces].filter(([, s]) => s.size > 1).map(([t, s]) => `${t}: ${[...s].join(', ')}`);
    expect(mixed).toEqual([]);
    expect(publicDoc.paths['/api/v2/webhooks/{id}'].patch.tags).toEqual(['Webhooks (dashboard)']);
  });

  it('leaves HTML pages and static files out of the API document', () => {
    const pages = operations(publicDoc).flatMap(({ where, op }) =>
      Object.values<any>(op.responses)
        .flatMap((r) => Object.keys(r.content ?? {}))
        .filter((t) => /^(text\/(html|css|javascript)|image\/)/.test(t))
        .map((t) => `${where}: ${t}`),
    );
    expect(pages).toEqual([]);
    for (const path of ['/docs', '/console', '/docs/assets/{file}', '/console/assets/{file}'])
      expect(publicDoc.paths[path], path).toBeUndefined();
  });

  it('types every branch of an anyOf/oneOf (generators read an untyped branch as `unknown`)', () => {
    const untyped: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        node.forEach((n, i) => {
          walk(n, `${where}/${i}`);
        });
        return;
      }
      const n = node as Record<string, unknown>;
      for (const key of ['anyOf', 'oneOf'])
        (n[key] as any[] | undefined)?.forEach((b, i) => {
          if (!('type' in b || '$ref' in b || 'const' in b)) untyped.push(`${where}/${key}/${i}`);
        });
      for (const [k, v] of Object.entries(n)) walk(v, `${where}/${k}`);
    };
    for (const d of [publicDoc, internalDoc]) walk(d, '#');
    expect(untyped).toEqual([]);
    // a comma list of an enum: one value (the enum) or a list (a pattern), both strings
    const status = publicDoc.paths['/api/v1/tickets'].get.parameters.find((p: any) => p.name === 'status');
    expect(status.schema.anyOf.map((b: any) => b.type)).toEqual(['string', 'string']);
    expect(status.schema.type).toBeUndefined();
  });

  it('says `additionalProperties: false` exactly where the handler refuses an unknown body field', () => {
    const resolve = (schema: any): any[] => {
      if (schema.$ref)
        return resolve(doc.components?.schemas?.[schema.$ref.split('/').pop()] ?? lookup(schema.$ref));
      return schema.anyOf && !schema.properties ? schema.anyOf.flatMap(resolve) : [schema];
    };
    const lookup = (ref: string) =>
      (publicDoc.components.schemas[ref.split('/').pop()!] ??
        internalDoc.components.schemas[ref.split('/').pop()!]) as any;
    const problems: string[] = [];
    let strict = 0;
    for (const source of DOC_SOURCES)
      for (const route of source.routes) {
        if (route.undocumented || !route.body) continue;
        const media = doc.paths[route.path][route.method].requestBody.content['application/json'];
        const example = media.example;
        if (!example || typeof example !== 'object' || Array.isArray(example)) continue;
        const refuses = !route.body.safeParse({ ...example, zz_unknown_field: 'x' }).success;
        const closed = resolve(media.schema).every((s) => s.additionalProperties === false);
        if (refuses) strict++;
        if (refuses !== closed)
          problems.push(
            `${route.method} ${route.path}: refuses unknown=${refuses}, document closed=${closed}`,
          );
      }
    expect(problems).toEqual([]);
    expect(strict).toBeGreaterThan(40);
  });

  it('every parameter has an example that its schema accepts, but a page position (cursor, before) has none', () => {
    const problems: string[] = [];
    for (const { where, op } of operations(doc))
      for (const p of op.parameters ?? []) {
        if (p.in === 'query' && FROM_A_PREVIOUS_PAGE.has(p.name)) {
          if (p.example !== undefined) problems.push(`${where} ${p.name}: an example tools would send`);
        } else if (p.example === undefined) problems.push(`${where} ${p.name}: no example`);
        else for (const e of check(p.schema, p.example)) problems.push(`${where} ${p.name}: ${e}`);
      }
    expect(problems).toEqual([]);
  });

  it('describes every property of every schema in the public document', () => {
    const bare = new Set<string>();
    const visit = (node: any, owner: string) => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        for (const n of node) visit(n, owner);
        return;
      }
      for (const [field, prop] of Object.entries<any>(node.properties ?? {})) {
        if (!prop.description?.trim()) bare.add(`${owner}.${field}`);
        visit(prop, owner);
      }
      for (const k of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties']) visit(node[k], owner);
    };
    for (const [name, schema] of Object.entries<any>(publicDoc.components.schemas)) visit(schema, name);
    for (const { where, op } of operations(publicDoc)) {
      visit(op.requestBody?.content?.['application/json']?.schema, `${where} request`);
      for (const [status, r] of Object.entries<any>(op.responses))
        visit(r.content?.['application/json']?.schema, `${where} ${status}`);
    }
    expect([...bare]).toEqual([]);
  });

  it('shows every catalog event under webhooks: envelope, payload schema, delivery headers, example', () => {
    expect(Object.keys(publicDoc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    expect(EVENT_TYPES).toHaveLength(21);
    const problems: string[] = [];
    for (const [type, item] of Object.entries<any>(publicDoc.webhooks)) {
      const media = item.post.requestBody.content['application/json'];
      for (const e of check(media.schema, media.example)) problems.push(`${type}: ${e}`);
      const headers = item.post.parameters.map((p: any) => p.name);
      expect(headers).toEqual(
        expect.arrayContaining(['X-Webhook-Event', 'X-Webhook-Timestamp', 'X-Webhook-Signature']),
      );
      expect(media.example.event_type).toBe(type);
    }
    expect(problems).toEqual([]);
    expect(internalDoc.webhooks).toBeUndefined();
  });

  it('marks a request body optional where the server accepts none', () => {
    for (const path of [
      '/api/v1/conversations/{id}/export',
      '/api/v2/conversations/{id}/export',
      '/api/v1/voice-widget/token',
      '/api/v1/auth/logout',
    ])
      expect(publicDoc.paths[path].post.requestBody.required, path).toBe(false);
    expect(publicDoc.paths['/api/v1/tickets'].post.requestBody.required).toBe(true);
  });

  it('documents the Idempotency-Key refusals with their real shapes', () => {
    const create = publicDoc.paths['/api/v1/tickets'].post;
    const key = create.parameters.find((p: any) => p.name === 'Idempotency-Key');
    expect(new RegExp(key.schema.pattern).test('a b')).toBe(false);
    expect(new RegExp(key.schema.pattern).test(key.example)).toBe(true);
    const reused = create.responses['422'].content['application/json'];
    expect(reused.schema.oneOf).toEqual([
      { $ref: '#/components/schemas/ValidationError' },
      { $ref: '#/components/schemas/ErrorBody' },
    ]);
    expect(check(reused.schema, reused.examples.keyReused.value)).toEqual([]);
    expect(check(reused.schema, reused.examples.validation.value)).toEqual([]);
    expect(typeof reused.examples.keyReused.value.detail).toBe('string');
  });

  it("a description that lists an enum's values (`Priority: low, medium, high or urgent`) lists exactly them", () => {
    const wrong: string[] = [];
    const visit = (node: any, owner: string) => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        for (const n of node) visit(n, owner);
        return;
      }
      for (const [field, prop] of Object.entries<any>(node.properties ?? {})) {
        const list = /: ((?:[\w-]+, )*[\w-]+ or [\w-]+)$/.exec(prop.description ?? '')?.[1];
        if (Array.isArray(prop.enum) && list) {
          const named = list.split(/, | or /).sort();
          if (named.join() !== [...prop.enum].sort().join())
            wrong.push(`${owner}.${field}: ${prop.description}`);
        }
        visit(prop, owner);
      }
      for (const k of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties']) visit(node[k], owner);
    };
    for (const [name, schema] of Object.entries<any>(publicDoc.components.schemas)) visit(schema, name);
    expect(wrong).toEqual([]);
  });

  it("the ticket events' example (what a test delivery carries) has every field of a served ticket", () => {
    const served = Object.keys(publicDoc.components.schemas.Ticket.properties).sort();
    for (const type of ['ticket.created', 'ticket.updated', 'ticket.replied', 'ticket.resolved'] as const)
      expect(Object.keys(EVENT_EXAMPLES[type].ticket).sort(), type).toEqual(served);
    expect(EVENT_EXAMPLES['ticket.created'].ticket.created_by).toMatch(/^(api_key:key_|user:tus_)/);
  });

  it('says what POST /api/v1/tickets really defaults to', () => {
    expect(publicDoc.paths['/api/v1/tickets'].post.description).toContain('Initial status `open`');
  });
});

describe.skipIf(postgresUnavailable())('served by the docs function', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    return () => h.close();
  }, 60_000);

  it('GET /api/v1/openapi.json needs no credential', async () => {
    const res = await h.request('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/api/v2/health'].get).toBeTruthy();
    expect(Object.keys(res.body.paths).some((p) => p.startsWith('/api/internal/'))).toBe(false);
  });

  it('GET /api/internal/openapi.json answers the internal token only', async () => {
    expect((await h.request('GET', '/api/internal/openapi.json')).status).toBe(401);
    const res = await h.request('GET', '/api/internal/openapi.json', {
      bearer: TEST_SECRETS.INTERNAL_API_TOKEN,
    });
    expect(res.status).toBe(200);
    expect(res.body.paths['/api/internal/calls'].post).toBeTruthy();
  });

  it('the getting-started examples (ticket, reply, update, API key) succeed as documented', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const [name, schema] of Object.entries<any>(publicDoc.components.schemas))
      ajv.addSchema(schema, `#/components/schemas/${name}`);
    const exampleOf = (path: string, method: string) =>
      publicDoc.paths[path][method].requestBody.content['application/json'].example;
    const matches = (name: string, body: unknown) => {
      const validate = ajv.getSchema(`#/components/schemas/${name}`)!;
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    };
    const tenant = await h.tenant();
    const apiKey = await tenant.key(['tickets:read', 'tickets:write']);

    const created = await h.request('POST', '/api/v1/tickets', {
      apiKey,
      body: exampleOf('/api/v1/tickets', 'post'),
    });
    expect(created.status).toBe(201);
    matches('Ticket', created.body);
    expect(created.body.status).toBe('open'); // the default the description states
    const one = `/api/v1/tickets/${created.body.id}`;
    const updated = await h.request('PATCH', one, {
      apiKey,
      body: exampleOf('/api/v1/tickets/{ticket_id}', 'patch'),
    });
    expect(updated.status).toBe(200);
    matches('Ticket', updated.body);
    const reply = await h.request('POST', `${one}/replies`, {
      apiKey,
      body: exampleOf('/api/v1/tickets/{ticket_id}/replies', 'post'),
    });
    expect(reply.status).toBe(201);
    matches('TicketReply', reply.body);
    const list = await h.request('GET', '/api/v1/tickets', { apiKey });
    matches('TicketList', list.body);

    const key = await h.request('POST', '/api/v1/api-keys', {
      bearer: tenant.adminToken,
      body: exampleOf('/api/v1/api-keys', 'post'),
    });
    expect(key.status).toBe(201);
    matches('ApiKeyCreated', key.body);
  });

  it('every list answers 2xx to all its parameter examples sent at once, as Swagger UI pre-fills them', async () => {
    const tenant = await h.tenant();
    const lists = operations(publicDoc).filter(
      ({ where, op }) =>
        where.startsWith('GET ') &&
        !where.includes('{') &&
        // the API-key and dashboard surfaces (an end user's own list takes a token of theirs)
        op.security?.some((s: any) => 'BearerAuth' in s) &&
        (op.parameters ?? []).some((p: any) => p.name === 'limit' && p.in === 'query'),
    );
    expect(lists.length).toBeGreaterThan(8);
    const refused: string[] = [];
    for (const { where, op } of lists) {
      const query = new URLSearchParams();
      for (const p of op.parameters ?? [])
        if (p.in === 'query' && p.example !== undefined) query.set(p.name, String(p.example));
      const scopes: string[] | undefined = op['x-required-scopes'];
      const auth = op.security?.some((s: any) => 'ApiKeyHeader' in s)
        ? { apiKey: await tenant.key(scopes ?? []) }
        : { bearer: tenant.adminToken };
      const res = await h.request('GET', `${where.slice(4)}?${query}`, auth);
      if (res.status >= 300) refused.push(`${where}?${query}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(refused).toEqual([]);
  });

  it('answers what the document says: query errors name the parameter, the 400 and the string 422', async () => {
    const tenant = await h.tenant();
    const apiKey = await tenant.key(['tickets:read', 'tickets:write', 'usage:read']);
    // an offset Postgres cannot read: refused where it enters, naming the parameter, on both lists
    const since = encodeURIComponent('5966-05-14T18:01:03+17:41');
    const contacts = await h.request('GET', `/api/v2/contacts?updated_since=${since}`, {
      bearer: tenant.adminToken,
    });
    const tickets = await h.request('GET', `/api/v1/tickets?updated_since=${since}`, { apiKey });
    for (const res of [contacts, tickets]) {
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'updated_since']);
    }
    const backwards = await h.request('GET', '/api/v1/usage/details?from=2026-03-02&to=2026-03-01', {
      apiKey,
    });
    expect(backwards.status).toBe(400);
    expect(
      publicDoc.paths['/api/v1/usage/details'].get.responses['400'].content['application/json'].example,
    ).toEqual(backwards.body);
    const headers = { 'Idempotency-Key': 'reused-key-1' };
    const first = await h.request('POST', '/api/v1/tickets', { apiKey, headers, body: { subject: 'One' } });
    expect(first.status).toBe(201);
    const reused = await h.request('POST', '/api/v1/tickets', { apiKey, headers, body: { subject: 'Two' } });
    expect(reused.status).toBe(422);
    expect(typeof reused.body.detail).toBe('string');
    const documented = publicDoc.paths['/api/v1/tickets'].post.responses['422'].content['application/json'];
    expect(documented.examples.keyReused.value).toEqual(reused.body);
  });

  it('sends X-RateLimit-* exactly on the answers the document declares them on', async () => {
    const tenant = await h.tenant();
    const apiKey = await tenant.key(['tickets:read']);
    const agent = await tenant.token('agent');
    const cases: [method: string, path: string, docPath: string, opts: object, status: number][] = [
      ['GET', '/api/v1/tickets', '/api/v1/tickets', { apiKey }, 200],
      ['GET', '/api/v1/tickets/tkt_nope', '/api/v1/tickets/{ticket_id}', { apiKey }, 404],
      ['GET', '/api/v1/tickets?limit=0', '/api/v1/tickets', { apiKey }, 422],
      ['GET', '/api/v1/tickets', '/api/v1/tickets', {}, 401],
      ['GET', '/api/v1/calls', '/api/v1/calls', { apiKey }, 403],
      // a role refusal comes from the route's guard, after the limiter
      ['GET', '/api/v1/api-keys', '/api/v1/api-keys', { bearer: agent }, 403],
    ];
    for (const [method, path, docPath, opts, status] of cases) {
      const res = await h.request(method, path, opts);
      expect(res.status, `${method} ${path}`).toBe(status);
      const declared = publicDoc.paths[docPath][method.toLowerCase()].responses[String(status)].headers;
      expect(res.headers.has('x-ratelimit-remaining'), `${method} ${path} ${status}`).toBe(
        'X-RateLimit-Remaining' in declared,
      );
    }
  });

  it('GET /docs and /docs/try load their scripts and styles from local assets', async () => {
    for (const path of ['/docs', '/docs/try']) {
      const page = await h.request('GET', path);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const scripts = [...page.text.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"/g)].map(
        (m) => m[1] as string,
      );
      expect(scripts.length).toBeGreaterThan(1);
      expect(scripts.every((s) => s.startsWith('/docs/assets/'))).toBe(true);
      for (const s of scripts) expect((await h.request('GET', s)).status, s).toBe(200);
    }
    expect((await h.request('GET', '/docs/assets/nope.js')).status).toBe(404);
  });
});
