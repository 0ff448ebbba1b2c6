import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeItsm, startFakeItsm } from '../support/fake-itsm';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('knowledge base: create-v2, PATCH, events', () => {
  let h: Harness;
  let itsm: FakeItsm;
  let t: TestTenant;
  let other: TestTenant;
  beforeAll(async () => {
    itsm = await startFakeItsm();
    h = await startHarness({ ITSM_KB_URL: itsm.baseUrl, ITSM_KB_TOKEN: 'itsm-token' });
    t = await h.tenant();
    other = await h.tenant();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await itsm?.close();
  }, 60_000);
  beforeEach(() => {
    itsm.failWith = null;
    itsm.received.length = 0;
  });

  const create = (body: unknown, tenant = t) =>
    h.request('POST', '/api/kb/create-v2', { bearer: tenant.adminToken, body });
  const patch = (id: string, body: unknown, tenant = t) =>
    h.request('PATCH', `/api/v2/kb/articles/${id}`, { bearer: tenant.adminToken, body });
  const events = async (type: string, articleId: string, tenant = t) =>
    (
      await h.db
        .selectFrom('events')
        .select(['event_type', 'payload'])
        .where('tenant_id', '=', tenant.id)
        .where('event_type', '=', type)
        .orderBy('created_at')
        .execute()
    )
      .map((e) => (e.payload as any).article)
      .filter((a) => a.id === articleId);
  const allKbEvents = async (tenant = t) =>
    h.db
      .selectFrom('events')
      .select('event_type')
      .where('tenant_id', '=', tenant.id)
      .where('event_type', 'like', 'kb.%')
      .execute();
  const article = (extra: Record<string, unknown> = {}) => ({
    title: 'Reset your password',
    body: 'Open settings and choose reset.',
    tags: ['account'],
    category: 'Accounts',
    language: 'en',
    destinations: ['native'],
    ...extra,
  });

  describe('kb.article.published', () => {
    it('native: one event, provider_id native, url null, article payload per spec', async () => {
      const res = await create(article());
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        status: 'published',
        provider_id: 'native',
        url: null,
        destinations: ['native'],
        publications: [{ provider_id: 'native', status: 'published', url: null, error: null }],
      });
      const ev = await events('kb.article.published', res.body.id);
      expect(ev).toHaveLength(1);
      expect(ev[0]).toEqual({
        id: res.body.id,
        title: 'Reset your password',
        status: 'published',
        url: null,
        provider_id: 'native',
        tags: ['account'],
        category: 'Accounts',
        language: 'en',
        updated_at: expect.stringMatching(/Z$/),
      });
      expect(itsm.received).toHaveLength(0);
    });

    it('itsm: one event with the upstream url, provider_id itsm', async () => {
      const res = await create(article({ destinations: ['itsm'] }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        status: 'published',
        provider_id: 'itsm',
        url: expect.stringMatching(/^https:\/\/itsm\.example\/kb\//),
      });
      expect(itsm.received).toHaveLength(1);
      expect(itsm.received[0]).toMatchObject({
        auth: 'Bearer itsm-token',
        body: { source_id: res.body.id, title: 'Reset your password' },
      });
      const ev = await events('kb.article.published', res.body.id);
      expect(ev).toHaveLength(1);
      expect(ev[0]).toMatchObject({ provider_id: 'itsm', url: res.body.url, status: 'published' });
    });

    it('native + itsm: exactly two events, one per successful destination', async () => {
      const res = await create(article({ destinations: ['itsm', 'native', 'itsm'] }));
      expect(res.status).toBe(201);
      expect(res.body.destinations).toEqual(['native', 'itsm']);
      expect(res.body.publications.map((p: any) => [p.provider_id, p.status])).toEqual([
        ['native', 'published'],
        ['itsm', 'published'],
      ]);
      const ev = await events('kb.article.published', res.body.id);
      expect(ev.map((a) => a.provider_id).sort()).toEqual(['itsm', 'native']);
      expect(ev.find((a) => a.provider_id === 'native').url).toBeNull();
      expect(ev.find((a) => a.provider_id === 'itsm').url).toMatch(/^https:\/\/itsm\.example/);
      expect(await events('kb.article.updated', res.body.id)).toHaveLength(0);
    });

    it('a failed destination emits nothing and is reported; the other destination still emits one', async () => {
      itsm.failWith = 500;
      const res = await create(article({ destinations: ['native', 'itsm'] }));
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('published');
      expect(res.body.publications).toEqual([
        { provider_id: 'native', status: 'published', url: null, error: null },
        { provider_id: 'itsm', status: 'failed', url: null, error: 'itsm responded HTTP 500' },
      ]);
      const ev = await events('kb.article.published', res.body.id);
      expect(ev.map((a) => a.provider_id)).toEqual(['native']);
    });

    it('itsm only and itsm fails: no event at all, article stays a draft, not in the help center', async () => {
      itsm.failWith = 503;
      const res = await create(article({ destinations: ['itsm'] }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        status: 'draft',
        publications: [{ provider_id: 'itsm', status: 'failed' }],
      });
      expect(await events('kb.article.published', res.body.id)).toHaveLength(0);
      const hc = await h.request('GET', `/api/v1/help-center/${t.id}/articles/${res.body.id}`);
      expect(hc.status).toBe(404);
    });

    it('a draft (intermediate stage) emits nothing and publishes nowhere', async () => {
      const res = await create(article({ destinations: ['native', 'itsm'], status: 'draft' }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'draft', publications: [], published_at: null });
      expect(await events('kb.article.published', res.body.id)).toHaveLength(0);
      expect(itsm.received).toHaveLength(0);
    });
  });

  describe('kb.article.updated', () => {
    it('PATCH on a published help-center article emits exactly one kb.article.updated', async () => {
      const a = (await create(article())).body;
      const res = await patch(a.id, {
        title: 'Reset your password (2026)',
        tags: ['account', 'security'],
        body: 'New text',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        title: 'Reset your password (2026)',
        tags: ['account', 'security'],
        status: 'published',
      });
      const ev = await events('kb.article.updated', a.id);
      expect(ev).toHaveLength(1);
      expect(ev[0]).toMatchObject({
        title: 'Reset your password (2026)',
        provider_id: 'native',
        url: null,
        status: 'published',
      });
      expect(await events('kb.article.published', a.id)).toHaveLength(1);
    });

    it('PATCH that changes nothing: 200, no event, updated_at unchanged', async () => {
      const a = (await create(article())).body;
      const res = await patch(a.id, { title: a.title, tags: a.tags, status: 'published' });
      expect(res.status).toBe(200);
      expect(res.body.updated_at).toBe(a.updated_at);
      expect(await events('kb.article.updated', a.id)).toHaveLength(0);
    });

    it('PATCH on a draft emits nothing', async () => {
      const a = (await create(article({ status: 'draft' }))).body;
      const res = await patch(a.id, { title: 'Still a draft' });
      expect(res.status).toBe(200);
      expect(await events('kb.article.updated', a.id)).toHaveLength(0);
      expect(await events('kb.article.published', a.id)).toHaveLength(0);
    });

    it('PATCH on an itsm-only article emits no kb.article.updated (not a help-center article)', async () => {
      const a = (await create(article({ destinations: ['itsm'] }))).body;
      const res = await patch(a.id, { title: 'Changed' });
      expect(res.status).toBe(200);
      expect(await events('kb.article.updated', a.id)).toHaveLength(0);
    });

    it('publishing a draft by PATCH emits one kb.article.published per destination and no updated', async () => {
      const a = (await create(article({ status: 'draft', destinations: ['native', 'itsm'] }))).body;
      const res = await patch(a.id, { status: 'published' });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('published');
      expect((await events('kb.article.published', a.id)).map((x) => x.provider_id).sort()).toEqual([
        'itsm',
        'native',
      ]);
      expect(await events('kb.article.updated', a.id)).toHaveLength(0);
    });

    it('archiving a published article emits one kb.article.updated with status archived and hides it', async () => {
      const a = (await create(article())).body;
      const res = await patch(a.id, { status: 'archived' });
      expect(res.body.status).toBe('archived');
      const ev = await events('kb.article.updated', a.id);
      expect(ev).toHaveLength(1);
      expect(ev[0].status).toBe('archived');
      expect((await h.request('GET', `/api/v1/help-center/${t.id}/articles/${a.id}`)).status).toBe(404);
    });
  });

  describe('bad input and isolation', () => {
    it.each([
      [{ title: 'x', destinations: [] }, ['body', 'destinations']],
      [{ title: 'x' }, ['body', 'destinations']],
      [{ title: 'x', destinations: ['zendesk'] }, ['body', 'destinations', 0]],
      [{ title: '', destinations: ['native'] }, ['body', 'title']],
      [{ title: 'x'.repeat(256), destinations: ['native'] }, ['body', 'title']],
      [{ title: 'x', destinations: ['native'], status: 'archived' }, ['body', 'status']],
      [{ title: 'x', destinations: ['native'], language: 'english!' }, ['body', 'language']],
      [{ title: 'x', destinations: ['native'], tags: 'a' }, ['body', 'tags']],
      [{ title: 'x', destinations: ['native'], url: 'https://x' }, ['body', 'url']],
    ])('create-v2 %j -> 422 at %j, nothing written', async (body, loc) => {
      const before = await h.db
        .selectFrom('kb_articles')
        .select('id')
        .where('tenant_id', '=', t.id)
        .execute();
      const res = await create(body);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String) }),
        ]),
      );
      expect(
        await h.db.selectFrom('kb_articles').select('id').where('tenant_id', '=', t.id).execute(),
      ).toHaveLength(before.length);
    });

    it('PATCH validation: 422 for bad fields and malformed ids; 404 for unknown ids', async () => {
      const a = (await create(article())).body;
      const bad = await patch(a.id, { status: 'gone' });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'status']);
      const long = await patch('z'.repeat(65), { title: 'x' });
      expect(long.status).toBe(422);
      expect(long.body.detail[0].loc).toEqual(['path', 'article_id']);
      const unknown = await patch('art_unknown', { title: 'x' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ detail: 'Article not found' });
    });

    it('an article of tenant A is 404 for tenant B (get, patch) and B gets no event', async () => {
      const a = (await create(article())).body;
      const get = await h.request('GET', `/api/v2/kb/articles/${a.id}`, { bearer: other.adminToken });
      expect(get.status).toBe(404);
      const res = await patch(a.id, { title: 'Hijacked' }, other);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Article not found' });
      expect(await allKbEvents(other)).toHaveLength(0);
      expect(
        (await h.request('GET', `/api/v2/kb/articles/${a.id}`, { bearer: t.adminToken })).body.title,
      ).toBe(a.title);
      const list = await h.request('GET', '/api/v2/kb/articles?limit=100', { bearer: other.adminToken });
      expect(list.body.articles.map((x: any) => x.id)).not.toContain(a.id);
    });

    it('API keys are refused on /api/kb and /api/v2/kb', async () => {
      const key = await t.key(['kb:read', 'kb:write']);
      expect((await h.request('POST', '/api/kb/create-v2', { apiKey: key, body: article() })).status).toBe(
        403,
      );
      expect((await h.request('GET', '/api/v2/kb/articles', { apiKey: key })).status).toBe(403);
    });

    it('dashboard list and get', async () => {
      const a = (await create(article({ title: 'Unique listing title zq' }))).body;
      const list = await h.request('GET', '/api/v2/kb/articles?q=listing%20title%20zq', {
        bearer: t.adminToken,
      });
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ total: 1, limit: 20, offset: 0 });
      expect(list.body.articles[0]).toEqual(
        (await h.request('GET', `/api/v2/kb/articles/${a.id}`, { bearer: t.adminToken })).body,
      );
      expect(
        (await h.request('GET', '/api/v2/kb/articles?status=nope', { bearer: t.adminToken })).status,
      ).toBe(422);
    });
  });
});

describe.skipIf(postgresUnavailable())('knowledge base without ITSM_KB_URL', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  }, 60_000);
  afterAll(() => h?.close(), 60_000);

  it('an itsm destination is 400 and writes nothing', async () => {
    const t = await h.tenant();
    const res = await h.request('POST', '/api/kb/create-v2', {
      bearer: t.adminToken,
      body: { title: 'x', destinations: ['native', 'itsm'] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Destination itsm is not configured' });
    expect(
      await h.db.selectFrom('kb_articles').selectAll().where('tenant_id', '=', t.id).execute(),
    ).toHaveLength(0);
    expect(await h.db.selectFrom('events').selectAll().where('tenant_id', '=', t.id).execute()).toHaveLength(
      0,
    );
  });
});
