import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/docs/document';
import { FIELD_TEXT } from '../../functions/docs/fields';

/**
 * Every property of every schema of both documents is described for its own component: by its zod
 * schema's `.describe()`, its component's `docs.fields`, or its component's entry in
 * functions/docs/fields.ts. There is no fallback by field name, so a new schema's `from` fails here
 * instead of reading "the start of the range" of some other schema.
 */
type Json = Record<string, any>;

/** `visit(prop, owner, field)` for every property of `node`, nested ones included. */
function eachProperty(node: unknown, owner: string, visit: (prop: Json, field: string) => void) {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) eachProperty(n, owner, visit);
    return;
  }
  const schema = node as Json;
  for (const [field, prop] of Object.entries<Json>(schema.properties ?? {})) {
    visit(prop, field);
    eachProperty(prop, owner, visit);
  }
  for (const k of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties'])
    eachProperty(schema[k], owner, visit);
}

const DOCS = { public: openApiDocument('public'), internal: openApiDocument('internal') };

describe('field descriptions', () => {
  it('describe every property of every component, in both documents', () => {
    const bare: string[] = [];
    for (const [audience, doc] of Object.entries(DOCS))
      for (const [name, schema] of Object.entries<Json>(doc.components.schemas))
        eachProperty(schema, name, (prop, field) => {
          if (!prop.description?.trim()) bare.push(`${audience} ${name}.${field}`);
        });
    expect([...new Set(bare)]).toEqual([]);
  });

  it('has no entry in functions/docs/fields.ts that describes no property of its component', () => {
    const used = new Set<string>();
    for (const doc of Object.values(DOCS))
      for (const [name, schema] of Object.entries<Json>(doc.components.schemas))
        eachProperty(schema, name, (prop, field) => {
          if (FIELD_TEXT[name]?.[field] === prop.description) used.add(`${name}.${field}`);
        });
    const stale = Object.entries(FIELD_TEXT).flatMap(([name, fields]) =>
      Object.keys(fields)
        .map((field) => `${name}.${field}`)
        .filter((key) => !used.has(key)),
    );
    expect(stale).toEqual([]);
  });
});
