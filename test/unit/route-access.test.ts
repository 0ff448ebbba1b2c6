import { describe, expect, it } from 'vitest';
import { DOC_SOURCES } from '../../functions/registry';
import { accessOfPath } from '../../shared/http/openapi-doc';
import { toHonoPath } from '../../shared/http/route';

// Each route states who may call it beside its handler (functions/<name>/routes.ts); the gate decides
// from the spec's prefix tables (shared/auth/scopes.ts, access.ts). The two must say the same.
const routes = DOC_SOURCES.flatMap((source) =>
  source.routes.map((route) => ({ source: source.name, route })),
);

describe('route access declarations', () => {
  it('every route declares its access', () => {
    const undeclared = routes.filter(({ route }) => !route.access);
    expect(undeclared.map(({ route }) => `${route.method} ${route.path}`)).toEqual([]);
  });

  it.each(
    routes.map(
      ({ source, route }) => [`${source}: ${route.method.toUpperCase()} ${route.path}`, route] as const,
    ),
  )('%s: the surface and scopes the gate applies', (_, route) => {
    const { role: _role, ...declared } = route.access ?? { surface: undefined };
    expect(declared).toEqual(accessOfPath(route.method, toHonoPath(route.path)));
  });

  it('roles are declared only where a dashboard session can call', () => {
    const misplaced = routes.filter(
      ({ route }) => route.access?.role && !['api', 'dashboard', 'sign_in'].includes(route.access.surface),
    );
    expect(misplaced.map(({ route }) => route.path)).toEqual([]);
  });
});
