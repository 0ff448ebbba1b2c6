import { describe, expect, it } from 'vitest';
import { ACCESS_RULES as SURFACE_RULES } from '../../functions/manifest';
import { ACCESS, SCOPE_RULES } from '../../functions/registry';
import { KEY_DENIED_PREFIXES, SCOPE_CATALOG } from '../../shared/context/scopes';

// The rules are every function's, written beside it in functions/manifest.ts; the gate's lookups
// are compiled from them (shared/auth/access.ts).
const { publicRefusal, scopeRefusal, scopeRequirement, surfaceOf } = ACCESS;

describe('surface table', () => {
  it.each([
    ['/api/v2/health', 'public'],
    ['/api/v1/help-center/t/articles', 'public'],
    ['/api/v1/app/auth/login', 'public'],
    ['/api/v1/app/tickets', 'end_user'],
    ['/api/internal/calls', 'internal'],
    ['/api/internal/webhooks/qstash', 'signed'],
    ['/api/internal/sla/qstash', 'signed'],
    ['/api/internal/sla/other', 'internal'],
    ['/api/v1/api-keys', 'dashboard'],
    ['/api/v1/tenants', 'dashboard'],
    ['/api/v1/auth/login', 'sign_in'],
    ['/api/v1/auth/password-reset/confirm', 'sign_in'],
    ['/api/v1/authx', 'dashboard'],
    ['/api/v1/tenant/users', 'api'],
    ['/api/v1/tickets/', 'api'],
    ['/api/v2/contacts', 'dashboard'],
    ['/api/v2/healthz', 'dashboard'],
    ['/api/v1/ticketsx', 'dashboard'],
    ['/docs', 'public'],
  ])('%s -> %s', (path, surface) => {
    expect(surfaceOf(path)).toBe(surface);
  });
});

describe('scope rules', () => {
  it('name only scopes of the catalog', () => {
    const catalog = new Set<string>(SCOPE_CATALOG);
    for (const r of SCOPE_RULES) {
      for (const s of [r.read, r.write, ...(r.extra ?? []).flatMap((e) => e.scopes)])
        expect(catalog.has(s)).toBe(true);
    }
  });

  it('read for GET/HEAD, write for the rest; longest prefix wins', () => {
    expect(scopeRequirement('HEAD', '/api/v1/tickets')).toEqual({
      pathScope: 'tickets:read',
      extraScopes: [],
    });
    expect(scopeRequirement('PUT', '/api/v1/tickets/1')).toEqual({
      pathScope: 'tickets:write',
      extraScopes: [],
    });
    expect(scopeRequirement('POST', '/api/v1/tenant/exports')?.pathScope).toBe('exports:write');
    expect(scopeRequirement('GET', '/api/v1/tenant/settings')?.pathScope).toBe('config:read');
    expect(scopeRequirement('GET', '/api/v1/analytics')).toBeNull();
  });

  it('checks the path scope before the extra ones', () => {
    expect(scopeRefusal('DELETE', '/api/v1/webhooks/w1', new Set(['webhooks:delete']))).toBe(
      'API key missing required scope: webhooks:write',
    );
    expect(scopeRefusal('DELETE', '/api/v1/webhooks/w1', new Set(['webhooks:write']))).toBe(
      'Insufficient permissions: requires webhooks:delete',
    );
    expect(
      scopeRefusal('DELETE', '/api/v1/webhooks/w1', new Set(['webhooks:write', 'webhooks:delete'])),
    ).toBeNull();
  });

  it.each(KEY_DENIED_PREFIXES)('%s, a prefix no key may reach (spec rule 5), takes no key', (prefix) => {
    for (const path of [prefix, `${prefix}/x`]) {
      expect(['dashboard', 'sign_in', 'internal']).toContain(surfaceOf(path));
      expect(scopeRequirement('GET', path)).toBeNull();
    }
  });
});

// The lookups walk a path's parents through a prefix table; this is the plain definition they must
// agree with: the longest rule prefix the path equals or continues with a '/', first listed on a tie.
describe('prefix lookups agree with a scan of the rules', () => {
  const underPrefix = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  const longest = <R extends { prefix: string }>(rules: readonly R[], path: string) =>
    rules.reduce<R | undefined>(
      (best, r) =>
        underPrefix(path, r.prefix) && (!best || r.prefix.length > best.prefix.length) ? r : best,
      undefined,
    );
  const paths = [
    ...SURFACE_RULES.flatMap((r) => [
      r.prefix,
      `${r.prefix}/`,
      `${r.prefix}/x_1`,
      `${r.prefix}/x_1/sub/y_2`,
      `${r.prefix}x`,
      r.prefix.slice(0, r.prefix.lastIndexOf('/')),
    ]),
    '/',
    '',
    '/api',
    '/api/',
    '/docs',
    '/api/v9/unknown',
  ];

  it.each(paths)('%s', (path) => {
    const p = path.length > 1 ? path.replace(/\/+$/, '') : path;
    const surface = longest(SURFACE_RULES, p)?.surface ?? (underPrefix(p, '/api') ? 'dashboard' : 'public');
    expect(surfaceOf(path)).toBe(surface);
    const rule = longest(SCOPE_RULES, p);
    const need = scopeRequirement('GET', path);
    expect(need?.pathScope ?? null).toBe(rule ? rule.read : null);
  });
});

describe('public paths and API keys (spec rule 6)', () => {
  const publicPaths = SURFACE_RULES.filter((r) => r.surface === 'public').map((r) => `${r.prefix}/x`);

  it.each(publicPaths)('a key on %s is 403; no key passes', (path) => {
    expect(publicRefusal('POST', path, true)).toMatchObject({
      status: 403,
      detail: 'API keys are not permitted for this endpoint',
    });
    expect(publicRefusal('GET', path, true)?.status).toBe(403);
    expect(publicRefusal('POST', path, false)).toBeNull();
  });

  it.each(['/api/v2/health', '/api/v1/openapi.json', '/api/v2/health/'])(
    '%s serves GET and HEAD to anyone, 405 otherwise',
    (path) => {
      for (const withKey of [false, true]) {
        expect(publicRefusal('GET', path, withKey)).toBeNull();
        expect(publicRefusal('HEAD', path, withKey)).toBeNull();
      }
      expect(publicRefusal('POST', path, false)).toMatchObject({ status: 405, detail: 'Method Not Allowed' });
      expect(publicRefusal('DELETE', path, true)?.status).toBe(403);
    },
  );
});
