import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { openApiDocument } from '../../functions/docs/document';
import { REFERENCE_GUIDE } from '../../functions/docs/guide';
import { DOC_SOURCES } from '../../functions/registry';
import type { RouteWithAccess } from '../../shared/http/openapi';
import { buildOpenApiDocument, jsonSchemaOf, pathParamsOf } from '../../shared/http/openapi-doc';

/**
 * Every path and query parameter of every operation is described by its own route: its `paramText`,
 * else its params/query schema's description. There is no table by parameter name to fall back on, so
 * a new route's `from` or `{id}` fails here instead of reading the text some other route's means.
 */
type Json = Record<string, any>;

const DOCS = { public: openApiDocument('public'), internal: openApiDocument('internal') };

/** `in:name` -> description, for every path and query parameter of every operation of `doc` */
function parametersOf(doc: Json): Map<string, Map<string, string | undefined>> {
  const out = new Map<string, Map<string, string | undefined>>();
  for (const [path, item] of Object.entries<Json>(doc.paths))
    for (const [method, op] of Object.entries<Json>(item)) {
      const own = new Map<string, string | undefined>();
      for (const p of op.parameters ?? [])
        if (p.in === 'path' || p.in === 'query') own.set(`${p.in}:${p.name}`, p.description);
      out.set(`${method.toUpperCase()} ${path}`, own);
    }
  return out;
}

const documented = Object.values(DOCS).map(parametersOf);

/** What a route itself says of each of its parameters. */
function declaredTexts(route: RouteWithAccess): Map<string, string | undefined> {
  const texts = new Map<string, string | undefined>();
  const own = (schema: z.ZodType | undefined) =>
    (schema ? (jsonSchemaOf(schema, 'input').properties ?? {}) : {}) as Record<string, Json>;
  const path = own(route.params);
  for (const name of pathParamsOf(route.path))
    texts.set(`path:${name}`, route.paramText?.[name] ?? path[name]?.description);
  for (const [name, prop] of Object.entries(own(route.query)))
    texts.set(`query:${name}`, route.paramText?.[name] ?? prop.description);
  return texts;
}

describe('parameter descriptions', () => {
  it('describe every path and query parameter of both documents', () => {
    const bare = documented.flatMap((ops) =>
      [...ops].flatMap(([where, params]) =>
        [...params].filter(([, text]) => !text?.trim()).map(([name]) => `${where} ${name}`),
      ),
    );
    expect(bare).toEqual([]);
  });

  it("are each route's own declaration, word for word", () => {
    const differing: string[] = [];
    let compared = 0;
    for (const source of DOC_SOURCES)
      for (const route of source.routes) {
        const where = `${route.method.toUpperCase()} ${route.path}`;
        const inDoc = documented.find((ops) => ops.has(where))?.get(where);
        if (!inDoc) continue; // undocumented (a page, a redirect): the document test covers the rest
        for (const [name, text] of declaredTexts(route)) {
          compared++;
          if (inDoc.get(name) !== text)
            differing.push(`${where} ${name}: ${inDoc.get(name)} (declared ${text})`);
        }
      }
    expect(differing).toEqual([]);
    expect(compared).toBeGreaterThan(200);
  });

  it('leave a parameter its route does not describe undescribed, whatever its name', () => {
    // every name the documents use, and every collection an `{id}` follows, on routes that describe none
    const queryNames = new Set<string>();
    const pathNames = new Set<string>();
    const collections = new Set<string>();
    for (const ops of documented)
      for (const [where, params] of ops) {
        const collection = where.match(/\/([^/{}]+)\/\{id\}/)?.[1];
        if (collection) collections.add(collection);
        for (const key of params.keys()) {
          const [at, name] = key.split(':') as [string, string];
          (at === 'path' ? pathNames : queryNames).add(name);
        }
      }
    pathNames.delete('id');
    const probe = (path: string, query?: z.ZodType): RouteWithAccess => ({
      operationId: `probe${path.replace(/[^A-Za-z0-9]+/g, '_')}`,
      method: 'get',
      path,
      access: { surface: 'api' },
      summary: 'A route that describes none of its parameters',
      description: 'Declares its parameters without a word about them, as a new route might.',
      tags: ['Probe'],
      ...(query ? { query } : {}),
      responses: { 200: { description: 'OK' } },
    });
    const routes = [
      probe(
        `/api/v1/probe/${[...pathNames].map((n) => `{${n}}`).join('/')}`,
        z.object(Object.fromEntries([...queryNames].map((n) => [n, z.string().optional()]))),
      ),
      ...[...collections].map((c) => probe(`/api/v1/${c}/{id}/probe`)),
    ];
    const doc = buildOpenApiDocument([{ name: 'probe', routes }], { guide: REFERENCE_GUIDE }) as Json;
    const described = [...parametersOf(doc)].flatMap(([where, params]) =>
      [...params].filter(([, text]) => text !== undefined).map(([name, text]) => `${where} ${name}: ${text}`),
    );
    expect(queryNames.size + pathNames.size + collections.size).toBeGreaterThan(60);
    expect(described).toEqual([]);
  });
});
