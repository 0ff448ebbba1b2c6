/**
 * The scope rules of this area's prefixes, generated from SCOPE_RULES: for each real endpoint, a key
 * with exactly the needed scopes passes (not 401/403), a key without the path scope gets
 * `API key missing required scope: <scope>`, and a key missing each extra scope gets
 * `Insufficient permissions: requires <scope>`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS, SCOPE_RULES } from '../../functions/registry';

const { scopeRequirement } = ACCESS;

import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';

const PLATFORM_PREFIXES = [
  '/api/v1/usage',
  '/api/v1/billing',
  '/api/v1/requesters',
  '/api/v1/tenant/users',
  '/api/v1/tenant/exports',
  '/api/v1/config',
  '/api/v1/configuration',
  '/api/v1/integrations',
  '/api/v1/telephony',
  '/api/v1/onboarding',
  '/api/v1/tenant',
];

/** Every endpoint of the area, with a body that passes validation. */
const ENDPOINTS: [string, string, unknown?][] = [
  ['GET', '/api/v1/usage/summary'],
  ['GET', '/api/v1/usage/details'],
  ['GET', '/api/v1/billing/plan'],
  ['GET', '/api/v1/billing/plans'],
  ['PUT', '/api/v1/billing/plan', { plan: 'enterprise' }],
  ['PATCH', '/api/v1/billing/plan', { plan: 'enterprise' }],
  ['GET', '/api/v1/billing/invoices'],
  ['GET', '/api/v1/billing/payment-settings'],
  ['PUT', '/api/v1/billing/payment-settings', { billing_email: 'billing@example.com' }],
  ['PATCH', '/api/v1/billing/payment-settings', { tax_id: 'DE123' }],
  ['GET', '/api/v1/requesters'],
  ['GET', '/api/v1/tenant/users'],
  ['POST', '/api/v1/tenant/users', 'UNIQUE_USER'],
  ['GET', '/api/v1/tenant/exports'],
  ['POST', '/api/v1/tenant/exports', { resource: 'usage', format: 'json' }],
  ['GET', '/api/v1/config'],
  ['GET', '/api/v1/config/general'],
  ['PATCH', '/api/v1/config/general', { timezone: 'Europe/Berlin' }],
  ['PUT', '/api/v1/config/branding', { primary_color: '#112233' }],
  ['GET', '/api/v1/configuration/channels'],
  ['PATCH', '/api/v1/configuration/channels', { chat_enabled: false }],
  ['GET', '/api/v1/integrations'],
  ['GET', '/api/v1/integrations/slack'],
  ['PATCH', '/api/v1/integrations/slack', { enabled: true }],
  ['DELETE', '/api/v1/integrations/jira'],
  ['GET', '/api/v1/telephony'],
  ['PATCH', '/api/v1/telephony', { recording_enabled: false }],
  ['GET', '/api/v1/onboarding'],
  ['PATCH', '/api/v1/onboarding', { profile_completed: true }],
  ['GET', '/api/v1/tenant'],
  ['PATCH', '/api/v1/tenant', { name: 'Renamed' }],
];

describe.skipIf(postgresUnavailable())('scope rules of the platform prefixes, from SCOPE_RULES', () => {
  let h: Harness;
  let t: TestTenant;
  let n = 0;
  beforeAll(async () => {
    h = await startHarness();
    t = await h.tenant();
  }, 120_000);
  afterAll(() => h?.close());

  it('every prefix of the area has a rule, and every endpoint is under one', () => {
    for (const p of PLATFORM_PREFIXES) expect(SCOPE_RULES.some((r) => r.prefix === p)).toBe(true);
    for (const [m, path] of ENDPOINTS) expect(scopeRequirement(m, path)).not.toBeNull();
  });

  it('the spec extra-scope cases are in the table', () => {
    expect(scopeRequirement('GET', '/api/v1/tenant/users')).toEqual({
      pathScope: 'users:read',
      extraScopes: ['roles:write'],
    });
    for (const [m, p] of [
      ['GET', '/api/v1/tenant/exports'],
      ['POST', '/api/v1/tenant/exports'],
      ['GET', '/api/v1/tenant/exports/exp_1'],
    ])
      expect(scopeRequirement(m!, p!)?.extraScopes).toEqual(['config:write']);
    expect(scopeRequirement('GET', '/api/v1/billing/payment-settings')?.extraScopes).toEqual([
      'billing:write',
    ]);
    expect(scopeRequirement('GET', '/api/v1/billing/plan')?.extraScopes).toEqual([]);
    expect(scopeRequirement('GET', '/api/v1/integrations/slack')?.extraScopes).toEqual(['config:write']);
    expect(scopeRequirement('GET', '/api/v1/telephony')?.extraScopes).toEqual(['config:write']);
    expect(scopeRequirement('GET', '/api/v1/config/general')?.extraScopes).toEqual([]);
  });

  it.each(ENDPOINTS)(
    '%s %s: exact scopes pass, each missing one is refused with the exact detail',
    async (method, path, body) => {
      const need = scopeRequirement(method, path)!;
      const payload = body === 'UNIQUE_USER' ? { email: `user${++n}@example.com` } : body;
      const all = [need.pathScope, ...need.extraScopes];
      const ok = await h.request(method, path, { apiKey: await t.key(all), body: payload });
      expect([401, 403]).not.toContain(ok.status);
      expect(ok.status).toBeLessThan(300);

      // without the path scope (holding the extras, or an unrelated scope)
      const without = await t.key(need.extraScopes.length ? need.extraScopes : ['tickets:read']);
      const refused = await h.request(method, path, { apiKey: without, body: payload });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: `API key missing required scope: ${need.pathScope}` });

      for (const extra of need.extraScopes) {
        const res = await h.request(method, path, {
          apiKey: await t.key(all.filter((s) => s !== extra)),
          body: payload,
        });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ detail: `Insufficient permissions: requires ${extra}` });
      }
    },
  );
});
