// The installed @neondatabase/serverless driver, as the Workers use it, against the Neon
// SQL-over-HTTP endpoint of test/support: the request/response cases the driver's own suite runs
// against Neon (HTTP results equal to a session's, the query options, batched transactions and their
// headers, error bodies), plus the protocol's refusals seen with a bare fetch.
import { type FullQueryResults, neon, neonConfig, Pool } from '@neondatabase/serverless';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { useLocalWsProxy } from '../../shared/db/adapters/neon';
import { TEST_DB } from '../support/harness';
import { type NeonHttpEndpoint, startNeonHttpEndpoint } from '../support/neon-http-endpoint';
import { createTestDatabase } from '../support/pg';
import { startWsProxy, type WsProxy } from '../support/ws-proxy';

const skip = TEST_DB !== 'postgres' || process.env.TEST_POSTGRES_UNAVAILABLE === '1';

/** Queries whose HTTP results must equal a WebSocket session's: types, NULLs, arrays, commands. */
const CASES: [string, unknown[]][] = [
  ['SELECT 1 AS one', []],
  ['SELECT $1::int AS i, $2::text AS t, $3::boolean AS b, NULL AS n', [42, 'x', true]],
  ["SELECT 12345678901234::bigint AS big, 1.5::numeric AS num, 'NaN'::float8 AS nan, 3.25::real AS r", []],
  [
    'SELECT $1::timestamptz AS tz, $2::timestamp AS ts, $3::date AS d',
    ['2026-01-02T03:04:05.678Z', '2026-01-02 03:04:05', '2026-01-02'],
  ],
  ['SELECT \'{"a":[1,null]}\'::json AS j, \'{"b":{"c":true}}\'::jsonb AS jb', []],
  [
    "SELECT ARRAY[1,2,NULL]::int[] AS ints, ARRAY['a','b \"c\"',NULL]::text[] AS texts, '{}'::text[] AS empty",
    [],
  ],
  [
    "SELECT '\\x414243'::bytea AS bytes, '1 day 02:03:04'::interval AS iv, gen_random_uuid() IS NOT NULL AS u",
    [],
  ],
  ['SELECT x FROM generate_series(1, $1::int) AS x WHERE false', [3]],
  ['SELECT x, x * 2 AS doubled FROM generate_series(1, 3) AS x', []],
  ['WITH w AS (SELECT 1 AS a) SELECT * FROM w', []],
];

describe.skipIf(skip)('Neon SQL-over-HTTP endpoint: the driver’s request/response cases', () => {
  let endpoint: NeonHttpEndpoint;
  let proxy: WsProxy;
  let url: string;
  let drop: () => Promise<void>;
  let pool: Pool;

  beforeAll(async () => {
    const created = await createTestDatabase(process.env.TEST_POSTGRES_TEMPLATE!);
    url = created.url;
    drop = created.drop;
    endpoint = await startNeonHttpEndpoint();
    proxy = await startWsProxy();
    neonConfig.webSocketConstructor = WebSocket;
    neonConfig.fetchEndpoint = () => endpoint.url;
    useLocalWsProxy(proxy.address);
    pool = new Pool({ connectionString: url, max: 1 });
    await pool.query(`CREATE TABLE proto_t (id int PRIMARY KEY, label text NOT NULL)`);
  });

  afterAll(async () => {
    await pool?.end();
    await endpoint?.close();
    await proxy?.close();
    await drop?.();
  });

  it('HTTP results equal WebSocket session results (rows, fields, command, rowCount)', async () => {
    const sqlFull = neon(url, { fullResults: true });
    for (const [query, params] of CASES) {
      const [http, ws] = await Promise.all([sqlFull.query(query, params), pool.query(query, params)]);
      // the parts both transports promise (the HTTP result also carries the driver's parsers)
      const plain = (r: typeof ws | FullQueryResults<false>) => ({
        command: r.command,
        rowCount: r.rowCount,
        rows: r.rows,
        fields: r.fields.map((f) => ({ ...f })),
        rowAsArray: (r as { rowAsArray?: boolean }).rowAsArray,
      });
      expect((http as { viaNeonFetch?: boolean }).viaNeonFetch, query).toBe(true);
      expect(plain(http), query).toStrictEqual(plain(ws));
    }
  });

  it('arrayMode and fullResults, on neon() and per query', async () => {
    const rows = await neon(url)`SELECT 'xyz' AS str, ${7}::int AS n`;
    expect(rows).toStrictEqual([{ str: 'xyz', n: 7 }]);
    const arrays = await neon(url, { arrayMode: true })`SELECT 'xyz' AS str, ${7}::int AS n`;
    expect(arrays).toStrictEqual([['xyz', 7]]);
    const full = await neon(url, { arrayMode: true, fullResults: true })`SELECT 'xyz' AS str`;
    expect(full).toMatchObject({ rows: [['xyz']], command: 'SELECT', rowCount: 1, rowAsArray: true });
    expect(full.fields[0]).toMatchObject({ name: 'str', dataTypeID: 25, format: 'text' });
    const perQuery = await neon(url).query('SELECT 1 AS a', [], { arrayMode: true, fullResults: true });
    expect(perQuery.rows).toStrictEqual([[1]]);
  });

  it('composed templates and JS parameter types (Date, arrays, objects, binary)', async () => {
    const sql = neon(url);
    const at = new Date('2026-05-06T07:08:09.123Z');
    const [row] = await sql`
      SELECT ${at}::timestamptz AS at, ${['a', 'b,c', null]}::text[] AS arr, ${{ k: [1] }}::jsonb AS obj,
             ${sql`${2}::int`} + 1 AS composed`;
    expect(row).toStrictEqual({ at, arr: ['a', 'b,c', null], obj: { k: [1] }, composed: 3 });
    // uncast binary goes as hex text, as on Neon
    expect(await sql.query('SELECT $1 AS bytea', [new Uint8Array([65, 66, 67])])).toStrictEqual([
      { bytea: '\\x414243' },
    ]);
  });

  it('writes report their command and rowCount', async () => {
    const sql = neon(url, { fullResults: true });
    const inserted = await sql`INSERT INTO proto_t (id, label) VALUES (1, 'one'), (2, 'two') RETURNING id`;
    expect(inserted).toMatchObject({ command: 'INSERT', rowCount: 2, rows: [{ id: 1 }, { id: 2 }] });
    const updated = await sql`UPDATE proto_t SET label = 'uno' WHERE id = 1`;
    expect(updated).toMatchObject({ command: 'UPDATE', rowCount: 1, rows: [] });
  });

  it('a batch is one request and one transaction, with isolation, read-only and deferrable', async () => {
    const sql = neon(url);
    const before = endpoint.requests;
    const [iso, ro, def] = await sql.transaction(
      (tx) => [
        tx`SHOW transaction_isolation`,
        tx`SHOW transaction_read_only`,
        tx`SHOW transaction_deferrable`,
      ],
      { isolationLevel: 'Serializable', readOnly: true, deferrable: true },
    );
    expect(endpoint.requests - before).toBe(1);
    expect(iso).toStrictEqual([{ transaction_isolation: 'serializable' }]);
    expect(ro).toStrictEqual([{ transaction_read_only: 'on' }]);
    expect(def).toStrictEqual([{ transaction_deferrable: 'on' }]);
    for (const [level, shown] of [
      ['ReadUncommitted', 'read uncommitted'],
      ['ReadCommitted', 'read committed'],
      ['RepeatableRead', 'repeatable read'],
    ] as const) {
      const [r] = await sql.transaction([sql`SHOW transaction_isolation`], { isolationLevel: level });
      expect(r).toStrictEqual([{ transaction_isolation: shown }]);
    }
    await expect(
      sql.transaction([sql`INSERT INTO proto_t VALUES (9, 'x')`], { readOnly: true }),
    ).rejects.toMatchObject({ code: '25006' });
  });

  it('a failing statement rolls the whole batch back', async () => {
    const sql = neon(url);
    await expect(
      sql.transaction([
        sql`INSERT INTO proto_t VALUES (3, 'three')`,
        sql`INSERT INTO proto_t VALUES (1, 'dup')`,
      ]),
    ).rejects.toMatchObject({
      code: '23505',
      constraint: 'proto_t_pkey',
      table: 'proto_t',
      schema: 'public',
    });
    expect(await sql`SELECT id FROM proto_t WHERE id = 3`).toStrictEqual([]);
  });

  it("errors carry Postgres's fields: code, position, detail, severity", async () => {
    const sql = neon(url);
    const syntax = await sql.query('SELECT FROM WHERE', []).catch((e: Record<string, unknown>) => e);
    expect(syntax).toMatchObject({ name: 'NeonDbError', code: '42601', severity: 'ERROR', position: '13' });
    const dup = await sql`INSERT INTO proto_t VALUES (1, 'dup')`.catch((e: Record<string, unknown>) => e);
    expect(dup).toMatchObject({
      code: '23505',
      detail: 'Key (id)=(1) already exists.',
      constraint: 'proto_t_pkey',
    });
    // one statement per query: the extended protocol refuses two
    await expect(sql.query('SELECT 1; SELECT 2', [])).rejects.toMatchObject({ code: '42601' });
  });

  it('protocol refusals and the non-raw output, with a bare fetch', async () => {
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const noConn = await post({}, { query: 'SELECT 1', params: [] });
    expect(noConn.status).toBe(400);
    expect(await noConn.json()).toMatchObject({ message: 'missing connection string', code: '' });
    const badIso = await post(
      { 'Neon-Connection-String': url, 'Neon-Batch-Isolation-Level': 'Sometimes' },
      { queries: [{ query: 'SELECT 1', params: [] }] },
    );
    expect(badIso.status).toBe(400);
    expect((await badIso.json()).message).toBe('invalid isolation level');
    const json = await post(
      { 'Neon-Connection-String': url },
      { query: `SELECT true AS b, 2::int AS i, '{"x":1}'::jsonb AS j, 't' AS s`, params: [] },
    );
    expect(await json.json()).toMatchObject({
      rows: [{ b: true, i: 2, j: { x: 1 }, s: 't' }],
      rowAsArray: false,
    });
    const echoed = await post(
      {
        'Neon-Connection-String': url,
        'Neon-Batch-Isolation-Level': 'RepeatableRead',
        'Neon-Batch-Read-Only': 'true',
      },
      { queries: [{ query: 'SELECT 1', params: [] }] },
    );
    expect(echoed.headers.get('neon-batch-isolation-level')).toBe('RepeatableRead');
    expect(echoed.headers.get('neon-batch-read-only')).toBe('true');
  });

  it('a set distance is paid once per request', async () => {
    endpoint.delayMs = 40;
    try {
      const started = performance.now();
      await neon(url)`SELECT 1`;
      expect(performance.now() - started).toBeGreaterThanOrEqual(38);
    } finally {
      endpoint.delayMs = 0;
    }
  });
});
