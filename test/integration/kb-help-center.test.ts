import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('help center: public reads', () => {
  let h: Harness;
  let t: TestTenant;
  let other: TestTenant;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    other = await h.tenant();
    const make = async (key: string, body: Record<string, unknown>, tenant = t) => {
      const res = await h.request('POST', '/api/kb/create-v2', {
        bearer: tenant.adminToken,
        body: { destinations: ['native'], ...body },
      });
      if (res.status !== 201) throw new Error(res.text);
      ids[key] = res.body.id;
    };
    await make('vpn', {
      title: 'Connect to the VPN',
      body: 'Install the client, then sign in.',
      category: 'Network',
    });
    await make('wifi', {
      title: 'Office Wi-Fi',
      body: 'Use the guest network for visitors. VPN not needed.',
      category: 'Network',
    });
    await make('printer', {
      title: 'Add a printer',
      body: 'Open settings, choose printers.',
      category: 'Hardware',
    });
    await make('draft', { title: 'Draft VPN notes', body: 'secret', status: 'draft' });
    await make('archived', { title: 'Old VPN guide', body: 'obsolete' });
    await h.request('PATCH', `/api/v2/kb/articles/${ids.archived}`, {
      bearer: t.adminToken,
      body: { status: 'archived' },
    });
    await make('foreign', { title: 'Other tenant VPN', body: 'not yours' }, other);
  }, 60_000);
  afterAll(() => h?.close(), 60_000);

  const hc = (path: string) => h.request('GET', `/api/v1/help-center/${t.id}${path}`);
  const keys = (body: any) =>
    body.articles.map((a: any) => Object.keys(ids).find((k) => ids[k] === a.id)).sort();

  it('lists published native articles only, without any credential', async () => {
    const res = await hc('/articles');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, limit: 20, offset: 0 });
    expect(keys(res.body)).toEqual(['printer', 'vpn', 'wifi']);
    expect(Object.keys(res.body.articles[0]).sort()).toEqual(
      ['body', 'category', 'id', 'language', 'tags', 'title', 'updated_at', 'url'].sort(),
    );
    expect(res.body.articles.every((a: any) => a.url === null)).toBe(true);
  });

  it('searches title and body words (all words must match, case-insensitive)', async () => {
    expect(keys((await hc('/articles?q=vpn')).body)).toEqual(['vpn', 'wifi']);
    expect(keys((await hc('/articles?q=VPN%20client')).body)).toEqual(['vpn']);
    expect(keys((await hc('/articles?q=settings')).body)).toEqual(['printer']);
    expect((await hc('/articles?q=secret')).body.total).toBe(0);
    expect((await hc('/articles?q=obsolete')).body.total).toBe(0);
    expect((await hc('/articles?q=%25')).body.total).toBe(0);
  });

  it('filters by category and pages', async () => {
    expect(keys((await hc('/articles?category=Network')).body)).toEqual(['vpn', 'wifi']);
    const page = await hc('/articles?limit=2&offset=2');
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 2 });
    expect(page.body.articles).toHaveLength(1);
  });

  it.each(['limit=0', 'limit=101', 'offset=-1'])('%s -> 422', async (qs) => {
    const res = await hc(`/articles?${qs}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc[0]).toBe('query');
  });

  it('gets one published article', async () => {
    const res = await hc(`/articles/${ids.vpn}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: ids.vpn,
      title: 'Connect to the VPN',
      url: null,
      category: 'Network',
    });
  });

  it.each(['draft', 'archived', 'foreign'])('a %s article is 404', async (key) => {
    const res = await hc(`/articles/${ids[key]}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Article not found' });
  });

  it('the other tenant lists only its own articles; unknown tenant 404; malformed ids 422', async () => {
    const res = await h.request('GET', `/api/v1/help-center/${other.id}/articles`);
    expect(res.body.articles.map((a: any) => a.id)).toEqual([ids.foreign]);
    const none = await h.request('GET', '/api/v1/help-center/ten_nobody/articles');
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ detail: 'Help center not found' });
    const bad = await h.request('GET', `/api/v1/help-center/${t.id}/articles/${'a'.repeat(65)}`);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'article_id']);
  });

  it('an edit of a published article shows in the help center', async () => {
    await h.request('PATCH', `/api/v2/kb/articles/${ids.printer}`, {
      bearer: t.adminToken,
      body: { title: 'Add a network printer' },
    });
    expect((await hc(`/articles/${ids.printer}`)).body.title).toBe('Add a network printer');
  });
});
