/**
 * Schema-driven fuzz of every operation of the OpenAPI document. For each operation:
 * its valid request (test/support/operations.ts) succeeds with a documented status and a body the
 * documented response schema accepts (so a documented request example that stops working fails
 * here). Then one field at a time (body fields, query params, path params, headers) goes through
 * the hostile classes below. Whatever arrives: no 5xx, only statuses the operation documents,
 * errors in the spec's shapes, and a refused request writes no row.
 *
 * Deterministic (FUZZ_SEED, default fixed) and bounded: FUZZ_PROBES mutations per operation
 * (default 8), sampled from its fields x classes; FUZZ_PROBES=all runs every pair.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';
import {
  acceptsForeign,
  acceptsUnknown,
  BODY_REFERENCES,
  bodySchemaOf,
  consumesFixtures,
  documentAndOperations,
  FIXTURE_ENV,
  type FixtureKind,
  fixtureOfParam,
  freshRateWindow,
  type Json,
  type Operation,
  type Probe,
  type Sent,
  seedWorld,
  send,
  validProbe,
  type World,
} from '../support/operations';

const SEED = Number(process.env.FUZZ_SEED ?? 18);
const PROBES =
  process.env.FUZZ_PROBES === 'all' ? Number.POSITIVE_INFINITY : Number(process.env.FUZZ_PROBES ?? 8);
/**
 * Tables a refused request may legitimately touch: metering, rate-limit and replay bookkeeping, and
 * the sign-in failure counter (a refused login is what it counts).
 */
const BOOKKEEPING = /^(usage_|rate_|idempotency_keys|schema_migrations|auth_throttle)/;

const { docs, operations } = documentAndOperations();

// --- response checks -------------------------------------------------------------------------

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
addFormats(ajv);
for (const [audience, doc] of Object.entries(docs)) ajv.addSchema(doc as unknown as Json, audience);
const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The documented response of a status (every response is written out in its operation). */
function documentedResponse(operation: Operation, status: number): Json | undefined {
  return (operation.op.responses as Json)[String(status)] ?? (operation.op.responses as Json).default;
}

/** ajv's verdict on a body against the documented schema of (operation, status); null when none is documented. */
function schemaErrors(operation: Operation, status: number, body: unknown): string | null {
  const r = (operation.op.responses as Json)[String(status)];
  if (!r) return null;
  const ref = `${operation.audience}#/paths/${pointer(operation.path)}/${operation.method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
  if (!documentedResponse(operation, status)?.content?.['application/json']?.schema) return null;
  const validate = ajv.getSchema(ref);
  if (!validate) throw new Error(`no schema at ${ref}`);
  return validate(body) ? null : ajv.errorsText(validate.errors);
}

/**
 * The converse of "every documented example works": whatever the server answers, its status and its
 * body are ones the document allows: the status is documented, and a body comes only where the
 * document declares one, matching its schema.
 */
function undocumentedAnswer(operation: Operation, sent: Sent): string | null {
  const documented = documentedResponse(operation, sent.status);
  if (!(operation.op.responses as Json)[String(sent.status)]) return 'status not documented';
  const declared = documented?.content as Json | undefined;
  if (!declared) return sent.text.trim() === '' ? null : 'a body where the document declares none';
  if (!declared['application/json']) return null; // HTML, files: not JSON the document describes
  const bad = schemaErrors(operation, sent.status, sent.body);
  return bad ? `body fails the documented schema: ${bad}` : null;
}

function errorShapeProblem(sent: Sent): string | null {
  const detail = sent.body?.detail;
  if (typeof detail === 'string') return null;
  if (
    Array.isArray(detail) &&
    detail.length > 0 &&
    detail.every(
      (d) =>
        d &&
        Array.isArray(d.loc) &&
        d.loc.every((l: unknown) => typeof l === 'string' || typeof l === 'number') &&
        typeof d.msg === 'string' &&
        typeof d.type === 'string',
    )
  )
    return null;
  return `not the spec's error shape: ${sent.text.slice(0, 200)}`;
}

// --- hostile classes -------------------------------------------------------------------------

type Where = 'body' | 'query' | 'path' | 'header';
interface Field {
  where: Where;
  name: string;
  /** the documented schema of the field (body property, parameter) */
  schema: Json;
  required: boolean;
  /** the fixture a valid request puts here, when the field names a record */
  fixture: FixtureKind | null;
}

/** A raw JSON text spliced in place of a body field (what JSON.stringify cannot produce). */
const RAW = (text: string) => ({ __raw: text });
const deepJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const typeOf = (schema: Json): string | undefined => {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.find((t: string) => t !== 'null');
  const alt = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  return alt ? alt.map(typeOf).find((t) => t && t !== 'null') : undefined;
};
const WRONG_TYPE: Record<string, unknown> = {
  string: 12345,
  integer: 'twelve',
  number: 'twelve',
  boolean: 'yes',
  array: { not: 'an array' },
  object: ['not', 'an', 'object'],
};

interface HostileClass {
  name: string;
  applies?: (field: Field) => boolean;
  /** the body value (JSON, or RAW text) */
  json?: (field: Field, w: World) => unknown;
  /** true when the request must be refused (an id of nothing, or of another tenant's record) */
  mustRefuse?: (field: Field, w: World) => boolean;
  /** the query/path value, already percent-encoded */
  url?: (field: Field, w: World) => string;
}

const isIdField = (f: Field) => f.fixture !== null || /(^id$|_id$)/.test(f.name);
/** A path id or body reference to a record this tenant does not have must not succeed (a query filter may: it finds nothing). */
const namesRecord = (f: Field) => f.fixture !== null && f.where !== 'query';

const CLASSES: HostileClass[] = [
  { name: 'NUL', json: () => 'a\u0000b', url: () => 'a%00b' },
  { name: 'lone surrogate', json: () => '\ud800x', url: () => '%ED%A0%80' },
  { name: '100 KB string', json: () => 'x'.repeat(100_000), url: () => 'x'.repeat(100_000) },
  {
    name: '10,000-deep nesting',
    json: () => RAW(deepJson(10_000)),
    url: () => encodeURIComponent(deepJson(200)),
  },
  {
    name: 'wrong type',
    json: (f) => WRONG_TYPE[typeOf(f.schema) ?? 'string'] ?? 12345,
    url: (f) => (typeOf(f.schema) === 'string' ? '%5B%5D' : 'not-a-number'),
  },
  { name: 'missing', applies: (f) => f.required && f.where !== 'path' },
  {
    name: 'SQL-ish text',
    json: () => "x' OR '1'='1'; DROP TABLE tickets; --",
    url: () => encodeURIComponent("1' OR '1'='1"),
  },
  {
    name: 'emoji/RTL/zero-width',
    json: () => '👩🏽‍💻 \u202eשלום\u200b\u200d\ufeff',
    url: () => encodeURIComponent('👩🏽‍💻\u202eשלום\u200b'),
  },
  { name: '1e309', json: () => RAW('1e309'), url: () => '1e309' },
  { name: '-0', json: () => RAW('-0'), url: () => '-0' },
  { name: '"0x10"', json: () => '0x10', url: () => '0x10' },
  {
    name: 'invalid UTF-8',
    applies: (f) => f.where !== 'header',
    json: () => RAW('"\u0001INVALID_UTF8\u0001"'),
    url: () => '%FF%FEx',
  },
  {
    name: 'unknown id',
    applies: isIdField,
    mustRefuse: namesRecord,
    // a new one each time: a create that takes a client id (internal calls) must not make it exist
    json: (f, w) => (f.fixture === 'tenant' ? `ten_doesnotexist${w.seq()}` : `unknown_${w.seq()}`),
    url: (_f, w) => `unknown_${w.seq()}`,
  },
  {
    name: 'foreign id',
    applies: (f) => f.fixture !== null,
    // naming another tenant is the caller's right where the tenant is the input (internal, public)
    mustRefuse: (f, w) =>
      namesRecord(f) && f.fixture !== 'tenant' && w.b.ids[f.fixture!] !== w.a.ids[f.fixture!],
    json: (f, w) => w.b.ids[f.fixture!],
    url: (f, w) => w.b.ids[f.fixture!],
  },
];

/** Whole-request classes (not one field): unknown fields, wrong Content-Type, broken bytes. */
interface RequestClass {
  name: string;
  /** only where the operation takes a body */
  bodyOnly?: boolean;
  apply: (p: Probe) => void;
}
const REQUEST_CLASSES: RequestClass[] = [
  {
    name: 'unknown body field',
    bodyOnly: true,
    apply: (p) => {
      p.rawBody = JSON.stringify({ ...(p.body as Json), zz_unknown_field: 'x' });
    },
  },
  {
    name: 'unknown query param',
    apply: (p) => {
      p.query.zz_unknown_param = 'x';
    },
  },
  {
    name: 'wrong Content-Type',
    apply: (p) => {
      p.headers['Content-Type'] = 'text/plain; charset=utf-8';
    },
  },
  {
    name: 'form Content-Type',
    bodyOnly: true,
    apply: (p) => {
      p.headers['Content-Type'] = 'application/x-www-form-urlencoded';
    },
  },
  {
    name: 'invalid UTF-8 body',
    bodyOnly: true,
    apply: (p) => {
      p.rawBody = Buffer.concat([Buffer.from(JSON.stringify(p.body ?? {})), Buffer.from([0xff, 0xfe, 0xc3])]);
    },
  },
  {
    name: 'malformed JSON',
    bodyOnly: true,
    apply: (p) => {
      p.rawBody = '{"a": ';
    },
  },
  {
    name: 'bad Idempotency-Key',
    apply: (p) => {
      p.headers['Idempotency-Key'] = '\u00fc'.repeat(300);
    },
  },
];

/** On operations that take a credential: none, or one that is not valid, is refused (401). */
const withoutCredential = (p: Probe) => {
  for (const name of ['Authorization', 'X-API-Key', 'Upstash-Signature', 'x-fuzz-sign'])
    delete p.headers[name];
};
const CREDENTIAL_CLASSES: RequestClass[] = [
  { name: 'no credential', apply: withoutCredential },
  {
    name: 'made-up API key',
    apply: (p) => {
      withoutCredential(p);
      p.headers['X-API-Key'] = `itsm_sk_live_${'a'.repeat(40)}`;
    },
  },
  {
    name: 'garbage bearer',
    apply: (p) => {
      withoutCredential(p);
      p.headers.Authorization = 'Bearer a.b.c';
    },
  },
];

function fieldsOf(operation: Operation): Field[] {
  const fields: Field[] = [];
  for (const p of (operation.op.parameters ?? []) as Json[])
    fields.push({
      where: p.in === 'path' ? 'path' : 'query',
      name: p.name,
      schema: p.schema ?? {},
      required: Boolean(p.required),
      fixture: p.in === 'path' ? fixtureOfParam(operation.path, p.name) : (BODY_REFERENCES[p.name] ?? null),
    });
  const body = bodySchemaOf(operation.op);
  const required = new Set<string>((body?.required as string[]) ?? []);
  for (const [name, schema] of Object.entries((body?.properties ?? {}) as Record<string, Json>))
    fields.push({
      where: 'body',
      name,
      schema,
      required: required.has(name),
      fixture: BODY_REFERENCES[name] ?? null,
    });
  return fields;
}

/** mulberry32: a small seeded generator, so a failure reproduces with the same FUZZ_SEED. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Mutation {
  label: string;
  mustRefuse?: (w: World) => boolean;
  apply: (probe: Probe, w: World) => void;
}

/** Splices RAW markers and the invalid-UTF-8 marker into the serialized body. */
function serializeWith(body: Json, field: string, value: unknown): string | Uint8Array {
  const marker = '"__FUZZ_RAW__"';
  const isRaw = value && typeof value === 'object' && '__raw' in (value as Json);
  const text = JSON.stringify({ ...body, [field]: isRaw ? '__FUZZ_RAW__' : value });
  if (!isRaw) return text;
  const raw = (value as { __raw: string }).__raw;
  if (raw.includes('INVALID_UTF8')) {
    const [before, after] = text.split(marker) as [string, string];
    return Buffer.concat([
      Buffer.from(`${before}"x`),
      Buffer.from([0xff, 0xfe, 0xed, 0xa0, 0x80]),
      Buffer.from(`"${after}`),
    ]);
  }
  return text.replace(marker, raw);
}

function mutationsOf(operation: Operation): Mutation[] {
  const out: Mutation[] = [];
  const hasBody = Boolean(bodySchemaOf(operation.op));
  for (const field of fieldsOf(operation)) {
    for (const cls of CLASSES) {
      if (cls.applies && !cls.applies(field)) continue;
      const label = `${cls.name} in ${field.where} ${field.name}`;
      // an id of nothing, or of another tenant's record where the caller is not a tenant's
      const accepted =
        acceptsUnknown(operation, field.name) ||
        (cls.name === 'foreign id' && acceptsForeign(operation, field.name));
      const mustRefuse = (w: World) => (cls.mustRefuse?.(field, w) ?? false) && !accepted;
      if (cls.name === 'missing') {
        out.push({
          label,
          apply: (p) => {
            if (field.where === 'body') p.rawBody = JSON.stringify(omit(p.body as Json, field.name));
            else delete p.query[field.name];
          },
        });
      } else if (field.where === 'body' && cls.json) {
        const json = cls.json;
        out.push({
          label,
          mustRefuse,
          apply: (p, w) => {
            p.rawBody = serializeWith((p.body ?? {}) as Json, field.name, json(field, w));
          },
        });
      } else if (field.where !== 'body' && cls.url) {
        const url = cls.url;
        out.push({
          label,
          mustRefuse,
          apply: (p, w) => {
            (field.where === 'path' ? p.pathParams : p.query)[field.name] = url(field, w);
          },
        });
      }
    }
  }
  for (const cls of REQUEST_CLASSES)
    if (hasBody || !cls.bodyOnly) out.push({ label: cls.name, apply: cls.apply });
  // an operation that also takes no credential (`{}` among its security options: sign-in) has none to refuse
  const security = operation.op.security as Json[];
  if (security.length > 0 && !security.some((option) => Object.keys(option).length === 0))
    for (const cls of CREDENTIAL_CLASSES)
      out.push({ label: cls.name, mustRefuse: () => true, apply: cls.apply });
  return out;
}

const omit = (o: Json, key: string) => Object.fromEntries(Object.entries(o ?? {}).filter(([k]) => k !== key));

function pick<T>(items: T[], n: number, random: () => number): T[] {
  if (items.length <= n) return items;
  const pool = [...items];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j] as T, pool[i] as T];
  }
  return pool.slice(0, n);
}

// --- the suite -------------------------------------------------------------------------------

/** Deletes and other consumers run last so the fixtures the others name still exist. */
const ORDER: Record<string, number> = { GET: 0, PUT: 1, POST: 1, PATCH: 2, DELETE: 3 };
const ordered = [...operations].sort((x, y) => (ORDER[x.method] ?? 1) - (ORDER[y.method] ?? 1));

describe.skipIf(postgresUnavailable())('schema-driven fuzz of every documented operation', () => {
  let h: Harness;
  let w: World;
  let rowCounts: () => Promise<string>;

  beforeAll(async () => {
    h = await startHarness(FIXTURE_ENV);
    w = await seedWorld(h);
    const tables = (
      await sql<{ tablename: string }>`select tablename from pg_tables where schemaname = 'public'`.execute(
        h.db,
      )
    ).rows
      .map((r) => r.tablename)
      .filter((n) => !BOOKKEEPING.test(n))
      .sort();
    const countSql = tables.map((n) => `'${n}=' || (select count(*) from "${n}")::text`).join(" || ',' || ");
    rowCounts = async () =>
      (await sql<{ c: string }>`select ${sql.raw(countSql)} as c`.execute(h.db)).rows[0]!.c;
  }, 120_000);
  afterAll(() => h?.close());

  it('fills every path parameter of the document from a fixture or its enum', () => {
    const unfilled = operations.flatMap((o) =>
      ((o.op.parameters ?? []) as Json[])
        .filter((p) => p.in === 'path' && !fixtureOfParam(o.path, p.name) && !p.schema?.enum)
        .map((p) => `${o.id} {${p.name}}`),
    );
    expect(unfilled, 'add them to PATH_FIXTURES in test/support/operations.ts').toEqual([]);
  });

  it.each(ordered.map((o) => [o.id, o] as const))('%s', async (_id, operation) => {
    const problems: string[] = [];
    const documented = new Set(Object.keys(operation.op.responses as Json));
    const valid = await validProbe(w, operation, docs[operation.audience]);

    freshRateWindow(w);
    const ok = await send(w, structuredClone(valid));
    // success is a 2xx, or the documented 3xx of an operation that only redirects (GET /openapi.json)
    const onlyRedirects = [...documented].every((status) => !status.startsWith('2'));
    const success = ok.status >= 200 && ok.status < (onlyRedirects ? 400 : 300);
    if (!success || !documented.has(String(ok.status)))
      problems.push(`valid request -> ${ok.status} ${ok.text.slice(0, 300)}`);
    else {
      const undocumented = undocumentedAnswer(operation, ok);
      if (undocumented) problems.push(`valid request -> ${ok.status}: ${undocumented}`);
    }
    // what a success deferred (a message delivery...) lands before the next probe counts rows;
    // a GET defers only metering and last_used_at, which change no count that is compared
    if (operation.method !== 'GET') await h.runtime.drain();

    const random = rng(SEED ^ [...operation.id].reduce((s, ch) => (s * 31 + ch.charCodeAt(0)) >>> 0, 7));
    // one count per probe: a refusal is compared with the counts before it, a success moves them on
    let counts = await rowCounts();
    for (const mutation of pick(mutationsOf(operation), PROBES, random)) {
      // an operation that consumes its fixture (delete, complete...) gets a fresh one per probe
      let probe = structuredClone(valid);
      if (consumesFixtures(operation)) {
        probe = await validProbe(w, operation, docs[operation.audience]);
        counts = await rowCounts(); // the fresh fixture is not the probe's write
      }
      mutation.apply(probe, w);
      const sent = await send(w, probe);
      if (sent.status < 400 && operation.method !== 'GET') await h.runtime.drain();
      const what = `${mutation.label} -> ${sent.status}`;
      if (mutation.mustRefuse?.(w) && sent.status < 400)
        problems.push(`${what}: accepted ${sent.text.slice(0, 200)}`);
      if (sent.status >= 500) problems.push(`${what} ${sent.text.slice(0, 200)}`);
      else if (!documented.has(String(sent.status)))
        problems.push(
          `${what}: status not documented (${[...documented].join(',')}) ${sent.text.slice(0, 200)}`,
        );
      else {
        const undocumented = undocumentedAnswer(operation, sent);
        if (undocumented) problems.push(`${what}: ${undocumented} ${sent.text.slice(0, 200)}`);
      }
      const after = await rowCounts();
      if (sent.status >= 400) {
        // the spec's shapes, and the one this status documents (a 422 is the list of issues)
        const shape = errorShapeProblem(sent) ?? schemaErrors(operation, sent.status, sent.body);
        if (shape) problems.push(`${what}: ${shape} ${sent.text.slice(0, 200)}`);
        if (after !== counts) problems.push(`${what}: refused but wrote rows (${diffCounts(counts, after)})`);
      }
      counts = after;
    }
    expect(problems, operation.id).toEqual([]);
  });
});

function diffCounts(before: string, after: string): string {
  const b = before.split(',');
  return after
    .split(',')
    .filter((x, i) => x !== b[i])
    .join(' ');
}
