import type { ZodType } from 'zod';
import * as z from 'zod';
import type { ComponentDoc, ComponentSet } from './openapi';
import { ERROR_REF } from './openapi-content';

/**
 * Named component schemas for the OpenAPI document, and the examples built from them.
 * Operations `$ref` `#/components/schemas/<Name>` wherever their schema (or a part of it) is one a
 * function named in `components` (functions/<name>/routes.ts), so generated clients get named types.
 */
type Json = Record<string, unknown>;
export type Io = 'input' | 'output';

export const COMPONENT_REF = '#/components/schemas/';
const SAFE = Number.MAX_SAFE_INTEGER;

/** The keywords of a string that hold in every branch of its `anyOf` (what `typedBranches` moves). */
const STRING_KEYWORDS = ['type', 'minLength', 'maxLength', 'format'] as const;

/**
 * A string whose `anyOf` branches carry no type of their own (an enum list: one value, or a `pattern`
 * for a comma list) becomes an `anyOf` of typed branches, each with the string's own limits. The
 * two say the same in JSON Schema, but generators read a branch without `type` as `unknown` (and
 * zod generators put `.max()` on the union, which throws when the file loads).
 */
function typedBranches(node: Json): Json {
  const branches = node.anyOf as Json[] | undefined;
  if (node.type !== 'string' || !Array.isArray(branches) || branches.some((b) => '$ref' in b)) return node;
  const shared: Json = {};
  const rest: Json = {};
  for (const [key, value] of Object.entries(node))
    if ((STRING_KEYWORDS as readonly string[]).includes(key)) shared[key] = value;
    else if (key !== 'anyOf') rest[key] = value;
  // an enum branch needs no length: its values are the whole rule
  const typed = branches.map((b) => (Array.isArray(b.enum) ? { type: 'string', ...b } : { ...shared, ...b }));
  return { anyOf: typed, ...rest };
}

/**
 * zod's `.int()` bounds (±2^53-1) are noise in a reference (and made Swagger UI show
 * `-9007199254740991` as the example count); zod's local `#/$defs/X` refs become component refs;
 * untyped string branches get their type (`typedBranches`).
 */
export function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'minimum' && value === -SAFE) || (key === 'maximum' && value === SAFE)) continue;
    out[key] =
      key === '$ref' && typeof value === 'string' ? value.replace('#/$defs/', COMPONENT_REF) : tidy(value);
  }
  return typedBranches(out);
}

/**
 * An object whose `anyOf` only lists `required` sets ("one of these fields") becomes an `anyOf` of
 * whole objects, one per set, each with the properties and the refusal of unknown fields. The two
 * accept the same bodies, but generators read each bare `{required}` branch as an open object (or as
 * `unknown`), so the generated type and zod schema lost every field and accepted anything.
 */
function expandedVariants(node: Json): Json {
  const branches = node.anyOf as Json[] | undefined;
  if (node.type !== 'object' || !node.properties || !Array.isArray(branches)) return node;
  if (!branches.every((b) => Object.keys(b).length === 1 && Array.isArray(b.required))) return node;
  const { anyOf: _, description, example, examples, ...object } = node;
  const base = (object.required as string[] | undefined) ?? [];
  return {
    ...(description !== undefined ? { description } : {}),
    anyOf: branches.map((b) => ({
      ...object,
      required: [...new Set([...base, ...(b.required as string[])])],
    })),
    ...(example !== undefined ? { example } : {}),
    ...(examples !== undefined ? { examples } : {}),
  };
}

function expandAll(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(expandAll);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = expandAll(value);
  return expandedVariants(out);
}

/** `expandedVariants` over the named schemas and the operations' inline ones, in place. */
export function expandRequiredVariants(
  schemas: Record<string, Json>,
  paths: Record<string, Record<string, Json>>,
) {
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = expandAll(schema) as Json;
  for (const item of Object.values(paths))
    for (const op of Object.values(item)) {
      const body = op.requestBody as Json | undefined;
      const media = (body?.content as Record<string, Json> | undefined)?.['application/json'];
      if (media?.schema) media.schema = expandAll(media.schema);
      for (const r of Object.values((op.responses ?? {}) as Record<string, Json>)) {
        const m = (r.content as Record<string, Json> | undefined)?.['application/json'];
        if (m?.schema) m.schema = expandAll(m.schema);
      }
    }
}

/** `{"detail": "<string>"}`: the spec's error shape, wherever a function declares its own copy. */
const isErrorShape = (s: Json) => {
  const props = s.properties as Record<string, Json> | undefined;
  return (
    s.type === 'object' &&
    props !== undefined &&
    Object.keys(props).length === 1 &&
    props.detail?.type === 'string' &&
    Object.keys(props.detail).length === 1
  );
};

export class SchemaCatalog {
  /** components.schemas */
  readonly schemas: Record<string, Json> = {};
  readonly docs: Record<string, ComponentDoc> = {};
  private readonly names: Record<Io, Map<ZodType, string>> = { input: new Map(), output: new Map() };
  private readonly taken = new Set<string>();

  add(set: ComponentSet) {
    for (const io of ['output', 'input'] as const) {
      for (const [name, schema] of Object.entries(set[io] ?? {})) {
        if (this.taken.has(name)) throw new Error(`OpenAPI: component ${name} named twice`);
        this.taken.add(name);
        this.names[io].set(schema, name);
      }
    }
    Object.assign(this.docs, set.docs);
  }

  /** JSON Schema of `schema`, with every named part as a `$ref` (and registered in `schemas`). */
  convert(schema: ZodType, io: Io): Json {
    const names = this.names[io];
    // globalRegistry keeps the `.describe()` texts of the handlers' schemas; the names are ours
    const metadata = {
      get: (s: ZodType) => {
        const meta = z.globalRegistry.get(s);
        const id = names.get(s);
        return id ? { ...meta, id } : meta;
      },
    } as unknown as z.core.$ZodRegistry<{ id?: string }>;
    const raw = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      metadata,
    }) as Json;
    delete raw.$schema;
    const defs = (raw.$defs ?? {}) as Record<string, Json>;
    delete raw.$defs;
    for (const [name, def] of Object.entries(defs)) this.register(name, tidy(def) as Json);
    const json = tidy(raw) as Json;
    if (isErrorShape(json)) return { $ref: ERROR_REF };
    return (io === 'output' && this.nameEnvelope(json)) || json;
  }

  /**
   * A list envelope (`{"tickets": [<Ticket>], "total", "limit", "offset"}`: one array of a named item,
   * the rest scalars) is named `<Item>List` without each function declaring it. Two different
   * envelopes of one item keep the first name; the second stays inline (the test names it).
   */
  private nameEnvelope(json: Json): Json | null {
    if (json.type !== 'object' || json.additionalProperties === undefined) return null;
    const props = Object.values((json.properties ?? {}) as Record<string, Json>);
    const lists = props.filter(
      (p) => p.type === 'array' && typeof (p.items as Json | undefined)?.$ref === 'string',
    );
    // a nullable scalar (`total` and `next_cursor` of a cursor page) is a scalar too
    const scalar = (t: unknown) => ['integer', 'number', 'string', 'boolean', 'null'].includes(t as string);
    const scalars = props.filter((p) =>
      Array.isArray(p.anyOf)
        ? (p.anyOf as Json[]).every((a) => scalar(a.type))
        : (Array.isArray(p.type) ? p.type : [p.type]).every(scalar) && p.type !== 'null',
    );
    if (lists.length !== 1 || lists.length + scalars.length !== props.length) return null;
    const item = ((lists[0] as Json).items as Json).$ref as string;
    const name = `${item.slice(COMPONENT_REF.length)}List`;
    const known = this.schemas[name];
    if (known && JSON.stringify(known) !== JSON.stringify(json)) return null;
    this.schemas[name] = json;
    return { $ref: `${COMPONENT_REF}${name}` };
  }

  /** Registers a component, refusing one name for two different schemas. */
  register(name: string, json: Json) {
    const known = this.schemas[name];
    if (known && JSON.stringify(known) !== JSON.stringify(json))
      throw new Error(`OpenAPI: component ${name} has two different schemas (input vs output?)`);
    this.schemas[name] = json;
  }

  /** Adds the prose of `docs` to the components in this document; a field text for no field is an error. */
  applyDocs() {
    for (const [name, doc] of Object.entries(this.docs)) {
      const schema = this.schemas[name];
      if (!schema) continue; // not in this document (public vs internal); the test checks the names
      if (doc.description) schema.description = doc.description;
      const props = (schema.properties ?? {}) as Record<string, Json>;
      for (const [field, text] of Object.entries(doc.fields ?? {})) {
        const prop = props[field];
        if (!prop) throw new Error(`OpenAPI: ${name}.${field} is documented but not in the schema`);
        prop.description = text;
      }
    }
  }
}

/**
 * Realistic example values, by field name, written by hand (functions/docs/examples.ts): an example
 * is composed from them along the schema, so every operation shows the same ticket, the same call...
 */
export interface ExampleValues {
  /** component name or `<x>_id` field -> an id in this project's format (`tkt_…`) */
  ids: Record<string, string>;
  /** `Component.field` or field name -> value */
  values: Record<string, unknown>;
}

const fits = (schema: Json, value: unknown): boolean => {
  const variants = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (variants) return variants.some((v) => fits(v, value));
  if (Array.isArray(schema.enum)) return schema.enum.includes(value);
  if ('const' in schema) return schema.const === value;
  const type = schema.type;
  if (type === undefined) return true;
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) =>
    t === 'null'
      ? value === null
      : t === 'integer'
        ? Number.isInteger(value)
        : t === 'array'
          ? Array.isArray(value)
          : t === 'object'
            ? typeof value === 'object' && value !== null && !Array.isArray(value)
            : typeof value === t,
  );
};

export interface ExampleContext {
  catalog: SchemaCatalog;
  values: ExampleValues;
  /** where a value had to be made up (no entry in the table): `Component.field` */
  gaps: Set<string>;
}

/** An example for `schema`: the component's own example, else one composed from the value table. */
export function exampleOf(schema: Json, ctx: ExampleContext, owner = '', field = ''): unknown {
  const ref = schema.$ref as string | undefined;
  if (ref?.startsWith(COMPONENT_REF)) {
    const name = ref.slice(COMPONENT_REF.length);
    const own = ctx.catalog.docs[name]?.example;
    if (own !== undefined) return own;
    return exampleOf(ctx.catalog.schemas[name] ?? {}, ctx, name, field);
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  const { ids, values } = ctx.values;
  // `Component.field` first (a company's `name` is not a person's), then the field alone
  for (const key of [`${owner}.${field}`, field])
    if (key in values && fits(schema, values[key])) return values[key];
  // an object's `anyOf` of `required` lists ("one of these fields") constrains it, it is no variant
  const variants = (schema.properties ? undefined : (schema.anyOf ?? schema.oneOf)) as Json[] | undefined;
  if (variants) {
    const nonNull = variants.filter((v) => v.type !== 'null');
    return nonNull.length > 0 ? exampleOf(nonNull[0] as Json, ctx, owner, field) : null;
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('default' in schema) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Json = {};
      for (const [name, prop] of Object.entries((schema.properties ?? {}) as Record<string, Json>))
        out[name] = exampleOf(prop, ctx, owner, name);
      return out;
    }
    case 'array': {
      const item = exampleOf((schema.items ?? {}) as Json, ctx, owner, field);
      return [item];
    }
    case 'string': {
      const id = field === 'id' ? ids[owner] : ids[field];
      if (id) return id;
      if (schema.format === 'date-time') return '2026-03-14T09:26:53.000Z';
      if (schema.format === 'email') return 'ana@example.com';
      if (schema.format === 'uri') return 'https://support.example.com';
      ctx.gaps.add(`${owner || '(inline)'}.${field || '(value)'}`);
      return field ? field.replace(/_/g, ' ') : 'text';
    }
    case 'integer':
    case 'number':
      ctx.gaps.add(`${owner || '(inline)'}.${field || '(value)'}`);
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return {};
  }
}
