// The edge's data path (shared/db/adapters/neon-http.ts) against this machine's Postgres through the
// Neon SQL-over-HTTP endpoint of test/support: every column type the schema uses comes back as `pg`
// returns it, a statement is one HTTP request, a transaction is one WebSocket session, and the
// WebSocket Pool of neon.ts (NEON_TRANSPORT=websocket) still works.
import { neonConfig } from '@neondatabase/serverless';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createNeonHandle } from '../../shared/db/adapters/neon';
import { createNeonHttpHandle } from '../../shared/db/adapters/neon-http';
import type { DatabaseHandle } from '../../shared/db/handle';
import { TEST_DB } from '../support/harness';
import { type NeonHttpEndpoint, startNeonHttpEndpoint } from '../support/neon-http-endpoint';
import { createTestDatabase } from '../support/pg';
import { startWsProxy, type WsProxy } from '../support/ws-proxy';

const skip = TEST_DB !== 'postgres' || process.env.TEST_POSTGRES_UNAVAILABLE === '1';

/**
 * A value for every column type of the schema (information_schema's udt_name), written as Postgres
 * text, with the awkward cases: time zones, fractions, nesting, NULL and quotes inside arrays. A new
 * column type in schema/*.sql fails the coverage test until it gets its values here.
 */
const SAMPLES: Record<string, { cast: string; values: string[] }> = {
  text: { cast: 'text', values: ['plain', '', 'quote " and \\ backslash', 'ünïcødé ✓'] },
  int4: { cast: 'integer', values: ['0', '-2147483648', '2147483647'] },
  int8: { cast: 'bigint', values: ['0', '9223372036854775807', '-42'] },
  float8: { cast: 'double precision', values: ['0', '1234.5678', '-1e-9', 'NaN'] },
  bool: { cast: 'boolean', values: ['true', 'false'] },
  timestamptz: {
    cast: 'timestamptz',
    values: ['2026-01-02T03:04:05.678Z', '1999-12-31 23:59:59.999+05:30', '2026-06-01 00:00:00+00'],
  },
  timestamp: { cast: 'timestamp', values: ['2026-01-02 03:04:05.678', '2000-02-29 00:00:00'] },
  json: { cast: 'json', values: ['{"a": [1, 2.5, null], "b": "x"}', '[]', '"s"', '12'] },
  jsonb: { cast: 'jsonb', values: ['{"nested": {"k": [true, false]}, "n": 1}', '[{"x": "y"}]', 'null'] },
  _text: { cast: 'text[]', values: ['{}', '{a,"b c","with \\"quote\\"",NULL}', '{"{brace}"}'] },
  // the search vectors (schema/0029_search.sql): read back as their text, never parsed
  tsvector: { cast: 'tsvector', values: ["'fire':3 'printer':1", '', "'on':2A 'hold':3B"] },
  // a row's text search configuration (schema/0036_search_locale.sql): its name, as text
  regconfig: { cast: 'regconfig', values: ['simple', 'english', 'pg_catalog.german'] },
};

describe.skipIf(skip)('edge data path over Neon SQL-over-HTTP', () => {
  let endpoint: NeonHttpEndpoint;
  let proxy: WsProxy;
  let direct: pg.Pool;
  let http: DatabaseHandle;
  let drop: () => Promise<void>;
  let url: string;

  beforeAll(async () => {
    neonConfig.webSocketConstructor = WebSocket;
    const created = await createTestDatabase(process.env.TEST_POSTGRES_TEMPLATE!);
    url = created.url;
    drop = created.drop;
    endpoint = await startNeonHttpEndpoint();
    proxy = await startWsProxy();
    direct = new pg.Pool({ connectionString: url, max: 2 });
    http = createNeonHttpHandle(url, { httpEndpoint: endpoint.url, wsProxy: proxy.address });
  });

  afterAll(async () => {
    await http?.close();
    await direct?.end();
    await endpoint?.close();
    await proxy?.close();
    await drop?.();
  });

  it('has a sample for every column type in the schema', async () => {
    const { rows } = await direct.query<{ udt_name: string }>(
      `SELECT DISTINCT udt_name FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1`,
    );
    const missing = rows.map((r) => r.udt_name).filter((t) => !SAMPLES[t]);
    expect(missing).toEqual([]);
  });

  for (const [udt, { cast, values }] of Object.entries(SAMPLES)) {
    it(`${cast}: values come back as pg parses them, and go back as parameters`, async () => {
      for (const text of values) {
        const t = sql.raw(cast);
        const expected = (
          await direct.query(`SELECT $1::${cast} AS v, NULL::${cast} AS n, ARRAY[$1::${cast}] AS a`, [text])
        ).rows[0];
        const got = (
          await sql`SELECT ${text}::${t} AS v, NULL::${t} AS n, ARRAY[${text}::${t}] AS a`.execute(http.db)
        ).rows[0];
        expect(got, `${udt} ${text}`).toStrictEqual(expected);
        // the parsed value sent back as a parameter: Postgres reads it as it reads pg's (for json,
        // pg too sends a JS array as a Postgres array and a bare string unquoted: callers stringify)
        const back = `SELECT $1::${cast}::text AS v`;
        const viaPg = await direct.query(back, [expected!.v]).then(
          (r) => r.rows[0],
          (e) => e.code,
        );
        const viaHttpParam = await sql<{ v: string }>`SELECT ${expected!.v}::${t}::text AS v`
          .execute(http.db)
          .then(
            (r) => r.rows[0],
            (e) => e.code,
          );
        expect(viaHttpParam, `${udt} ${text} as a parameter`).toStrictEqual(viaPg);
      }
    });
  }

  it('reads a table row exactly as pg does: every column', async () => {
    await direct.query(
      `INSERT INTO tenants (id, name, plan, environment) VALUES ('ten_nh', 'N', 'pro', 'production')`,
    );
    await direct.query(
      `INSERT INTO tickets (id, tenant_id, subject, tags, created_by, resolved_at)
       VALUES ('tkt_nh', 'ten_nh', 'Subject', '{a,"b c"}', 'usr_1', '2026-03-04T05:06:07.891Z')`,
    );
    const expected = (await direct.query(`SELECT * FROM tickets WHERE id = 'tkt_nh'`)).rows[0];
    const got = await http.db.selectFrom('tickets').selectAll().where('id', '=', 'tkt_nh').executeTakeFirst();
    expect(got).toStrictEqual(expected);
    expect(got!.created_at).toBeInstanceOf(Date);
    expect(got!.tags).toEqual(['a', 'b c']);
  });

  it('a statement is one HTTP request; writes report their affected rows', async () => {
    const before = endpoint.requests;
    const connections = proxy.connections();
    const res = await http.db
      .updateTable('tenants')
      .set({ name: 'Renamed' })
      .where('id', '=', 'ten_nh')
      .executeTakeFirst();
    expect(res.numUpdatedRows).toBe(1n);
    expect(endpoint.requests - before).toBe(1);
    expect(proxy.connections()).toBe(connections);
  });

  it('an interactive transaction runs on one WebSocket session, commits and rolls back', async () => {
    const before = endpoint.requests;
    const connections = proxy.connections();
    await http.db.transaction().execute(async (trx) => {
      const t = await trx
        .selectFrom('tenants')
        .select('name')
        .where('id', '=', 'ten_nh')
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('tenants')
        .set({ name: `${t.name}!` })
        .where('id', '=', 'ten_nh')
        .execute();
    });
    await expect(
      http.db.transaction().execute(async (trx) => {
        await trx.updateTable('tenants').set({ name: 'lost' }).where('id', '=', 'ten_nh').execute();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(endpoint.requests - before).toBe(0);
    expect(proxy.connections() - connections).toBe(2);
    const row = (await direct.query(`SELECT name FROM tenants WHERE id = 'ten_nh'`)).rows[0];
    expect(row.name).toBe('Renamed!');
  });

  it("a constraint violation carries Postgres's code and fields (the API maps 23505 to 409)", async () => {
    const err = await http.db
      .insertInto('tenants')
      .values({ id: 'ten_nh', name: 'x', plan: 'pro', environment: 'production' })
      .execute()
      .catch((e: unknown) => e as Record<string, unknown>);
    expect(err).toMatchObject({
      code: '23505',
      constraint: 'tenants_pkey',
      table: 'tenants',
      schema: 'public',
    });
  });

  it('runs a multi-statement script (migrations) on a session', async () => {
    await http.exec(`CREATE TABLE nh_tmp (x int); INSERT INTO nh_tmp VALUES (1); DROP TABLE nh_tmp;`);
  });

  it('the WebSocket Pool (NEON_TRANSPORT=websocket) still answers and commits', async () => {
    const ws = createNeonHandle(url, { wsProxy: proxy.address });
    try {
      const row = await ws.db.selectFrom('tickets').selectAll().where('id', '=', 'tkt_nh').executeTakeFirst();
      expect(row).toStrictEqual((await direct.query(`SELECT * FROM tickets WHERE id = 'tkt_nh'`)).rows[0]);
      await ws.db
        .transaction()
        .execute((trx) =>
          trx.updateTable('tickets').set({ reply_count: 7 }).where('id', '=', 'tkt_nh').execute(),
        );
      expect(
        (await direct.query(`SELECT reply_count FROM tickets WHERE id = 'tkt_nh'`)).rows[0].reply_count,
      ).toBe(7);
    } finally {
      await ws.close();
    }
  });
  it("STATEMENT_TIMEOUT_MS is Postgres' own limit over HTTP and in a transaction: 57014, nothing written", async () => {
    const limited = createNeonHttpHandle(url, {
      httpEndpoint: endpoint.url,
      wsProxy: proxy.address,
      statementTimeoutMs: 300,
    });
    const locker = await direct.connect();
    const before = endpoint.requests;
    try {
      await locker.query('begin');
      await locker.query('lock table tenants in exclusive mode');
      const started = Date.now();
      // one statement over HTTP: still one request, cancelled by the server and rolled back
      await expect(
        limited.db
          .updateTable('tenants')
          .set({ name: 'past the limit' })
          .where('id', '=', 'ten_nh')
          .execute(),
      ).rejects.toMatchObject({ code: '57014' });
      expect(endpoint.requests - before).toBe(1);
      expect(Date.now() - started).toBeLessThan(4_000);
      await expect(
        limited.db
          .transaction()
          .execute((trx) =>
            trx.updateTable('tenants').set({ name: 'past the limit' }).where('id', '=', 'ten_nh').execute(),
          ),
      ).rejects.toMatchObject({ code: '57014' });
    } finally {
      await locker.query('rollback');
      locker.release();
    }
    const row = (await direct.query(`SELECT name FROM tenants WHERE id = 'ten_nh'`)).rows[0];
    expect(row.name).not.toBe('past the limit');
    // without a lock in the way the same handle reads and writes as before
    expect(
      (await limited.db.selectFrom('tenants').select('id').where('id', '=', 'ten_nh').executeTakeFirst())?.id,
    ).toBe('ten_nh');
  });
});
