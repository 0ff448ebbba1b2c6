import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { Credential } from '../../shared/auth/credential';
import { roleGuard } from '../../shared/auth/credential';
import type { Role } from '../../shared/auth/jwt';
import type { AppEnv } from '../../shared/context/app-env';
import { handleError } from '../../shared/http/errors';

const session = (role: Role): Credential => ({ kind: 'dashboard', tenantId: 'ten_1', userId: 'usr_1', role });
const apiKey: Credential = { kind: 'api_key', tenantId: 'ten_1', keyId: 'key_1', scopes: new Set() };

/** The status and detail `roleGuard(role)` gives `auth` on `method`. */
async function answer(auth: Credential, method: string, role: Role) {
  const app = new Hono<AppEnv>();
  app.onError(handleError);
  app.use('*', async (c, next) => {
    c.set('auth', auth);
    await next();
  });
  app.use('/x', roleGuard(role));
  app.on(['GET', 'HEAD', 'POST', 'PATCH'], '/x', (c) => c.json({ ok: true }));
  const res = await app.request('/x', { method });
  return { status: res.status, detail: method === 'HEAD' ? undefined : (await res.json()).detail };
}

describe('roleGuard', () => {
  it('lets a session of the role or above through, and refuses one below with the spec string', async () => {
    expect((await answer(session('tenant_admin'), 'POST', 'tenant_admin')).status).toBe(200);
    expect((await answer(session('super_admin'), 'POST', 'tenant_admin')).status).toBe(200);
    expect(await answer(session('agent'), 'POST', 'tenant_admin')).toEqual({
      status: 403,
      detail: 'This action requires the tenant_admin role',
    });
  });

  it('lets API keys through to their scopes, and refuses a caller without a credential (401)', async () => {
    expect((await answer(apiKey, 'POST', 'tenant_admin')).status).toBe(200);
    expect(await answer({ kind: 'anonymous' }, 'GET', 'agent')).toEqual({
      status: 401,
      detail: 'Missing authentication credentials',
    });
  });

  it('checks every method alike', async () => {
    for (const method of ['GET', 'HEAD', 'POST', 'PATCH'])
      expect((await answer(session('agent'), method, 'tenant_admin')).status).toBe(403);
  });
});
