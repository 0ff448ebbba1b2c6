// The OpenAPI document: valid OpenAPI 3.1 (checked by @readme/openapi-parser), and complete: every
// route any function of the manifest serves is in it (a function without functions/<name>/openapi.ts
// fails here until its docs land), with the security and scopes the gate's tables decide.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from '@readme/openapi-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { DOC_SOURCES } from '../../functions/docs/registry';
import { FUNCTIONS } from '../../functions/manifest';
import { scopeRequirement, surfaceOf } from '../../shared/auth/access';
import { buildOpenApiDocument } from '../../shared/http/openapi-doc';
import type { FunctionApp } from '../../shared/runtime/app-env';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

const ROOT = join(import.meta.dirname, '..', '..');
const doc = buildOpenApiDocument(DOC_SOURCES) as any;
const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');

describe('OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const result = await validate(structuredClone(doc));
    expect(result.valid ? [] : result.errors, 'OpenAPI validation errors').toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('lists every functions/<name>/openapi.ts in functions/docs/registry.ts', () => {
    const onDisk = FUNCTIONS.filter((f) => existsSync(join(ROOT, 'functions', f.name, 'openapi.ts'))).map(
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
      const missing = served.filter((entry) => {
        const [method, path] = entry.split(' ') as [string, string];
        return !doc.paths[path]?.[method.toLowerCase()];
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
          expect(op.security).toEqual([{}, { BearerAuth: [] }]);
          expect(op.responses['403'].content['application/json'].example).toEqual({
            detail: 'API keys are not permitted for this endpoint',
          });
        }
        if (surface !== 'public' && surface !== 'signed' && surface !== 'sign_in') {
          expect(op.responses['401'].content['application/json'].examples.missing.value).toEqual({
            detail: 'Missing authentication credentials',
          });
          expect(op.responses['401'].headers['WWW-Authenticate']).toBeTruthy();
          expect(op.responses['429']).toBeTruthy();
        }
        if (surface === 'dashboard')
          expect(op.responses['403'].content['application/json'].examples.apiKeyNotPermitted.value).toEqual({
            detail: 'API keys are not permitted for this endpoint',
          });
        if (op.parameters || op.requestBody) expect(op.responses['422']).toBeTruthy();
      }
    }
  });

  it('converts the validating zod schemas (limits and enums survive)', () => {
    const create = doc.paths['/api/v1/api-keys'].post.requestBody.content['application/json'].schema;
    expect(create.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 100 });
    expect(create.required).toEqual(expect.arrayContaining(['name', 'scopes']));
    const tenant = doc.paths['/api/v1/tenants'].post.requestBody.content['application/json'].schema;
    expect(tenant.properties.plan.enum).toEqual(['free', 'starter', 'pro', 'enterprise']);
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
  });

  it('GET /docs renders Swagger UI from local assets', async () => {
    const page = await h.request('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const scripts = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(scripts.every((s) => s.startsWith('/docs/assets/'))).toBe(true);
    for (const s of scripts) expect((await h.request('GET', s)).status, s).toBe(200);
    expect((await h.request('GET', '/docs/assets/nope.js')).status).toBe(404);
  });
});
