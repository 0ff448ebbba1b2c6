import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

/**
 * Cursors on every list that takes them (shared/http/pagination.ts, shared/db/paging.ts): a walk by
 * `next_cursor` returns every row once while rows are inserted between its pages, ends with
 * `next_cursor: null`, answers `total: null`; a cursor of other filters, sort or list, a malformed
 * one and one beside an offset are 422 in the spec's shape.
 */

type Db = Harness['db'];
interface ListCase {
  path: string;
  items: string;
  scopes: string[];
  /** writes row `i` of the tenant at instant `at` (several rows share one instant: the id breaks ties) */
  insert(db: Db, tenantId: string, i: number, at: Date): Promise<void>;
  /** a filter some seeded rows match, and another the cursor was not made for */
  filter: string;
  otherFilter: string;
  /** the list takes `sort=updated_at` */
  sorts?: boolean;
}

const T0 = Date.parse('2026-11-01T00:00:00.000Z');
// eight rows per minute: four at the same instant (the id breaks the tie), four a few microseconds
// apart (what a JavaScript Date would lose, and a cursor must not)
const instant = (i: number) => new Date(T0 + Math.floor(i / 8) * 60_000);
const at = (when: Date, i: number) =>
  sql<Date>`${when.toISOString()}::timestamptz + ${i % 8 < 4 ? 0 : i % 8} * interval '1 microsecond'`;
const pad = (i: number) => String(i).padStart(4, '0');

const LISTS: ListCase[] = [
  {
    path: '/api/v1/tickets',
    items: 'tickets',
    scopes: ['tickets:read'],
    insert: async (db, tenantId, i, when) => {
      await db
        .insertInto('tickets')
        .values({
          id: `tkt_cur${pad(i)}`,
          tenant_id: tenantId,
          subject: `ticket ${i}`,
          status: i % 3 === 0 ? 'pending' : 'open',
          priority: i % 2 === 0 ? 'high' : 'low',
          tags: i % 5 === 0 ? ['vip'] : [],
          requester_id: `req_${i % 4}`,
          assignee_id: i % 3 === 0 ? null : `agent_${i % 2}`,
          created_by: 'test',
          created_at: at(when, i),
          updated_at: at(when, i),
        })
        .execute();
    },
    filter: 'status=open',
    otherFilter: 'status=pending',
  },
  {
    path: '/api/v1/calls',
    items: 'calls',
    scopes: ['calls:read'],
    insert: async (db, tenantId, i, when) => {
      await db
        .insertInto('calls')
        .values({
          id: `call_cur${pad(i)}`,
          tenant_id: tenantId,
          channel: i % 3 === 0 ? 'web' : 'phone',
          started_at: at(when, i),
          created_at: at(when, i),
          updated_at: at(when, i),
        })
        .execute();
    },
    filter: 'channel=phone',
    otherFilter: 'channel=web',
  },
  {
    path: '/api/v1/conversations',
    items: 'conversations',
    scopes: ['conversations:read'],
    insert: async (db, tenantId, i, when) => {
      await db
        .insertInto('conversations')
        .values({
          id: `conv_cur${pad(i)}`,
          tenant_id: tenantId,
          channel: i % 3 === 0 ? 'email' : 'widget',
          created_at: at(when, i),
          updated_at: at(when, i),
        })
        .execute();
    },
    filter: 'channel=widget',
    otherFilter: 'channel=email',
  },
  {
    path: '/api/v2/contacts',
    items: 'contacts',
    scopes: ['contacts:read'],
    insert: async (db, tenantId, i, when) => {
      await db
        .insertInto('contacts')
        .values({
          id: `ctc_cur${pad(i)}`,
          tenant_id: tenantId,
          email: `c${i}@example.com`,
          custom_attrs: '{}',
          tags: i % 3 === 0 ? ['cold'] : ['warm'],
          created_at: at(when, i),
          updated_at: at(when, i),
        })
        .execute();
    },
    filter: 'tag=warm',
    otherFilter: 'tag=cold',
  },
  {
    path: '/api/v2/companies',
    items: 'companies',
    scopes: ['contacts:read'],
    insert: async (db, tenantId, i, when) => {
      await db
        .insertInto('companies')
        .values({
          id: `cmp_cur${pad(i)}`,
          tenant_id: tenantId,
          name: `Company ${i}`,
          custom_attrs: '{}',
          tags: i % 3 === 0 ? ['cold'] : ['warm'],
          created_at: at(when, i),
          updated_at: at(when, i),
        })
        .execute();
    },
    sorts: false,
    filter: 'tag=warm',
    otherFilter: 'tag=cold',
  },
  {
    path: '/api/v2/audit-log',
    items: 'entries',
    scopes: [],
    insert: async (db, tenantId, i, when) => {
      await db
        .insertInto('audit_log')
        .values({
          id: `aud_cur${pad(i)}`,
          tenant_id: tenantId,
          actor: i % 3 === 0 ? 'user:one' : 'user:two',
          action: 'api_key.created',
          target_type: 'api_key',
          target_id: `key${i}`,
          metadata: '{}',
          created_at: at(when, i),
        })
        .execute();
    },
    sorts: false,
    filter: 'actor=user:two',
    otherFilter: 'actor=user:one',
  },
];

const SEEDED = 30;

/** `cursor` with its sort key replaced: its list, filters and id kept, so only the date is wrong. */
function withSortKey(cursor: string, key: string): string {
  const [v, list, filters, , id] = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  return Buffer.from(JSON.stringify([v, list, filters, key, id])).toString('base64url');
}

describe.skipIf(postgresUnavailable())('Cursor pages', () => {
  let h: Harness;
  let t: TestTenant;
  let key: string;
  let session: string;

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    key = await t.key([...new Set(LISTS.flatMap((l) => l.scopes))]);
    session = await t.token('tenant_admin');
    for (const list of LISTS) for (let i = 0; i < SEEDED; i++) await list.insert(h.db, t.id, i, instant(i));
  });
  afterAll(() => h?.close());

  const get = (path: string) =>
    h.request('GET', path, path.startsWith('/api/v2/') ? { bearer: session } : { apiKey: key });

  /** Every page of `query` by cursor (inserting a row newer and a row older than any seeded one between pages). */
  async function walk(list: ListCase, query: string, limit: number, insertBetween: boolean) {
    const seen: string[] = [];
    const first = await get(`${list.path}?${query}&limit=${limit}`);
    expect(first.status, first.text).toBe(200);
    let page = first.body;
    let extra = 10_000;
    for (let n = 0; n < 100; n++) {
      seen.push(...page[list.items].map((r: { id: string }) => r.id));
      if (page.next_cursor === null) return { seen, last: page };
      if (insertBetween) {
        await list.insert(h.db, t.id, extra++, new Date(T0 + 10 * 86_400_000)); // newer than all
        await list.insert(h.db, t.id, extra++, new Date(T0 - 86_400_000)); // older than all
      }
      const next = await get(`${list.path}?${query}&limit=${limit}&cursor=${page.next_cursor}`);
      expect(next.status, next.text).toBe(200);
      expect(next.body.total).toBeNull();
      page = next.body;
    }
    throw new Error('the walk did not end');
  }

  for (const list of LISTS) {
    describe(list.path, () => {
      it('walks every row once by cursor, rows inserted between pages in their place, and ends with next_cursor null', async () => {
        const before = (await get(`${list.path}?limit=100`)).body[list.items].map(
          (r: { id: string }) => r.id,
        );
        const { seen, last } = await walk(list, '', 7, true);
        expect(last.next_cursor).toBeNull();
        expect(new Set(seen).size).toBe(seen.length); // none twice
        // every row there at the start, in the order an offset read gave, none skipped
        expect(seen.filter((id) => before.includes(id))).toEqual(before);
      });

      it('a filtered walk returns what one offset page returns', async () => {
        const all = await get(`${list.path}?${list.filter}&limit=100`);
        expect(all.status, all.text).toBe(200);
        const { seen } = await walk(list, list.filter, 4, false);
        expect(seen).toEqual(all.body[list.items].map((r: { id: string }) => r.id));
      });

      it('a page that fills exactly `limit` at the end still says null', async () => {
        const all = await get(`${list.path}?${list.filter}&limit=100`);
        const n = all.body[list.items].length;
        const exact = await get(`${list.path}?${list.filter}&limit=${n}`);
        expect(exact.body.next_cursor).toBeNull();
        const short = await get(`${list.path}?${list.filter}&limit=${n - 1}`);
        expect(typeof short.body.next_cursor).toBe('string');
        const rest = await get(`${list.path}?${list.filter}&limit=${n - 1}&cursor=${short.body.next_cursor}`);
        expect(rest.body[list.items]).toHaveLength(1);
        expect(rest.body.next_cursor).toBeNull();
      });

      it('refuses a cursor of other filters, of another sort, beside an offset, or malformed (422 on cursor)', async () => {
        const first = await get(`${list.path}?${list.filter}&limit=2`);
        const cursor: string = first.body.next_cursor;
        expect(typeof cursor).toBe('string');
        const refused = [
          `${list.path}?${list.otherFilter}&limit=2&cursor=${cursor}`,
          `${list.path}?limit=2&cursor=${cursor}`,
          ...(list.sorts === false
            ? []
            : [`${list.path}?${list.filter}&sort=updated_at&limit=2&cursor=${cursor}`]),
          `${list.path}?${list.filter}&limit=2&cursor=not-a-cursor`,
          `${list.path}?${list.filter}&limit=2&cursor=${cursor.slice(0, -2)}`,
          `${list.path}?${list.filter}&limit=2&cursor=${Buffer.from('[1,"tickets","00000000","x","y"]').toString('base64url')}`,
          `${list.path}?${list.filter}&limit=2&cursor=${'A'.repeat(600)}`,
          // this very cursor with an impossible date in its position (a 31 February, an hour 24)
          `${list.path}?${list.filter}&limit=2&cursor=${withSortKey(cursor, '2026-02-31T10:00:00.000000Z')}`,
          `${list.path}?${list.filter}&limit=2&cursor=${withSortKey(cursor, '2026-01-01T24:00:00.000000Z')}`,
        ];
        for (const path of refused) {
          const res = await get(path);
          expect(res.status, path).toBe(422);
          expect(res.body.detail[0].loc, path).toEqual(['query', 'cursor']);
          expect(typeof res.body.detail[0].msg).toBe('string');
        }
        const withOffset = await get(`${list.path}?${list.filter}&limit=2&offset=4&cursor=${cursor}`);
        expect(withOffset.status).toBe(422);
        expect(withOffset.body.detail[0].loc).toEqual(['query', 'offset']);
        // the same cursor with its own query still works
        expect((await get(`${list.path}?${list.filter}&limit=2&cursor=${cursor}`)).status).toBe(200);
      });

      it("refuses another list's cursor", async () => {
        const other = LISTS.find((l) => l !== list) ?? { path: '/api/v1/calls', items: 'calls' };
        if (other.path === list.path) return;
        const first = await get(`${list.path}?limit=1`);
        const res = await get(`${other.path}?limit=1&cursor=${first.body.next_cursor}`);
        expect(res.status, res.text).toBe(422);
        expect(res.body.detail[0].loc).toEqual(['query', 'cursor']);
      });
    });
  }

  /** The first page's `total` of `path?q` and the number of rows a walk by cursor returns. */
  async function totalAndWalk(path: string, items: string, q: string) {
    const all = [];
    const first = await get(`${path}?${q}&limit=100`);
    expect(first.status, first.text).toBe(200);
    let page = first.body;
    const total = page.total;
    for (;;) {
      all.push(...page[items]);
      if (!page.next_cursor) break;
      page = (await get(`${path}?${q}&limit=100&cursor=${page.next_cursor}`)).body;
    }
    return { total, rows: all.length };
  }

  it('the filtered totals kept as rows change equal an exact count', async () => {
    const count = (q: string) => totalAndWalk('/api/v1/tickets', 'tickets', q);
    const sample = (await get('/api/v1/tickets?status=open&limit=3')).body.tickets;
    await h.db.updateTable('tickets').set({ status: 'closed' }).where('id', '=', sample[0].id).execute();
    await h.db
      .updateTable('tickets')
      .set({ priority: 'urgent', tags: ['vip', 'later'], requester_id: 'req_new', assignee_id: null })
      .where('id', '=', sample[1].id)
      .execute();
    await h.db.deleteFrom('tickets').where('id', '=', sample[2].id).execute();
    for (const q of [
      'status=open',
      'status=open,closed',
      'status=closed',
      'priority=urgent',
      'priority=high,low',
      'type=question',
      'tag=vip',
      'tag=later',
      'tag=none',
      'requester_id=req_1',
      'requester_id=req_new',
      'assignee_id=agent_0',
      'assignee_id=agent_1',
      // the pairs kept together (schema/0035_pair_counts.sql), and three filters, counted exactly
      'status=open&priority=urgent',
      'priority=urgent&status=open,closed',
      'status=open&type=question',
      'priority=high,low&type=question',
      'assignee_id=agent_0&status=open',
      'assignee_id=agent_1&priority=urgent',
      'requester_id=req_new&status=open',
      'status=open&tag=vip',
      'priority=urgent&tag=later',
      'status=open,closed&tag=vip',
      'status=open&priority=urgent&tag=vip',
    ]) {
      const { total, rows } = await count(q);
      expect(total, q).toBe(rows);
    }
  });

  it('the kept totals of calls, conversations, contacts and companies equal a walk after inserts, updates and deletes', async () => {
    const db = h.db;
    const ids = (prefix: string, from: number, to: number) =>
      Array.from({ length: to - from }, (_, k) => `${prefix}${pad(from + k)}`);
    // calls: an outcome and completion on some, a direction and channel moved, one deleted
    await db
      .updateTable('calls')
      .set({ outcome: 'escalated', completed_at: new Date(), caller_phone: '+15550001' })
      .where('id', 'in', ids('call_cur', 0, 6))
      .execute();
    await db
      .updateTable('calls')
      .set({ outcome: 'hung_up', direction: 'outbound', channel: 'sip' })
      .where('id', 'in', ids('call_cur', 4, 9))
      .execute();
    await db
      .deleteFrom('calls')
      .where('id', 'in', ids('call_cur', 8, 10))
      .execute();
    // conversations: statuses, assignees and a contact set and moved, one deleted
    await db
      .updateTable('conversations')
      .set({ status: 'waiting', assignee_user_id: 'usr_1', contact_id: 'ctc_cur0001' })
      .where('id', 'in', ids('conv_cur', 0, 7))
      .execute();
    await db
      .updateTable('conversations')
      .set({ status: 'closed', assignee_user_id: 'usr_2', assignee_team_id: 'team_1', contact_id: null })
      .where('id', 'in', ids('conv_cur', 5, 9))
      .execute();
    await db.deleteFrom('conversations').where('id', '=', 'conv_cur0003').execute();
    // contacts: a company, tags (one listed twice) changed, soft-deleted, one brought back, one removed
    await db
      .updateTable('contacts')
      .set({ company_id: 'cmp_cur0001', tags: ['warm', 'vip', 'vip'] })
      .where('id', 'in', ids('ctc_cur', 0, 8))
      .execute();
    const now = new Date();
    await db
      .updateTable('contacts')
      .set({ deleted_at: now })
      .where('id', 'in', ids('ctc_cur', 3, 10))
      .execute();
    await db.updateTable('contacts').set({ deleted_at: null }).where('id', '=', 'ctc_cur0004').execute();
    await db.deleteFrom('contacts').where('id', 'in', ['ctc_cur0005', 'ctc_cur0011']).execute();
    // companies: tags changed, soft-deleted, one removed
    await db
      .updateTable('companies')
      .set({ tags: ['vip', 'vip'] })
      .where('id', 'in', ids('cmp_cur', 0, 5))
      .execute();
    await db
      .updateTable('companies')
      .set({ deleted_at: now })
      .where('id', 'in', ids('cmp_cur', 2, 7))
      .execute();
    await db.deleteFrom('companies').where('id', '=', 'cmp_cur0012').execute();

    const cases: [string, string, string[]][] = [
      [
        '/api/v1/calls',
        'calls',
        [
          '',
          'outcome=escalated',
          'outcome=escalated,hung_up',
          'outcome=error',
          'direction=outbound',
          'direction=inbound',
          'channel=phone',
          'channel=sip',
          'status=completed',
          'status=in_progress',
          'caller_phone=%2B15550001',
          'sort=updated_at',
          'channel=phone&status=completed',
          'channel=sip&direction=outbound',
          'direction=outbound&status=completed',
          'channel=sip&outcome=hung_up,escalated',
          'channel=sip&status=completed&direction=outbound',
        ],
      ],
      [
        '/api/v1/conversations',
        'conversations',
        [
          '',
          'status=open',
          'status=waiting',
          'status=closed',
          'channel=widget',
          'contact_id=ctc_cur0001',
          'assignee_user_id=usr_1',
          'assignee_user_id=usr_2',
          'assignee_team_id=team_1',
          'status=waiting&channel=widget',
          'assignee_user_id=usr_2&status=closed',
          'assignee_team_id=team_1&status=closed',
          'contact_id=ctc_cur0001&status=waiting',
        ],
      ],
      [
        '/api/v2/contacts',
        'contacts',
        [
          '',
          'include_deleted=true',
          'tag=vip',
          'tag=vip&include_deleted=true',
          'tag=warm',
          'tag=cold&include_deleted=true',
          'company_id=cmp_cur0001',
          'company_id=cmp_cur0001&include_deleted=true',
          'company_id=cmp_cur0001&tag=vip',
          'tag=warm&company_id=cmp_cur0001&include_deleted=true',
          'sort=updated_at',
          'q=c10',
        ],
      ],
      [
        '/api/v2/companies',
        'companies',
        ['', 'include_deleted=true', 'tag=vip', 'tag=vip&include_deleted=true', 'tag=warm', 'q=company'],
      ],
    ];
    for (const [path, items, queries] of cases)
      for (const q of queries) {
        const { total, rows } = await totalAndWalk(path, items, q);
        expect(total, `${path}?${q}`).toBe(rows);
      }
  });
  it("a pair's total is the kept count's (a count moved by hand shows through), three filters count exactly", async () => {
    const total = async (path: string, q: string) => (await get(`${path}?${q}&limit=1`)).body.total as number;
    const cases = [
      {
        path: '/api/v1/tickets',
        q: 'status=open&priority=high',
        third: 'type=question',
        table: 'ticket_filter_counts',
        field: 'priority+status',
        value: 'high|open',
      },
      {
        path: '/api/v1/calls',
        q: 'channel=phone&status=in_progress',
        third: 'direction=outbound',
        table: 'list_filter_counts',
        field: 'channel+status',
        value: 'phone|in_progress',
      },
    ] as const;
    for (const c of cases) {
      const before = await total(c.path, c.q);
      const moved = await sql`UPDATE ${sql.table(c.table)} SET n = n + 1000
        WHERE field = ${c.field} AND value = ${c.value} RETURNING n`.execute(h.db);
      try {
        expect(moved.rows.length, `${c.field} ${c.value} is kept`).toBe(1);
        expect(await total(c.path, c.q), c.q).toBe(before + 1000);
        // a third filter is not a kept pair: counted over the rows, the moved count has no say
        expect(await total(c.path, `${c.q}&${c.third}`)).toBeLessThanOrEqual(before);
      } finally {
        await sql`UPDATE ${sql.table(c.table)} SET n = n - 1000 WHERE field = ${c.field} AND value = ${c.value}`.execute(
          h.db,
        );
      }
    }
  });
});
