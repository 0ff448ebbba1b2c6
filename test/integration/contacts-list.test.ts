import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('contacts list: pagination, search, tags, updated_since, sort', () => {
  let h: Harness;
  let t: TestTenant;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    const people = [
      ['alice', { first_name: 'Alice', last_name: 'Liddell', email: 'alice@wonder.land', tags: ['vip'] }],
      ['bob', { first_name: 'Bob', last_name: 'Builder', email: 'bob@build.it', phone: '+1 555 0199' }],
      [
        'carol',
        { first_name: 'Carol', last_name: 'Danvers', email: 'carol@marvel.example', tags: ['vip', 'hero'] },
      ],
      ['dan', { first_name: 'Dan_50%', email: 'dan@odd.example' }],
      ['erin', { last_name: 'Alicea', email: 'erin@example.com' }],
    ] as const;
    for (const [key, body] of people) {
      const res = await h.request('POST', '/api/v2/contacts', { bearer: t.adminToken, body });
      if (res.status !== 201) throw new Error(res.text);
      ids[key] = res.body.id;
    }
    // fixed updated_at values for the boundary tests (bob and carol tie on purpose)
    const at: Record<string, string> = {
      alice: '2026-01-01T00:00:00.000Z',
      bob: '2026-01-01T00:00:00.001Z',
      carol: '2026-01-01T00:00:00.001Z',
      dan: '2026-01-01T00:00:01.000Z',
      erin: '2026-01-02T00:00:00.000Z',
    };
    for (const [key, value] of Object.entries(at))
      await h.db.updateTable('contacts').set({ updated_at: value }).where('id', '=', ids[key]!).execute();
  }, 60_000);
  afterAll(() => h?.close(), 60_000);

  const list = (qs: string) => h.request('GET', `/api/v2/contacts?${qs}`, { bearer: t.adminToken });
  const names = (body: any) => body.contacts.map((c: any) => Object.keys(ids).find((k) => ids[k] === c.id));

  it('envelope and default order (newest first), limit/offset', async () => {
    const res = await list('limit=2&offset=1');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect(names(res.body)).toEqual(['dan', 'carol']);
    const def = await list('');
    expect(def.body.limit).toBe(20);
  });

  it.each([
    'limit=0',
    'limit=101',
    'offset=-1',
    'limit=abc',
    'sort=name',
    'updated_since=yesterday',
    'include_deleted=maybe',
  ])('%s -> 422 in the spec shape', async (qs) => {
    const res = await list(qs);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: ['query', qs.split('=')[0]],
      msg: expect.any(String),
      type: expect.any(String),
    });
  });

  it('searches first name, last name, full name, email and phone (case-insensitive)', async () => {
    expect(names((await list('q=ALIC')).body).sort()).toEqual(['alice', 'erin']);
    expect(names((await list('q=carol%20danvers')).body)).toEqual(['carol']);
    expect(names((await list('q=build.it')).body)).toEqual(['bob']);
    expect(names((await list('q=555%200199')).body)).toEqual(['bob']);
    expect((await list('q=nobody')).body.total).toBe(0);
  });

  it('treats % and _ in q literally', async () => {
    expect(names((await list('q=Dan_50%25')).body)).toEqual(['dan']);
    // as wildcards, each would match Dan_50%
    expect((await list('q=Dan%25')).body.total).toBe(0);
    expect((await list('q=Dan__')).body.total).toBe(0);
  });

  it.each([
    ['/api/v2/contacts', 'li'],
    ['/api/v2/contacts', '%25%25'],
    ['/api/v2/contacts', '%2B1'],
    ['/api/v2/contacts', 'a-b-c'],
    ['/api/v2/contacts', '%20%2055%20'],
    ['/api/v2/companies', 'ab'],
    ['/api/v2/companies', 'a.b'],
  ])('%s?q=%s: fewer than 3 letters or digits in a row -> 422 (no index could serve it)', async (path, q) => {
    const res = await h.request('GET', `${path}?q=${q}`, { bearer: t.adminToken });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [
        {
          loc: ['query', 'q'],
          msg: 'Should hold at least 3 letters or digits in a row',
          type: 'value_error',
        },
      ],
    });
  });

  it('q with 3 letters or digits in a row anywhere is served (any script)', async () => {
    expect(names((await list('q=e%20Lid')).body)).toEqual(['alice']);
    expect(names((await list('q=%2B1%20555')).body)).toEqual(['bob']);
    const res = await h.request('POST', '/api/v2/contacts', {
      bearer: t.adminToken,
      body: { first_name: '王芳李', email: 'wang@example.cn' },
    });
    expect(res.status).toBe(201);
    try {
      expect((await list('q=%E7%8E%8B%E8%8A%B3%E6%9D%8E')).body.contacts.map((c: any) => c.id)).toEqual([
        res.body.id,
      ]);
    } finally {
      await h.db.deleteFrom('contacts').where('id', '=', res.body.id).execute();
    }
  });

  it('filters by tag', async () => {
    expect(names((await list('tag=vip')).body).sort()).toEqual(['alice', 'carol']);
    expect(names((await list('tag=hero')).body)).toEqual(['carol']);
    expect((await list('tag=none')).body.total).toBe(0);
  });

  it('sort=updated_at is ascending by updated_at, then id', async () => {
    const res = await list('sort=updated_at');
    const tie = [ids.bob!, ids.carol!].sort();
    expect(res.body.contacts.map((c: any) => c.id)).toEqual([ids.alice, ...tie, ids.dan, ids.erin]);
  });

  it('updated_since is inclusive at the exact millisecond', async () => {
    const res = await list(`sort=updated_at&updated_since=${encodeURIComponent('2026-01-01T00:00:00.001Z')}`);
    expect(res.body.total).toBe(4);
    expect(names(res.body)).not.toContain('alice');
    expect(res.body.contacts[0].updated_at).toBe('2026-01-01T00:00:00.001Z');
  });

  it('updated_since one microsecond later excludes the tie; the next millisecond too', async () => {
    expect(
      (await list(`updated_since=${encodeURIComponent('2026-01-01T00:00:00.001001Z')}`)).body.total,
    ).toBe(2);
    expect((await list(`updated_since=${encodeURIComponent('2026-01-01T00:00:00.002Z')}`)).body.total).toBe(
      2,
    );
    expect((await list(`updated_since=${encodeURIComponent('2026-01-02T00:00:00.000Z')}`)).body.total).toBe(
      1,
    );
    expect((await list(`updated_since=${encodeURIComponent('2026-01-02T00:00:00.001Z')}`)).body.total).toBe(
      0,
    );
  });

  it('updated_since honours UTC offsets', async () => {
    // 2026-01-01T01:00:01+01:00 == 2026-01-01T00:00:01Z (dan)
    const res = await list(
      `sort=updated_at&updated_since=${encodeURIComponent('2026-01-01T01:00:01+01:00')}`,
    );
    expect(names(res.body)).toEqual(['dan', 'erin']);
  });

  it('paging with sort=updated_at walks every contact exactly once', async () => {
    const seen: string[] = [];
    for (let offset = 0; ; offset += 2) {
      const res = await list(`sort=updated_at&limit=2&offset=${offset}`);
      seen.push(...res.body.contacts.map((c: any) => c.id));
      if (offset + 2 >= res.body.total) break;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
  });

  it('a write moves the contact to the end of sort=updated_at', async () => {
    const res = await h.request('PATCH', `/api/v2/contacts/${ids.alice}`, {
      bearer: t.adminToken,
      body: { locale: 'en-GB' },
    });
    expect(res.status).toBe(200);
    const after = await list('sort=updated_at');
    expect(after.body.contacts.at(-1).id).toBe(ids.alice);
  });
});
