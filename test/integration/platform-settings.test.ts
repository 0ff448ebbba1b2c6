import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

describe.skipIf(postgresUnavailable())('config, billing, directory and exports', () => {
  let h: Harness;
  let t: TestTenant;
  let key: string;
  const events = async (tenantId: string, type = 'config.updated') =>
    (
      await h.db
        .selectFrom('events')
        .select(['payload'])
        .where('tenant_id', '=', tenantId)
        .where('event_type', '=', type)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((e) => e.payload as any);

  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant({ plan: 'pro' });
    key = await t.key([
      'config:read',
      'config:write',
      'billing:read',
      'billing:write',
      'users:read',
      'users:write',
      'roles:write',
      'exports:read',
      'exports:write',
    ]);
  }, 120_000);
  afterAll(() => h?.close());

  describe('config', () => {
    it('GET returns defaults; PATCH emits one config.updated with exactly what changed; a no-op emits nothing', async () => {
      const before = await h.request('GET', '/api/v1/config/general', { apiKey: key });
      expect(before.status).toBe(200);
      expect(before.body).toMatchObject({
        section: 'general',
        settings: { timezone: 'UTC', locale: 'en' },
        updated_at: null,
      });

      const patched = await h.request('PATCH', '/api/v1/config/general', {
        apiKey: key,
        body: { timezone: 'Europe/Berlin', locale: 'en', support_email: 'help@acme.test' },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.changes).toEqual({
        timezone: { from: 'UTC', to: 'Europe/Berlin' },
        support_email: { from: null, to: 'help@acme.test' },
      });
      expect(patched.body.settings.timezone).toBe('Europe/Berlin');
      let evs = await events(t.id);
      expect(evs).toEqual([{ config: { section: 'general', changes: patched.body.changes } }]);

      const again = await h.request('PATCH', '/api/v1/config/general', {
        apiKey: key,
        body: { timezone: 'Europe/Berlin' },
      });
      expect(again.status).toBe(200);
      expect(again.body.changes).toEqual({});
      evs = await events(t.id);
      expect(evs).toHaveLength(1);

      // the alias prefix reads the same store; null resets a field
      const alias = await h.request('GET', '/api/v1/configuration/general', { apiKey: key });
      expect(alias.body.settings.timezone).toBe('Europe/Berlin');
      const reset = await h.request('PATCH', '/api/v1/configuration/general', {
        apiKey: key,
        body: { timezone: null },
      });
      expect(reset.body.changes).toEqual({ timezone: { from: 'Europe/Berlin', to: 'UTC' } });
      expect(await events(t.id)).toHaveLength(2);
    });

    it('PUT replaces a section: fields not given return to their defaults', async () => {
      await h.request('PUT', '/api/v1/config/branding', {
        apiKey: key,
        body: { primary_color: '#112233', help_center_title: 'Help' },
      });
      const res = await h.request('PUT', '/api/v1/config/branding', {
        apiKey: key,
        body: { primary_color: '#112233' },
      });
      expect(res.body.changes).toEqual({ help_center_title: { from: 'Help', to: null } });
    });

    it('validates input: unknown fields and bad values are 422', async () => {
      const unknown = await h.request('PATCH', '/api/v1/config/general', {
        apiKey: key,
        body: { colour: 'red' },
      });
      expect(unknown.status).toBe(422);
      expect(unknown.body.detail[0]).toMatchObject({ loc: ['body', 'colour'], type: 'extra_forbidden' });
      const bad = await h.request('PATCH', '/api/v1/config/branding', {
        apiKey: key,
        body: { primary_color: 'blue' },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'primary_color']);
      const insecure = await h.request('PATCH', '/api/v1/config/branding', {
        apiKey: key,
        body: { logo_url: 'http://x.test/a.png' },
      });
      expect(insecure.status).toBe(422);
      const zone = await h.request('PATCH', '/api/v1/config/general', {
        apiKey: key,
        body: { timezone: 'Mars/Olympus_Mons' },
      });
      expect(zone.status).toBe(422);
      expect(zone.body.detail[0]).toMatchObject({ loc: ['body', 'timezone'], msg: 'Unknown IANA time zone' });
      // an address SMTP cannot carry (local part over 64 characters) is refused like a malformed one
      const undeliverable = await h.request('PATCH', '/api/v1/config/general', {
        apiKey: key,
        body: { support_email: `${'a.'.repeat(40)}b@example.com` },
      });
      expect(undeliverable.status).toBe(422);
      expect(undeliverable.body.detail[0].loc).toEqual(['body', 'support_email']);
      const stored = await h.request('GET', '/api/v1/config/general', { apiKey: key });
      expect(stored.body.settings.timezone).not.toBe('Mars/Olympus_Mons');
    });

    it('integration secrets are write-only: masked in reads and redacted in events', async () => {
      const res = await h.request('PATCH', '/api/v1/integrations/slack', {
        apiKey: key,
        body: { enabled: true, api_token: 'xoxb-very-secret-1234' },
      });
      expect(res.status).toBe(200);
      expect(res.body.settings.api_token).toBe('••••1234');
      expect(res.body.changes).toEqual({
        enabled: { from: false, to: true },
        api_token: { from: null, to: '[REDACTED]' },
      });
      const read = await h.request('GET', '/api/v1/integrations', { apiKey: key });
      expect(read.text).not.toContain('very-secret');
      const slack = read.body.integrations.find((i: any) => i.provider === 'slack');
      expect(slack).toMatchObject({ configured: true, settings: { enabled: true, api_token: '••••1234' } });
      expect(read.body.integrations.find((i: any) => i.provider === 'jira').configured).toBe(false);
      const stored = await h.db
        .selectFrom('tenant_settings')
        .selectAll()
        .where('tenant_id', '=', t.id)
        .execute();
      expect(JSON.stringify(stored)).not.toContain('very-secret');
      // same secret again: no change
      const same = await h.request('PATCH', '/api/v1/integrations/slack', {
        apiKey: key,
        body: { api_token: 'xoxb-very-secret-1234' },
      });
      expect(same.body.changes).toEqual({});
      const last = (await events(t.id)).at(-1);
      expect(last.config.section).toBe('integration:slack');
      expect(JSON.stringify(await events(t.id))).not.toContain('very-secret');
      // disconnect
      expect((await h.request('DELETE', '/api/v1/integrations/slack', { apiKey: key })).status).toBe(204);
      const after = await h.request('GET', '/api/v1/integrations/slack', { apiKey: key });
      expect(after.body.settings).toMatchObject({ enabled: false, api_token: null });
      expect((await h.request('GET', '/api/v1/integrations/myspace', { apiKey: key })).status).toBe(422);
    });

    it('telephony and onboarding', async () => {
      const tel = await h.request('PATCH', '/api/v1/telephony', {
        apiKey: key,
        body: { provider: 'twilio', phone_numbers: ['+15551234567'], auth_token: 'tok_abcdef' },
      });
      expect(tel.status).toBe(200);
      expect(tel.body.settings).toMatchObject({ provider: 'twilio', auth_token: '••••cdef' });
      const bad = await h.request('PATCH', '/api/v1/telephony', {
        apiKey: key,
        body: { phone_numbers: ['555'] },
      });
      expect(bad.status).toBe(422);
      const ob = await h.request('PATCH', '/api/v1/onboarding', {
        apiKey: key,
        body: { profile_completed: true },
      });
      expect(ob.body).toMatchObject({ completed_steps: 1, total_steps: 4, completed: false });
    });

    it('tenant profile: rename emits config.updated; another tenant never sees this one', async () => {
      const res = await h.request('PATCH', '/api/v1/tenant', { apiKey: key, body: { name: 'Acme Support' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: t.id, name: 'Acme Support', plan: 'pro' });
      expect((await events(t.id)).at(-1)).toEqual({
        config: { section: 'tenant', changes: { name: { from: 'Test Tenant', to: 'Acme Support' } } },
      });
      const other = await h.tenant();
      const otherKey = await other.key(['config:read', 'config:write']);
      const theirs = await h.request('GET', '/api/v1/config/general', { apiKey: otherKey });
      expect(theirs.body.settings.timezone).toBe('UTC');
    });

    it('dashboard agents may read settings but not change them', async () => {
      const agent = await t.token('agent');
      expect((await h.request('GET', '/api/v1/config/general', { bearer: agent })).status).toBe(200);
      const res = await h.request('PATCH', '/api/v1/config/general', {
        bearer: agent,
        body: { locale: 'de' },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'This action requires the tenant_admin role' });
    });
  });

  describe('billing', () => {
    it('plan: read, change (config.updated billing.plan), the same plan again is a no-op', async () => {
      const plan = await h.request('GET', '/api/v1/billing/plan', { apiKey: key });
      expect(plan.body).toMatchObject({
        plan: 'pro',
        currency: 'usd',
        interval: 'month',
        price_cents: 19_900,
      });
      expect(plan.body.rate_limits.read).toEqual({ per_minute: 3000, per_10_seconds: 600 });
      const before = (await events(t.id)).length;
      const changed = await h.request('PUT', '/api/v1/billing/plan', {
        apiKey: key,
        body: { plan: 'enterprise' },
      });
      expect(changed.body.plan).toBe('enterprise');
      await h.request('PATCH', '/api/v1/billing/plan', { apiKey: key, body: { plan: 'enterprise' } });
      const evs = await events(t.id);
      expect(evs).toHaveLength(before + 1);
      expect(evs.at(-1)).toEqual({
        config: { section: 'billing.plan', changes: { plan: { from: 'pro', to: 'enterprise' } } },
      });
      const bad = await h.request('PUT', '/api/v1/billing/plan', { apiKey: key, body: { plan: 'gold' } });
      expect(bad.status).toBe(422);
    });

    it('invoices: the current month is upcoming, computed from metered usage', async () => {
      const res = await h.request('GET', '/api/v1/billing/invoices', { apiKey: key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total: 1, limit: 12, offset: 0 });
      const inv = res.body.invoices[0];
      expect(inv).toMatchObject({ status: 'upcoming', plan: 'enterprise', total_cents: 99_900 });
      expect(inv.line_items.find((l: any) => l.metric === 'api_requests').quantity).toBeGreaterThan(0);
      const one = await h.request('GET', `/api/v1/billing/invoices/${inv.id}`, { apiKey: key });
      expect(one.body.id).toBe(inv.id);
      const missing = await h.request('GET', '/api/v1/billing/invoices/inv_201001', { apiKey: key });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ detail: 'Invoice not found' });
    });

    it('payment settings keep brand and last 4 only', async () => {
      const res = await h.request('PUT', '/api/v1/billing/payment-settings', {
        apiKey: key,
        body: {
          billing_email: 'ap@acme.test',
          payment_method: { card_number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2030, cvc: '123' },
          billing_address: { line1: '1 Main St', city: 'Berlin', postal_code: '10115', country: 'DE' },
        },
      });
      expect(res.status).toBe(200);
      expect(res.body.payment_method).toEqual({
        type: 'card',
        brand: 'visa',
        last4: '4242',
        exp_month: 12,
        exp_year: 2030,
      });
      const stored = await h.db
        .selectFrom('billing_accounts')
        .selectAll()
        .where('tenant_id', '=', t.id)
        .execute();
      expect(JSON.stringify(stored)).not.toContain('42424242');
      expect(JSON.stringify(stored)).not.toContain('"123"');
      const patched = await h.request('PATCH', '/api/v1/billing/payment-settings', {
        apiKey: key,
        body: { tax_id: 'DE999' },
      });
      expect(patched.body).toMatchObject({
        billing_email: 'ap@acme.test',
        tax_id: 'DE999',
        payment_method: { last4: '4242' },
      });
      const luhn = await h.request('PUT', '/api/v1/billing/payment-settings', {
        apiKey: key,
        body: { payment_method: { card_number: '4242424242424241', exp_month: 12, exp_year: 2030 } },
      });
      expect(luhn.status).toBe(422);
      expect(luhn.body.detail[0].loc).toEqual(['body', 'payment_method', 'card_number']);
    });
  });

  describe('directory', () => {
    it('tenant users: create, list (paginated), duplicate email 409, other tenant 404', async () => {
      // a key manages users up to agent: inviting a tenant_admin needs a tenant_admin session
      const byKey = await h.request('POST', '/api/v1/tenant/users', {
        apiKey: key,
        body: { email: 'Ann@acme.test', name: 'Ann', role: 'tenant_admin' },
      });
      expect([byKey.status, byKey.body]).toEqual([
        403,
        { detail: 'This action requires the tenant_admin role' },
      ]);
      const a = await h.request('POST', '/api/v1/tenant/users', {
        bearer: t.adminToken,
        body: { email: 'Ann@acme.test', name: 'Ann', role: 'tenant_admin' },
      });
      expect(a.status).toBe(201);
      expect(a.body).toMatchObject({ email: 'Ann@acme.test', role: 'tenant_admin' });
      expect(a.body.id).toMatch(/^tus_/);
      await h.request('POST', '/api/v1/tenant/users', { apiKey: key, body: { email: 'bob@acme.test' } });
      const dup = await h.request('POST', '/api/v1/tenant/users', {
        apiKey: key,
        body: { email: 'ann@ACME.test' },
      });
      expect(dup.status).toBe(409);
      const list = await h.request('GET', '/api/v1/tenant/users?limit=1', { apiKey: key });
      expect(list.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
      expect(list.body.users).toHaveLength(1);
      const admins = await h.request('GET', '/api/v1/tenant/users?role=tenant_admin', { apiKey: key });
      expect(admins.body.users.map((u: any) => u.email)).toEqual(['Ann@acme.test']);
      const patched = await h.request('PATCH', `/api/v1/tenant/users/${a.body.id}`, {
        bearer: t.adminToken,
        body: { role: 'agent' },
      });
      expect(patched.body.role).toBe('agent');
      const other = await h.tenant();
      const otherKey = await other.key(['users:read', 'roles:write']);
      expect((await h.request('GET', `/api/v1/tenant/users/${a.body.id}`, { apiKey: otherKey })).status).toBe(
        404,
      );
    });

    it('requesters: the end users of the tenant, searchable, without password hashes', async () => {
      for (const email of ['carla@cust.test', 'dan@cust.test']) {
        const r = await h.request('POST', '/api/v1/app/auth/register', {
          body: { tenant_id: t.id, email, password: 'correct horse', name: email.split('@')[0] },
        });
        expect(r.status).toBe(201);
      }
      const res = await h.request('GET', '/api/v1/requesters', { apiKey: key });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(2);
      expect(res.text).not.toContain('pbkdf2');
      expect(res.body.requesters[0]).toEqual({
        id: expect.stringMatching(/^usr_/),
        email: 'dan@cust.test',
        name: 'dan',
        has_password: true,
        ticket_count: 0,
        created_at: expect.any(String),
      });
      const search = await h.request('GET', '/api/v1/requesters?email=CARLA@cust.test', { apiKey: key });
      expect(search.body.requesters.map((r: any) => r.email)).toEqual(['carla@cust.test']);
    });
  });

  describe('exports', () => {
    it('a job is written once, finished: one whose outcome cannot be stored leaves no job behind', async () => {
      // the database refuses a finished calls export of this tenant (as a crash between starting
      // and finishing would leave it): no job may stay behind, `running` for ever
      await h.handle.exec(`CREATE FUNCTION refuse_finished_export() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF NEW.tenant_id = '${t.id}' AND NEW.resource = 'calls' AND NEW.status <> 'running' THEN
              RAISE EXCEPTION 'refused for the test';
            END IF;
            RETURN NEW;
          END $$;
          CREATE TRIGGER refuse_finished_export BEFORE INSERT OR UPDATE ON export_jobs
            FOR EACH ROW EXECUTE FUNCTION refuse_finished_export();`);
      try {
        const res = await h.request('POST', '/api/v1/tenant/exports', {
          apiKey: key,
          body: { resource: 'calls', format: 'json' },
        });
        expect(res.status).toBeGreaterThanOrEqual(500);
        const jobs = await h.db
          .selectFrom('export_jobs')
          .select('status')
          .where('tenant_id', '=', t.id)
          .where('resource', '=', 'calls')
          .execute();
        expect(jobs).toEqual([]);
      } finally {
        await h.handle.exec(
          'DROP TRIGGER refuse_finished_export ON export_jobs; DROP FUNCTION refuse_finished_export();',
        );
      }
    });

    it('creates a completed job with a download URL; csv and json; list and read; tenant isolation', async () => {
      const created = await h.request('POST', '/api/v1/tenant/exports', {
        apiKey: key,
        body: { resource: 'usage', format: 'csv' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        resource: 'usage',
        format: 'csv',
        status: 'completed',
        error: null,
      });
      expect(created.body.row_count).toBeGreaterThan(0);
      expect(created.body.download_url).toBe(`/api/v1/tenant/exports/${created.body.id}/download`);
      const file = await h.request('GET', created.body.download_url, { apiKey: key });
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toContain('text/csv');
      expect(file.text.split('\r\n')[0]).toContain('kind');
      expect(file.text.trim().split('\r\n')).toHaveLength(created.body.row_count + 1);

      const json = await h.request('POST', '/api/v1/tenant/exports', {
        apiKey: key,
        body: { resource: 'tickets', format: 'json' },
      });
      expect(json.body).toMatchObject({ status: 'completed', row_count: 0 });
      expect((await h.request('GET', json.body.download_url, { apiKey: key })).body).toEqual([]);

      const list = await h.request('GET', '/api/v1/tenant/exports', { apiKey: key });
      expect(list.body).toMatchObject({ total: 2, limit: 20, offset: 0 });
      expect(list.body.exports[0].id).toBe(json.body.id);
      const one = await h.request('GET', `/api/v1/tenant/exports/${created.body.id}`, { apiKey: key });
      expect(one.body.id).toBe(created.body.id);

      const other = await h.tenant();
      const otherKey = await other.key(['exports:read', 'config:write']);
      const hidden = await h.request('GET', `/api/v1/tenant/exports/${created.body.id}`, {
        apiKey: otherKey,
      });
      expect(hidden.status).toBe(404);
      expect(hidden.body).toEqual({ detail: 'Export not found' });
      const bad = await h.request('POST', '/api/v1/tenant/exports', {
        apiKey: key,
        body: { resource: 'secrets' },
      });
      expect(bad.status).toBe(422);
    });
  });
});
