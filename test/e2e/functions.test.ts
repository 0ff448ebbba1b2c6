// Every function of the manifest, in workerd: authentication and scope refusal on each of its path
// prefixes (expectations from the same tables the gate reads), then one happy path per function.
import { beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS } from '../../functions/manifest';
import { ACCESS } from '../../functions/registry';

const { scopeRequirement, surfaceOf } = ACCESS;

import { Detail } from '../../shared/http/errors';
import { call, type EdgeTenant, edgeTenant, token } from './support';

let tenant: EdgeTenant;
/** a key whose one scope no probed prefix asks for first */
let unrelatedKey: string;
const UNRELATED_SCOPE = 'kb:media';

beforeAll(async () => {
  tenant = await edgeTenant();
  unrelatedKey = await tenant.key([UNRELATED_SCOPE]);
});

const probes = FUNCTIONS.flatMap((fn) =>
  fn.prefixes
    .map((prefix) => ({ fn: fn.name, path: prefix === '/api' ? '/api/v1/no-such-thing' : prefix }))
    .filter((p) => p.path.startsWith('/api/')),
);

describe.each(probes)('$fn $path', ({ path }) => {
  const surface = surfaceOf(path);
  const guarded = surface !== 'public' && surface !== 'signed';
  // the sign-in routes take no credential (they hand one out), but still refuse API keys
  const needsCredential = guarded && surface !== 'sign_in';

  it.skipIf(!needsCredential)('refuses a request without credential (401)', async () => {
    const res = await call('GET', path);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: Detail.missingCredentials });
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it.skipIf(!guarded)('refuses an API key without the scope (403, exact detail)', async () => {
    const res = await call('GET', path, { apiKey: unrelatedKey });
    expect(res.status).toBe(403);
    const need = surface === 'api' ? scopeRequirement('GET', path) : null;
    const detail =
      need && need.pathScope !== UNRELATED_SCOPE
        ? Detail.missingScope(need.pathScope)
        : Detail.apiKeyNotPermitted;
    expect(res.body).toEqual({ detail });
  });

  it.skipIf(!guarded)('refuses a forged key (401 Invalid API key)', async () => {
    const res = await call('GET', path, { apiKey: 'itsm_sk_live_notarealkey' });
    expect(res.status).toBe(401);
  });
});

/** What the scope table asks of a key for (method, path). */
function requiredScopes(method: string, path: string): string[] {
  const need = scopeRequirement(method, path);
  return need ? [need.pathScope, ...need.extraScopes] : [];
}

/** Every function is built now: a happy path that answers 404/405 is a routing regression. */
async function orSkip(res: { status: number }, _skip: (note: string) => void, route: string) {
  expect([404, 405], `${route} answered ${res.status}`).not.toContain(res.status);
}

describe('happy paths', () => {
  it('health: 200 from the edge runtime, database reached through the Neon driver', async () => {
    const res = await call('GET', '/api/v2/health', { headers: { 'X-Request-Id': 'edge-trace-1' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', runtime: 'edge', database: { status: 'ok' } });
    expect(res.headers.get('x-request-id')).toBe('edge-trace-1'); // echoed through c.header on Workers
  });

  it('tenants: create (super_admin) and read (tenant_admin)', async () => {
    const res = await call('GET', `/api/v1/tenants/${tenant.id}`, { bearer: tenant.adminToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: tenant.id, plan: 'enterprise', api_key_prefix: 'itsm_sk_live_' });
    const agent = await call('POST', '/api/v1/tenants', {
      bearer: await token('agent', tenant.id),
      body: { name: 'x', plan: 'free', environment: 'sandbox' },
    });
    expect(agent.status).toBe(403);
  });

  it('api-keys: create, list, use, revoke (takes effect on the next request)', async () => {
    const created = await call('POST', '/api/v1/api-keys', {
      bearer: tenant.adminToken,
      body: { name: 'edge', scopes: ['tickets:read'] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.api_key).toMatch(/^itsm_sk_live_/);
    const list = await call('GET', '/api/v1/api-keys', { bearer: tenant.adminToken });
    expect(list.status).toBe(200);
    expect(list.text).toContain(created.body.id);
    expect(list.text).not.toContain(created.body.api_key);
    const revoke = await call('POST', `/api/v1/api-keys/${created.body.id}/revoke`, {
      bearer: tenant.adminToken,
    });
    expect(revoke.status).toBe(204);
    const after = await call('GET', '/api/v1/tickets', { apiKey: created.body.api_key });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ detail: Detail.invalidApiKey });
  });

  it('validation: 422 in the spec shape from the edge', async () => {
    const res = await call('POST', '/api/v1/api-keys', { bearer: tenant.adminToken, body: { scopes: [] } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: expect.any(Array), msg: expect.any(String) });
  });

  it('fallback: unrouted /api path is 404 Not Found with a session', async () => {
    const res = await call('GET', '/api/v1/no-such-thing', { bearer: tenant.adminToken });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: Detail.notFound });
  });

  it('docs: the OpenAPI document without credential', async ({ skip }) => {
    const res = await call('GET', '/api/v1/openapi.json');
    await orSkip(res, skip, 'GET /api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.1\./);
    expect(res.body.paths['/api/v2/health']).toBeTruthy();
    const page = await call('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<details class="op" id="createTicket"');
    const tryPage = await call('GET', '/docs/try');
    expect(tryPage.text).toContain('swagger-ui');
    const asset = await call('GET', '/docs/assets/swagger-ui-bundle.js');
    expect(asset.status).toBe(200);
  });

  it('auth: sign-in through the Neon driver, the one 401 for a wrong password, no key allowed', async () => {
    const res = await call('POST', '/api/v1/auth/login', {
      body: { email: 'nobody@example.com', password: 'not-the-password-1' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid email or password' });
    const withKey = await call('POST', '/api/v1/auth/login', {
      apiKey: unrelatedKey,
      body: { email: 'nobody@example.com', password: 'not-the-password-1' },
    });
    expect(withKey.status).toBe(403);
    expect(withKey.body).toEqual({ detail: Detail.apiKeyNotPermitted });
  });

  it('console: the page from its own Worker, under a strict Content-Security-Policy', async () => {
    const page = await call('GET', '/console/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  // Functions other engineers are building: the list endpoint with the right scope answers 200.
  const lists: { fn: string; path: string; scopes?: string[]; dashboard?: boolean }[] = [
    { fn: 'tickets', path: '/api/v1/tickets' },
    { fn: 'calls', path: '/api/v1/calls' },
    { fn: 'webhooks', path: '/api/v1/webhooks' },
    { fn: 'conversations', path: '/api/v1/conversations' },
    { fn: 'contacts', path: '/api/v2/contacts', dashboard: true },
    { fn: 'kb', path: '/api/v2/kb/articles', dashboard: true },
    { fn: 'usage', path: '/api/v1/usage/summary' },
    { fn: 'billing', path: '/api/v1/billing/plan', dashboard: true },
    { fn: 'directory', path: '/api/v1/requesters' },
    { fn: 'exports', path: '/api/v1/tenant/exports' },
    { fn: 'config', path: '/api/v1/config' },
    { fn: 'audit', path: '/api/v2/audit-log', dashboard: true },
  ];
  it.for(lists)('$fn: GET $path answers 200', async ({ path, scopes, dashboard }, { skip }) => {
    const res = dashboard
      ? await call('GET', path, { bearer: tenant.adminToken })
      : await call('GET', path, { apiKey: await tenant.key(scopes ?? requiredScopes('GET', path)) });
    await orSkip(res, skip, `GET ${path}`);
    expect(res.status, res.text).toBe(200);
  });
});
