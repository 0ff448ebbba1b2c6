import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeHelpdesk, type FakeUser, startFakeHelpdesk } from '../support/fake-helpdesk';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('contact sync from external helpdesks', () => {
  let h: Harness;
  let fake: FakeHelpdesk;
  beforeAll(async () => {
    fake = await startFakeHelpdesk();
    h = await startHarness({ SYNC_HTTP_ALLOW_HOSTS: '127.0.0.1' });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await fake?.close();
  }, 60_000);
  beforeEach(() => {
    fake.a = [];
    fake.b = [];
    fake.pageSize = 2;
    fake.failures.a.clear();
    fake.failures.b.clear();
    fake.requests.length = 0;
  });

  const users = (): FakeUser[] => [
    { id: 'u1', first_name: 'Ann', last_name: 'One', email: 'ann@a.example', phone: '+1 1', company: 'Acme' },
    { id: 'u2', first_name: 'Ben', last_name: 'Two', email: 'ben@a.example', mobile: '+1 2' },
    { id: 'u3', first_name: 'Cat', last_name: 'Three', email: 'cat@a.example' },
  ];

  async function connected(provider: 'helpdesk_a' | 'helpdesk_b' = 'helpdesk_a') {
    const t = await h.tenant();
    const res = await h.request('PUT', `/api/sync/contacts/connections/${provider}`, {
      bearer: t.adminToken,
      body: {
        base_url: `${fake.baseUrl}/${provider === 'helpdesk_a' ? 'a' : 'b'}`,
        api_token: provider === 'helpdesk_a' ? fake.tokens.a : fake.tokens.b,
      },
    });
    expect(res.status).toBe(200);
    return t;
  }
  const run = (t: TestTenant, provider: string, mode: string) =>
    h.request('POST', '/api/sync/contacts/runs', { bearer: t.adminToken, body: { provider, mode } });
  const events = async (t: TestTenant, type?: string) => {
    let q = h.db.selectFrom('events').select(['event_type', 'payload']).where('tenant_id', '=', t.id);
    if (type) q = q.where('event_type', '=', type);
    return q.execute();
  };
  const contacts = (t: TestTenant) =>
    h.db.selectFrom('contacts').selectAll().where('tenant_id', '=', t.id).orderBy('external_id').execute();

  describe('connections', () => {
    it('stores the token sealed and never returns it', async () => {
      const t = await h.tenant();
      const res = await h.request('PUT', '/api/sync/contacts/connections/helpdesk_a', {
        bearer: t.adminToken,
        body: { base_url: `${fake.baseUrl}/a`, api_token: 'super-secret-token' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        provider: 'helpdesk_a',
        base_url: `${fake.baseUrl}/a`,
        has_token: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(res.text).not.toContain('super-secret-token');
      const row = await h.db
        .selectFrom('contact_sync_connections')
        .selectAll()
        .where('tenant_id', '=', t.id)
        .executeTakeFirstOrThrow();
      expect(row.token_sealed).not.toContain('super-secret-token');
      const list = await h.request('GET', '/api/sync/contacts/connections', { bearer: t.adminToken });
      expect(list.body.connections).toHaveLength(1);
      expect(list.text).not.toContain('super-secret-token');
    });

    it.each([
      ['http://example.com/x', 'base_url must use https'],
      ['https://10.0.0.5/api', 'base_url must be a public host'],
      ['https://[::1]/api', 'base_url must be a public host'],
      ['https://localhost/api', 'base_url must be a public host'],
      ['https://user:pw@helpdesk.example', 'base_url must not contain credentials'],
    ])('refuses base_url %s with 422', async (base_url, msg) => {
      const t = await h.tenant();
      const res = await h.request('PUT', '/api/sync/contacts/connections/helpdesk_a', {
        bearer: t.adminToken,
        body: { base_url, api_token: 'x' },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'base_url'], msg });
      expect(
        await h.db.selectFrom('contact_sync_connections').selectAll().where('tenant_id', '=', t.id).execute(),
      ).toHaveLength(0);
    });

    it('unknown provider is 422 at path.provider; agents get 403; API keys 403', async () => {
      const t = await h.tenant();
      const bad = await h.request('PUT', '/api/sync/contacts/connections/zendesk', {
        bearer: t.adminToken,
        body: { base_url: 'https://x.example', api_token: 'x' },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['path', 'provider']);
      const agent = await h.request('GET', '/api/sync/contacts/runs', { bearer: await t.token('agent') });
      expect(agent.status).toBe(403);
      expect(agent.body).toEqual({ detail: 'This action requires the tenant_admin role' });
      const key = await h.request('GET', '/api/sync/contacts/runs', {
        apiKey: await t.key(['contacts:read']),
      });
      expect(key.status).toBe(403);
    });

    it('a host name is resolved: private or unresolvable is 422 at save, and a run re-checks it', async () => {
      const t = await h.tenant();
      const services = h.runtime.services;
      const real = services.webhooks;
      let answer: string[] = ['10.0.0.5'];
      services.webhooks = { ...real!, resolveHost: async () => answer };
      try {
        const put = (base_url: string) =>
          h.request('PUT', '/api/sync/contacts/connections/helpdesk_a', {
            bearer: t.adminToken,
            body: { base_url, api_token: 'x' },
          });
        const internal = await put('https://helpdesk.corp.example/api');
        expect(internal.status).toBe(422);
        expect(internal.body.detail[0]).toMatchObject({
          loc: ['body', 'base_url'],
          msg: 'base_url must be a public host',
        });
        answer = [];
        expect((await put('https://helpdesk.corp.example/api')).body.detail[0].msg).toBe(
          'base_url host does not resolve',
        );
        answer = ['93.184.216.34'];
        expect((await put('https://helpdesk.corp.example/api')).status).toBe(200);
        // the name now points inside: the run refuses before any request and records nothing
        answer = ['169.254.169.254'];
        const res = await run(t, 'helpdesk_a', 'full');
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ detail: 'base_url must be a public host' });
        expect((await h.request('GET', '/api/sync/contacts/runs', { bearer: t.adminToken })).body.total).toBe(
          0,
        );
      } finally {
        services.webhooks = real;
      }
    });

    it('a run without a connection is 400 and records nothing', async () => {
      const t = await h.tenant();
      const res = await run(t, 'helpdesk_b', 'full');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'No sync connection configured for helpdesk_b' });
      expect((await h.request('GET', '/api/sync/contacts/runs', { bearer: t.adminToken })).body.total).toBe(
        0,
      );
    });

    it('trigger body validation is 422', async () => {
      const t = await h.tenant();
      const res = await run(t, 'helpdesk_c', 'full');
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'provider']);
      const mode = await run(t, 'helpdesk_a', 'sometimes');
      expect(mode.body.detail[0].loc).toEqual(['body', 'mode']);
    });
  });

  describe('helpdesk_a', () => {
    it('first sync: one contact.created per new row, source helpdesk_a_sync, across pages', async () => {
      const t = await connected();
      fake.a = users();
      const res = await run(t, 'helpdesk_a', 'full');
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        provider: 'helpdesk_a',
        mode: 'full',
        status: 'succeeded',
        pages: 2,
        fetched: 3,
        created: 3,
        updated: 0,
        unchanged: 0,
        deactivated: 0,
        skipped: 0,
        error: null,
      });
      expect(fake.requests.map((r) => r.path)).toEqual([
        '/a/api/users?page=1&per_page=100',
        '/a/api/users?page=2&per_page=100',
      ]);
      const created = await events(t, 'contact.created');
      expect(created).toHaveLength(3);
      expect(await events(t)).toHaveLength(3);
      const ann = created.map((e) => (e.payload as any).contact).find((c) => c.external_id === 'u1');
      expect(ann).toEqual({
        id: expect.stringMatching(/^ctc_/),
        external_id: 'u1',
        provider_type: 'helpdesk_a',
        source: 'helpdesk_a_sync',
        first_name: 'Ann',
        last_name: 'One',
        name: 'Ann One',
        email: 'ann@a.example',
        phone: '+1 1',
        mobile: null,
        company_name: 'Acme',
        active: true,
      });
      const rec = await h.request('GET', `/api/v2/contacts/${ann.id}`, { bearer: t.adminToken });
      expect(rec.body).toMatchObject({
        source: 'helpdesk_a_sync',
        active: true,
        company_name: 'Acme',
        external_id: 'u1',
      });
      const got = await h.request('GET', `/api/sync/contacts/runs/${res.body.id}`, { bearer: t.adminToken });
      expect(got.body).toEqual(res.body);
    });

    it('an unchanged cycle emits nothing', async () => {
      const t = await connected();
      fake.a = users();
      await run(t, 'helpdesk_a', 'full');
      const before = await events(t);
      const res = await run(t, 'helpdesk_a', 'full');
      expect(res.body).toMatchObject({
        status: 'succeeded',
        created: 0,
        updated: 0,
        unchanged: 3,
        deactivated: 0,
      });
      expect(await events(t)).toHaveLength(before.length);
    });

    it('a changed row emits exactly one contact.updated however many fields changed', async () => {
      const t = await connected();
      fake.a = users();
      await run(t, 'helpdesk_a', 'full');
      fake.a[1] = {
        ...fake.a[1]!,
        first_name: 'Benjamin',
        last_name: 'Deux',
        email: 'BEN2@a.example',
        phone: '+33 1',
      };
      const res = await run(t, 'helpdesk_a', 'full');
      expect(res.body).toMatchObject({ updated: 1, unchanged: 2, created: 0 });
      const updated = await events(t, 'contact.updated');
      expect(updated).toHaveLength(1);
      expect((updated[0]!.payload as any).contact).toMatchObject({
        external_id: 'u2',
        first_name: 'Benjamin',
        name: 'Benjamin Deux',
        email: 'ben2@a.example',
        source: 'helpdesk_a_sync',
      });
    });

    it('full sync reconciliation deactivates a stale contact with one contact.updated, and only once', async () => {
      const t = await connected();
      fake.a = users();
      await run(t, 'helpdesk_a', 'full');
      fake.a = fake.a.filter((u) => u.id !== 'u3');
      const res = await run(t, 'helpdesk_a', 'full');
      expect(res.body).toMatchObject({ deactivated: 1, unchanged: 2, updated: 0 });
      const updated = await events(t, 'contact.updated');
      expect(updated).toHaveLength(1);
      expect((updated[0]!.payload as any).contact).toMatchObject({ external_id: 'u3', active: false });
      const again = await run(t, 'helpdesk_a', 'full');
      expect(again.body).toMatchObject({ deactivated: 0, unchanged: 2 });
      expect(await events(t, 'contact.updated')).toHaveLength(1);
      const cat = (await contacts(t)).find((c) => c.external_id === 'u3')!;
      expect(cat.sync_active).toBe(false);
      expect(cat.deleted_at).toBeNull();
    });

    it('a deactivated contact that reappears upstream is reactivated with one contact.updated', async () => {
      const t = await connected();
      fake.a = users();
      await run(t, 'helpdesk_a', 'full');
      fake.a = users().slice(0, 2);
      await run(t, 'helpdesk_a', 'full');
      fake.a = users();
      const res = await run(t, 'helpdesk_a', 'full');
      expect(res.body).toMatchObject({ updated: 1, unchanged: 2, created: 0 });
      const updated = await events(t, 'contact.updated');
      expect(updated).toHaveLength(2);
      const states = updated.map((e) => (e.payload as any).contact).map((c) => [c.external_id, c.active]);
      expect(states).toEqual(
        expect.arrayContaining([
          ['u3', false],
          ['u3', true],
        ]),
      );
    });

    it('an incremental sync sends updated_since and never deactivates', async () => {
      const t = await connected();
      fake.a = users().map((u) => ({ ...u, updated_at: '2020-01-01T00:00:00.000Z' }));
      const first = await run(t, 'helpdesk_a', 'incremental');
      expect(first.body).toMatchObject({ mode: 'incremental', created: 3 });
      expect(fake.requests[0]!.path).not.toContain('updated_since');
      fake.requests.length = 0;
      fake.a = [{ ...users()[0]!, first_name: 'Anna', updated_at: '2999-01-01T00:00:00.000Z' }];
      const second = await run(t, 'helpdesk_a', 'incremental');
      expect(second.body).toMatchObject({ fetched: 1, updated: 1, deactivated: 0 });
      expect(fake.requests[0]!.path).toContain(`updated_since=${encodeURIComponent(first.body.started_at)}`);
      expect(await events(t, 'contact.updated')).toHaveLength(1);
      expect((await contacts(t)).every((c) => c.sync_active)).toBe(true);
    });

    it('a failed page (500 on page 2) leaves no half-applied state and emits nothing', async () => {
      const t = await connected();
      fake.a = users();
      await run(t, 'helpdesk_a', 'full');
      const before = { contacts: await contacts(t), events: (await events(t)).length };
      fake.a = [
        { ...users()[0]!, first_name: 'Changed' },
        ...users().slice(1),
        { id: 'u4', email: 'new@a.example' },
      ];
      fake.failures.a.set(2, 500);
      const res = await run(t, 'helpdesk_a', 'full');
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        status: 'failed',
        error: 'helpdesk_a page 2: HTTP 500',
        pages: 1,
        created: 0,
        updated: 0,
      });
      expect(await contacts(t)).toEqual(before.contacts);
      expect(await events(t)).toHaveLength(before.events);
      const listed = await h.request('GET', '/api/sync/contacts/runs', { bearer: t.adminToken });
      expect(listed.body.runs[0]).toMatchObject({ id: res.body.id, status: 'failed' });
    });

    it('a malformed page fails the run the same way', async () => {
      const t = await connected();
      fake.a = users();
      fake.failures.a.set(1, 'garbage');
      const res = await run(t, 'helpdesk_a', 'full');
      expect(res.body).toMatchObject({ status: 'failed', error: 'helpdesk_a page 1: response is not JSON' });
      expect(await contacts(t)).toHaveLength(0);
      expect(await events(t)).toHaveLength(0);
    });

    it('a rejected token (401 upstream) fails the run and writes nothing', async () => {
      const t = await h.tenant();
      await h.request('PUT', '/api/sync/contacts/connections/helpdesk_a', {
        bearer: t.adminToken,
        body: { base_url: `${fake.baseUrl}/a`, api_token: 'wrong' },
      });
      fake.a = users();
      const res = await run(t, 'helpdesk_a', 'full');
      expect(res.body).toMatchObject({ status: 'failed', error: 'helpdesk_a page 1: HTTP 401' });
      expect(await events(t)).toHaveLength(0);
    });

    it('links a dashboard contact with the same email instead of duplicating it (one contact.updated)', async () => {
      const t = await connected();
      const made = await h.request('POST', '/api/v2/contacts', {
        bearer: t.adminToken,
        body: { first_name: 'Ann', last_name: 'One', email: 'ANN@a.example' },
      });
      fake.a = users().slice(0, 1);
      const res = await run(t, 'helpdesk_a', 'full');
      expect(res.body).toMatchObject({ created: 0, updated: 1 });
      const all = await contacts(t);
      expect(all).toHaveLength(1);
      expect(all[0]).toMatchObject({ id: made.body.id, sync_provider: 'helpdesk_a', external_id: 'u1' });
      expect(await events(t, 'contact.updated')).toHaveLength(1);
    });

    it('a contact deleted in the dashboard is not resurrected by the sync (skipped, no event)', async () => {
      const t = await connected();
      fake.a = users();
      await run(t, 'helpdesk_a', 'full');
      const u1 = (await contacts(t)).find((c) => c.external_id === 'u1')!;
      await h.request('DELETE', `/api/v2/contacts/${u1.id}`, { bearer: t.adminToken });
      const before = (await events(t)).length;
      const res = await run(t, 'helpdesk_a', 'full');
      expect(res.body).toMatchObject({ skipped: 1, created: 0, unchanged: 2, deactivated: 0 });
      expect(await events(t)).toHaveLength(before);
    });

    it('tenant isolation: runs and connections of tenant A are invisible to tenant B', async () => {
      const a = await connected();
      const b = await h.tenant();
      fake.a = users();
      const res = await run(a, 'helpdesk_a', 'full');
      const other = await h.request('GET', `/api/sync/contacts/runs/${res.body.id}`, {
        bearer: b.adminToken,
      });
      expect(other.status).toBe(404);
      expect(other.body).toEqual({ detail: 'Sync run not found' });
      expect((await h.request('GET', '/api/sync/contacts/runs', { bearer: b.adminToken })).body.total).toBe(
        0,
      );
      expect(
        (await h.request('GET', '/api/sync/contacts/connections', { bearer: b.adminToken })).body.connections,
      ).toEqual([]);
      expect(
        (await h.request('DELETE', '/api/sync/contacts/connections/helpdesk_a', { bearer: b.adminToken }))
          .status,
      ).toBe(404);
      expect(await contacts(b)).toHaveLength(0);
      expect(await events(b)).toHaveLength(0);
    });
  });

  describe('helpdesk_b', () => {
    it('creates contacts with source helpdesk_b_sync following cursors; archived upstream is inactive', async () => {
      const t = await connected('helpdesk_b');
      fake.b = [...users(), { id: 'u4', first_name: 'Dee', email: 'dee@b.example', active: false }];
      const res = await run(t, 'helpdesk_b', 'full');
      expect(res.body).toMatchObject({ status: 'succeeded', pages: 2, fetched: 4, created: 4 });
      expect(fake.requests[1]!.path).toMatch(/cursor=/);
      const created = (await events(t, 'contact.created')).map((e) => (e.payload as any).contact);
      expect(created).toHaveLength(4);
      expect(created.every((c) => c.source === 'helpdesk_b_sync' && c.provider_type === 'helpdesk_b')).toBe(
        true,
      );
      expect(created.find((c) => c.external_id === 'u4')).toMatchObject({ active: false });
      expect(created.find((c) => c.external_id === 'u1')).toMatchObject({
        company_name: 'Acme',
        name: 'Ann One',
      });
    });

    it('unchanged cycle emits nothing; one change emits one contact.updated; failed page 2 changes nothing', async () => {
      const t = await connected('helpdesk_b');
      fake.b = users();
      await run(t, 'helpdesk_b', 'full');
      const n = (await events(t)).length;
      expect((await run(t, 'helpdesk_b', 'full')).body.unchanged).toBe(3);
      expect(await events(t)).toHaveLength(n);
      fake.b[2] = { ...fake.b[2]!, company: 'NewCo', mobile: '+9' };
      expect((await run(t, 'helpdesk_b', 'full')).body.updated).toBe(1);
      expect(await events(t, 'contact.updated')).toHaveLength(1);
      fake.b[0] = { ...fake.b[0]!, first_name: 'Nope' };
      fake.failures.b.set(2, 503);
      const failed = await run(t, 'helpdesk_b', 'full');
      expect(failed.body).toMatchObject({ status: 'failed', error: 'helpdesk_b page 2: HTTP 503' });
      expect(await events(t, 'contact.updated')).toHaveLength(1);
      expect((await contacts(t)).find((c) => c.external_id === 'u1')!.first_name).toBe('Ann');
    });

    it('the same upstream id in A and B makes two separate contacts', async () => {
      const t = await connected('helpdesk_a');
      await h.request('PUT', '/api/sync/contacts/connections/helpdesk_b', {
        bearer: t.adminToken,
        body: { base_url: `${fake.baseUrl}/b`, api_token: fake.tokens.b },
      });
      fake.a = [{ id: '42', first_name: 'From A', email: 'a42@a.example' }];
      fake.b = [{ id: '42', first_name: 'From B', email: 'b42@b.example' }];
      await run(t, 'helpdesk_a', 'full');
      await run(t, 'helpdesk_b', 'full');
      const all = await contacts(t);
      expect(all.map((c) => [c.sync_provider, c.external_id, c.first_name])).toEqual(
        expect.arrayContaining([
          ['helpdesk_a', '42', 'From A'],
          ['helpdesk_b', '42', 'From B'],
        ]),
      );
      // a full sync of B does not deactivate A's contacts
      fake.b = [];
      const res = await run(t, 'helpdesk_b', 'full');
      expect(res.body.deactivated).toBe(1);
      expect((await contacts(t)).find((c) => c.sync_provider === 'helpdesk_a')!.sync_active).toBe(true);
    });
  });
});
