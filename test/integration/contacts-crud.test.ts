import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('contacts and companies (v2, dashboard)', () => {
  let h: Harness;
  let t: TestTenant;
  let other: TestTenant;
  let agent: string;
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
    other = await h.tenant();
    agent = await t.token('agent');
  }, 60_000);
  afterAll(() => h?.close(), 60_000);

  const req = (method: string, path: string, body?: unknown, bearer = agent) =>
    h.request(method, path, { bearer, body });
  const events = async (tenantId: string, type?: string, contactId?: string) => {
    let q = h.db.selectFrom('events').select(['event_type', 'payload']).where('tenant_id', '=', tenantId);
    if (type) q = q.where('event_type', '=', type);
    const rows = await q.orderBy('created_at').execute();
    return contactId ? rows.filter((r) => (r.payload as any).contact?.id === contactId) : rows;
  };
  let seq = 0;
  const uniq = () => `${Date.now().toString(36)}${seq++}`;
  const newContact = async (extra: Record<string, unknown> = {}) => {
    const res = await req('POST', '/api/v2/contacts', {
      first_name: 'Ada',
      email: `ada${uniq()}@example.com`,
      ...extra,
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  const newCompany = async (extra: Record<string, unknown> = {}) => {
    const res = await req('POST', '/api/v2/companies', { name: `Acme ${uniq()}`, ...extra });
    expect(res.status).toBe(201);
    return res.body;
  };

  describe('contact record and events', () => {
    it('creates a contact with every field of the spec record and emits exactly one contact.created', async () => {
      const company = await newCompany({ name: 'Initech' });
      const res = await req('POST', '/api/v2/contacts', {
        external_id: 'crm-1',
        first_name: 'Grace',
        last_name: 'Hopper',
        email: 'Grace@Example.COM',
        phone: '+1 555 0100',
        role: 'user',
        locale: 'en-US',
        timezone: 'America/New_York',
        company_id: company.id,
        custom_attrs: { plan: 'gold', seats: 3 },
        tags: ['vip', 'beta', 'vip'],
        unsubscribed_from_emails: true,
        last_seen_at: '2026-11-01T10:00:00Z',
      });
      expect(res.status).toBe(201);
      const c = res.body;
      expect(Object.keys(c).sort()).toEqual(
        [
          'id',
          'external_id',
          'first_name',
          'last_name',
          'email',
          'phone',
          'role',
          'locale',
          'timezone',
          'company_id',
          'company_name',
          'conversation_count',
          'custom_attrs',
          'tags',
          'unsubscribed_from_emails',
          'created_at',
          'updated_at',
          'deleted_at',
          'last_seen_at',
          'source',
          'active',
        ].sort(),
      );
      expect(c).toMatchObject({
        external_id: 'crm-1',
        email: 'grace@example.com',
        company_id: company.id,
        company_name: 'Initech',
        conversation_count: 0,
        custom_attrs: { plan: 'gold', seats: 3 },
        tags: ['vip', 'beta'],
        unsubscribed_from_emails: true,
        deleted_at: null,
        last_seen_at: '2026-11-01T10:00:00.000Z',
        source: null,
        active: true,
      });
      expect(c.id).toMatch(/^ctc_/);
      const ev = await events(t.id, 'contact.created', c.id);
      expect(ev).toHaveLength(1);
      expect(ev[0]!.payload).toEqual({
        contact: {
          id: c.id,
          external_id: 'crm-1',
          first_name: 'Grace',
          last_name: 'Hopper',
          name: 'Grace Hopper',
          email: 'grace@example.com',
          phone: '+1 555 0100',
          company_id: company.id,
          company_name: 'Initech',
        },
      });
      expect((ev[0]!.payload as any).contact).not.toHaveProperty('source');
      const get = await req('GET', `/api/v2/contacts/${c.id}`);
      expect(get.status).toBe(200);
      expect(get.body).toEqual(c);
    });

    it('PATCH with changes emits exactly one contact.updated however many fields changed', async () => {
      const c = await newContact();
      const res = await req('PATCH', `/api/v2/contacts/${c.id}`, {
        first_name: 'Augusta',
        last_name: 'King',
        phone: '+44 20 0000',
        tags: ['a'],
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ first_name: 'Augusta', last_name: 'King', tags: ['a'] });
      expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.updated_at));
      const ev = await events(t.id, 'contact.updated', c.id);
      expect(ev).toHaveLength(1);
      expect((ev[0]!.payload as any).contact).toMatchObject({ id: c.id, name: 'Augusta King' });
    });

    it('PATCH that changes nothing is 200 with no event and updated_at unchanged', async () => {
      const c = await newContact({ tags: ['x'] });
      const res = await req('PATCH', `/api/v2/contacts/${c.id}`, {
        first_name: 'Ada',
        email: c.email,
        tags: ['x'],
      });
      expect(res.status).toBe(200);
      expect(res.body.updated_at).toBe(c.updated_at);
      expect(await events(t.id, 'contact.updated', c.id)).toHaveLength(0);
    });

    it('DELETE soft-deletes: 204, exactly one contact.deleted, hidden from get and list, email freed', async () => {
      const c = await newContact();
      const del = await req('DELETE', `/api/v2/contacts/${c.id}`);
      expect(del.status).toBe(204);
      expect(await events(t.id, 'contact.deleted', c.id)).toHaveLength(1);
      expect((await req('GET', `/api/v2/contacts/${c.id}`)).body).toEqual({ detail: 'Contact not found' });
      expect((await req('GET', `/api/v2/contacts/${c.id}`)).status).toBe(404);
      expect((await req('PATCH', `/api/v2/contacts/${c.id}`, { first_name: 'x' })).status).toBe(404);
      expect((await req('DELETE', `/api/v2/contacts/${c.id}`)).status).toBe(404);
      expect(await events(t.id, 'contact.deleted', c.id)).toHaveLength(1);
      const list = await req('GET', `/api/v2/contacts?q=${encodeURIComponent(c.email)}`);
      expect(list.body.total).toBe(0);
      const withDeleted = await req(
        'GET',
        `/api/v2/contacts?q=${encodeURIComponent(c.email)}&include_deleted=true`,
      );
      expect(withDeleted.body.contacts.map((x: any) => x.id)).toEqual([c.id]);
      expect(withDeleted.body.contacts[0].deleted_at).not.toBeNull();
      const again = await req('POST', '/api/v2/contacts', { email: c.email });
      expect(again.status).toBe(201);
    });

    it('restore un-deletes: 200 full record, exactly one contact.updated', async () => {
      const c = await newContact();
      await req('DELETE', `/api/v2/contacts/${c.id}`);
      const res = await req('POST', `/api/v2/contacts/${c.id}/restore`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: c.id, email: c.email, deleted_at: null });
      expect(Object.keys(res.body)).toContain('conversation_count');
      expect(await events(t.id, 'contact.updated', c.id)).toHaveLength(1);
      expect((await req('GET', `/api/v2/contacts/${c.id}`)).status).toBe(200);
    });

    it('restore of a contact that is not deleted is 200, unchanged, with no event', async () => {
      const c = await newContact();
      const res = await req('POST', `/api/v2/contacts/${c.id}/restore`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(c);
      expect(await events(t.id, 'contact.updated', c.id)).toHaveLength(0);
    });

    it('restore is 409 when the email now belongs to a live contact; nothing changes, no event', async () => {
      const c = await newContact();
      await req('DELETE', `/api/v2/contacts/${c.id}`);
      const taker = await req('POST', '/api/v2/contacts', { email: c.email });
      expect(taker.status).toBe(201);
      const res = await req('POST', `/api/v2/contacts/${c.id}/restore`);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ detail: 'Cannot restore: another contact now uses this email' });
      expect(await events(t.id, 'contact.updated', c.id)).toHaveLength(0);
      const row = await h.db
        .selectFrom('contacts')
        .select('deleted_at')
        .where('id', '=', c.id)
        .executeTakeFirstOrThrow();
      expect(row.deleted_at).not.toBeNull();
    });

    it('restore: unknown id 404, malformed id 422 at ["path","contact_id"]', async () => {
      const unknown = await req('POST', '/api/v2/contacts/ctc_doesnotexist/restore');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ detail: 'Contact not found' });
      const long = await req('POST', `/api/v2/contacts/${'x'.repeat(65)}/restore`);
      expect(long.status).toBe(422);
      expect(long.body.detail[0]).toMatchObject({ loc: ['path', 'contact_id'], type: 'string_too_long' });
      const bad = await req('POST', '/api/v2/contacts/bad%20id!/restore');
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0]).toMatchObject({
        loc: ['path', 'contact_id'],
        msg: expect.any(String),
        type: expect.any(String),
      });
    });
  });

  describe('validation and conflicts: 4xx, nothing written, no event', () => {
    it.each([
      [{ email: 'not-an-email' }, ['body', 'email']],
      [{ first_name: '' }, ['body', 'first_name']],
      [{ first_name: 'x'.repeat(256) }, ['body', 'first_name']],
      [{ email: 'a@b.co', timezone: 'Mars/Olympus' }, ['body', 'timezone']],
      [{ email: 'a@b.co', tags: 'vip' }, ['body', 'tags']],
      [{ email: 'a@b.co', tags: ['x'.repeat(51)] }, ['body', 'tags', 0]],
      [{ email: 'a@b.co', custom_attrs: [1] }, ['body', 'custom_attrs']],
      [{ email: 'a@b.co', unsubscribed_from_emails: 'yes' }, ['body', 'unsubscribed_from_emails']],
      [{ email: 'a@b.co', last_seen_at: 'yesterday' }, ['body', 'last_seen_at']],
      [{ email: 'a@b.co', nickname: 'x' }, ['body', 'nickname']],
      [{}, ['body']],
      [{ role: 'user' }, ['body']],
    ])('POST %j -> 422 at %j', async (body, loc) => {
      const before = await events(t.id, 'contact.created');
      const res = await req('POST', '/api/v2/contacts', body);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String) }),
        ]),
      );
      expect(await events(t.id, 'contact.created')).toHaveLength(before.length);
    });

    it('malformed JSON is 422 json_invalid', async () => {
      const res = await h.request('POST', '/api/v2/contacts', {
        bearer: agent,
        rawBody: '{"email":',
        headers: { 'Content-Type': 'application/json' },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    });

    it('duplicate live email (any case) is 409, no second contact, no event', async () => {
      const c = await newContact();
      const before = (await events(t.id, 'contact.created')).length;
      const res = await req('POST', '/api/v2/contacts', { email: c.email.toUpperCase() });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ detail: 'A contact with this email already exists' });
      expect(await events(t.id, 'contact.created')).toHaveLength(before);
    });

    it('PATCH to an email taken by another contact is 409 and changes nothing', async () => {
      const a = await newContact();
      const b = await newContact();
      const res = await req('PATCH', `/api/v2/contacts/${b.id}`, { email: a.email, first_name: 'Changed' });
      expect(res.status).toBe(409);
      const after = await req('GET', `/api/v2/contacts/${b.id}`);
      expect(after.body).toEqual(b);
      expect(await events(t.id, 'contact.updated', b.id)).toHaveLength(0);
    });

    it('company_id of another tenant or unknown is 422 at body.company_id', async () => {
      const foreign = await req('POST', '/api/v2/companies', { name: 'Foreign' }, other.adminToken);
      const res = await req('POST', '/api/v2/contacts', {
        email: `x${uniq()}@e.com`,
        company_id: foreign.body.id,
      });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'company_id'], msg: 'Company not found' });
    });

    it('PATCH body validation is 422 and writes nothing', async () => {
      const c = await newContact();
      const res = await req('PATCH', `/api/v2/contacts/${c.id}`, { first_name: 'Ok', email: 'nope' });
      expect(res.status).toBe(422);
      expect((await req('GET', `/api/v2/contacts/${c.id}`)).body.first_name).toBe('Ada');
    });
  });

  describe('tenant isolation', () => {
    it('a contact of tenant A is 404 for tenant B on every route, and absent from B list', async () => {
      const c = await newContact();
      const b = other.adminToken;
      for (const [m, p, body] of [
        ['GET', `/api/v2/contacts/${c.id}`, undefined],
        ['PATCH', `/api/v2/contacts/${c.id}`, { first_name: 'Evil' }],
        ['DELETE', `/api/v2/contacts/${c.id}`, undefined],
        ['POST', `/api/v2/contacts/${c.id}/restore`, undefined],
      ] as const) {
        const res = await req(m, p, body, b);
        expect(res.status, `${m} ${p}`).toBe(404);
        expect(res.body).toEqual({ detail: 'Contact not found' });
      }
      const list = await req('GET', '/api/v2/contacts?limit=100', undefined, b);
      expect(list.body.contacts.map((x: any) => x.id)).not.toContain(c.id);
      expect(await events(other.id)).toHaveLength(0);
      expect((await req('GET', `/api/v2/contacts/${c.id}`)).body.first_name).toBe('Ada');
    });

    it('a company of tenant A is 404 for tenant B', async () => {
      const co = await newCompany();
      for (const [m, p, body] of [
        ['GET', `/api/v2/companies/${co.id}`, undefined],
        ['PATCH', `/api/v2/companies/${co.id}`, { name: 'Evil' }],
        ['DELETE', `/api/v2/companies/${co.id}`, undefined],
        ['POST', `/api/v2/companies/${co.id}/restore`, undefined],
      ] as const) {
        const res = await req(m, p, body, other.adminToken);
        expect(res.status, `${m} ${p}`).toBe(404);
        expect(res.body).toEqual({ detail: 'Company not found' });
      }
    });

    it('API keys are refused (403) on contacts and companies', async () => {
      const key = await t.key(['contacts:read', 'contacts:write']);
      const res = await h.request('GET', '/api/v2/contacts', { apiKey: key });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'API keys are not permitted for this endpoint' });
    });
  });

  describe('companies', () => {
    it('creates a company with every field; monthly_spend is a JSON number', async () => {
      const res = await req('POST', '/api/v2/companies', {
        name: 'Globex',
        domain: 'Globex.example',
        industry: 'Energy',
        logo_url: 'https://globex.example/logo.png',
        notes: 'key account',
        plan: 'enterprise',
        size: '1000+',
        sla_tier: 'gold',
        website: 'https://globex.example',
        monthly_spend: 1234.5,
        custom_attrs: { region: 'emea' },
        tags: ['key'],
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(
        [
          'id',
          'name',
          'domain',
          'industry',
          'logo_url',
          'notes',
          'plan',
          'size',
          'sla_tier',
          'website',
          'contact_count',
          'conversation_count',
          'monthly_spend',
          'custom_attrs',
          'tags',
          'created_at',
          'updated_at',
          'deleted_at',
        ].sort(),
      );
      expect(res.body).toMatchObject({
        domain: 'globex.example',
        monthly_spend: 1234.5,
        contact_count: 0,
        conversation_count: 0,
      });
      expect(res.text).toContain('"monthly_spend":1234.5');
    });

    it.each([
      [{}, ['body', 'name']],
      [{ name: 'x', monthly_spend: -1 }, ['body', 'monthly_spend']],
      [{ name: 'x', monthly_spend: '12' }, ['body', 'monthly_spend']],
      [{ name: 'x', website: 'javascript:alert(1)' }, ['body', 'website']],
      [{ name: 'x', domain: 'not a domain' }, ['body', 'domain']],
      [{ name: 'x', extra: 1 }, ['body', 'extra']],
    ])('POST company %j -> 422 at %j', async (body, loc) => {
      const res = await req('POST', '/api/v2/companies', body);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
    });

    it('contact_count stays true across create, company change, delete and restore', async () => {
      const a = await newCompany();
      const b = await newCompany();
      const count = async (id: string) => (await req('GET', `/api/v2/companies/${id}`)).body.contact_count;
      const c1 = await newContact({ company_id: a.id });
      const c2 = await newContact({ company_id: a.id });
      expect(await count(a.id)).toBe(2);
      await req('PATCH', `/api/v2/contacts/${c2.id}`, { company_id: b.id });
      expect([await count(a.id), await count(b.id)]).toEqual([1, 1]);
      await req('PATCH', `/api/v2/contacts/${c2.id}`, { company_id: null });
      expect(await count(b.id)).toBe(0);
      await req('DELETE', `/api/v2/contacts/${c1.id}`);
      expect(await count(a.id)).toBe(0);
      await req('POST', `/api/v2/contacts/${c1.id}/restore`);
      expect(await count(a.id)).toBe(1);
    });

    it('soft delete and restore of a company: 204, 404 after, restore 200 with the record; not deleted = no-op 200', async () => {
      const co = await newCompany({ monthly_spend: 10 });
      expect((await req('DELETE', `/api/v2/companies/${co.id}`)).status).toBe(204);
      expect((await req('GET', `/api/v2/companies/${co.id}`)).status).toBe(404);
      expect((await req('DELETE', `/api/v2/companies/${co.id}`)).status).toBe(404);
      const restored = await req('POST', `/api/v2/companies/${co.id}/restore`);
      expect(restored.status).toBe(200);
      expect(restored.body).toMatchObject({ id: co.id, deleted_at: null, monthly_spend: 10 });
      const again = await req('POST', `/api/v2/companies/${co.id}/restore`);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(restored.body);
      expect((await req('POST', '/api/v2/companies/cmp_nope/restore')).status).toBe(404);
      const bad = await req('POST', `/api/v2/companies/${'y'.repeat(100)}/restore`);
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['path', 'company_id']);
    });

    it('lists companies with search, tag and pagination', async () => {
      const tag = `t${uniq()}`;
      await newCompany({ name: `Zeta ${tag}`, tags: [tag] });
      await newCompany({ name: `Eta ${tag}`, tags: [tag], domain: `${tag}.example` });
      const res = await req('GET', `/api/v2/companies?tag=${tag}&limit=1`);
      expect(res.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
      expect(res.body.companies).toHaveLength(1);
      const q = await req('GET', `/api/v2/companies?q=${tag}.exam`);
      expect(q.body.total).toBe(1);
      expect((await req('GET', '/api/v2/companies?limit=0')).status).toBe(422);
    });

    it('PATCH company that changes nothing keeps updated_at; changing name shows on its contacts', async () => {
      const co = await newCompany({ name: 'Old Name' });
      const c = await newContact({ company_id: co.id });
      const same = await req('PATCH', `/api/v2/companies/${co.id}`, { name: 'Old Name' });
      expect(same.status).toBe(200);
      expect(same.body.updated_at).toBe(co.updated_at);
      const renamed = await req('PATCH', `/api/v2/companies/${co.id}`, {
        name: 'New Name',
        monthly_spend: 99.99,
      });
      expect(renamed.body).toMatchObject({ name: 'New Name', monthly_spend: 99.99 });
      expect((await req('GET', `/api/v2/contacts/${c.id}`)).body.company_name).toBe('New Name');
    });
  });
});
