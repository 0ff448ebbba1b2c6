import { describe, expect, it } from 'vitest';
import { authorizeApiKey, scopeRequirement, surfaceOf } from '../../shared/auth/access';
import { SCOPE_CATALOG, SCOPE_RULES } from '../../shared/auth/scopes';

describe('surface table', () => {
  it.each([
    ['/api/v2/health', 'public'],
    ['/api/v1/help-center/t/articles', 'public'],
    ['/api/v1/app/auth/login', 'public'],
    ['/api/v1/app/tickets', 'end_user'],
    ['/api/internal/calls', 'internal'],
    ['/api/internal/webhooks/qstash', 'signed'],
    ['/api/v1/api-keys', 'dashboard'],
    ['/api/v1/tenants', 'dashboard'],
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
    expect(() => authorizeApiKey('DELETE', '/api/v1/webhooks/w1', new Set(['webhooks:delete']))).toThrow(
      'API key missing required scope: webhooks:write',
    );
    expect(() => authorizeApiKey('DELETE', '/api/v1/webhooks/w1', new Set(['webhooks:write']))).toThrow(
      'Insufficient permissions: requires webhooks:delete',
    );
    expect(() =>
      authorizeApiKey('DELETE', '/api/v1/webhooks/w1', new Set(['webhooks:write', 'webhooks:delete'])),
    ).not.toThrow();
  });
});
