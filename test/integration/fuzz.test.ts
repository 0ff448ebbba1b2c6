/**
 * Property-based fuzzing of every route the manifest serves (fast-check): malformed bodies,
 * query strings, headers, path ids and credentials. Whatever arrives: never a 5xx, always the
 * spec's error shapes, and a refused request writes no row.
 */
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFunctionApps } from '../../scripts/embedded';
import { SCOPE_CATALOG } from '../../shared/auth/scopes';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
/** Tables a refused request may legitimately touch: metering, rate-limit and replay bookkeeping. */
const BOOKKEEPING = /^(usage_|rate_|idempotency_keys|schema_migrations)/;

interface Route {
  method: string;
  path: string;
}

function isErrorShape(status: number, body: unknown): boolean {
  if (status < 400) return true;
  if (!body || typeof body !== 'object' || !('detail' in body)) return false;
  const detail = (body as { detail: unknown }).detail;
  if (typeof detail === 'string') return true;
  return (
    Array.isArray(detail) &&
    detail.every((d) => d && Array.isArray(d.loc) && typeof d.msg === 'string' && typeof d.type === 'string')
  );
}

describe.skipIf(postgresUnavailable())('fuzz: every route of the manifest', () => {
  let h: Harness;
  let t: TestTenant;
  let routes: Route[];
  let creds: Record<string, Record<string, string>>;
  let rowCounts: () => Promise<string>;

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    const key = await t.key([...SCOPE_CATALOG]);
    creds = {
      none: {},
      key: { 'X-API-Key': key },
      admin: { Authorization: `Bearer ${t.adminToken}` },
      agent: { Authorization: `Bearer ${await t.token('agent')}` },
      internal: { Authorization: 'Bearer test-internal-token' },
    };
    const seen = new Set<string>();
    routes = [];
    for (const app of await loadFunctionApps()) {
      for (const r of app.routes) {
        if (r.method === 'ALL' || r.path.includes('*')) continue;
        const id = `${r.method} ${r.path}`;
        if (!seen.has(id)) routes.push({ method: r.method, path: r.path });
        seen.add(id);
      }
    }
    const tables = (
      await sql<{ tablename: string }>`select tablename from pg_tables where schemaname = 'public'`.execute(
        h.db,
      )
    ).rows
      .map((r) => r.tablename)
      .filter((n) => !BOOKKEEPING.test(n))
      .sort();
    const countSql = tables.map((n) => `(select count(*) from "${n}")::text`).join(" || ',' || ");
    rowCounts = async () =>
      (await sql<{ c: string }>`select ${sql.raw(countSql)} as c`.execute(h.db)).rows[0]!.c;
  });
  afterAll(() => h?.close());

  const fill = (path: string, ids: string[]) => {
    let i = 0;
    return path.replace(/:[A-Za-z_]+/g, () => encodeURIComponent(ids[i++ % ids.length] ?? 'x'));
  };

  const oddString = fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.constantFrom(
      '',
      ' ',
      '../../etc/passwd',
      '%00',
      "' OR 1=1 --",
      'x'.repeat(5000),
      '-1',
      '1e309',
      'null',
      '{}',
    ),
  );
  const body = fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc
      .dictionary(
        fc.constantFrom(
          'name',
          'subject',
          'status',
          'url',
          'events',
          'scopes',
          'limit',
          'email',
          'body',
          'priority',
          'tenant_id',
          'id',
        ),
        fc.jsonValue(),
      )
      .map((v) => JSON.stringify(v)),
    fc.constantFrom('{', '[1,2', '"unterminated', 'nul\u0000l', '{"a":1}{"b":2}', ''),
    oddString,
  );
  const query = fc.dictionary(
    fc.constantFrom(
      'limit',
      'offset',
      'status',
      'sort',
      'updated_since',
      'group_by',
      'q',
      'created_after',
      'since',
    ),
    oddString,
    { maxKeys: 3 },
  );

  it('never answers 5xx, always in the spec shapes, and refusals write nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.array(oddString, { minLength: 1, maxLength: 3 }),
        body,
        query,
        fc.constantFrom(...Object.keys(creds)),
        fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
        async (route, ids, rawBody, q, who, contentType) => {
          const search = new URLSearchParams(q).toString();
          const path = `${fill(route.path, ids)}${search ? `?${search}` : ''}`;
          const headers: Record<string, string> = { ...creds[who] };
          if (contentType) headers['Content-Type'] = contentType;
          const before = await rowCounts();
          const res = await h.request(route.method, path, { rawBody, headers });
          expect(res.status, `${route.method} ${path} -> ${res.text.slice(0, 300)}`).toBeLessThan(500);
          expect(
            isErrorShape(res.status, res.body),
            `${route.method} ${path}: ${res.text.slice(0, 300)}`,
          ).toBe(true);
          if (res.status >= 400) {
            await h.runtime.drain();
            expect(await rowCounts(), `${route.method} ${path} wrote rows while refusing`).toBe(before);
          }
        },
      ),
      { numRuns: RUNS * 5, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 100000) },
    );
  }, 240_000);

  it('random credentials are refused with the spec bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          ...routes.filter(
            (r) => r.path.startsWith('/api/v1/tickets') || r.path.startsWith('/api/v1/webhooks'),
          ),
        ),
        fc.oneof(
          fc.string().map((s) => ({ 'X-API-Key': s })),
          fc.string().map((s) => ({ Authorization: `Bearer ${s}` })),
          fc.string().map((s) => ({ Authorization: s })),
          fc.constant({ 'X-API-Key': 'itsm_sk_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }),
          fc.constant({ Authorization: 'Bearer a.b.c' }),
        ),
        async (route, headers) => {
          const res = await h.request(route.method, fill(route.path, ['x']), { headers, rawBody: '{}' });
          expect([401, 403]).toContain(res.status);
          expect(typeof res.body?.detail).toBe('string');
        },
      ),
      { numRuns: RUNS * 2 },
    );
  }, 120_000);
});
