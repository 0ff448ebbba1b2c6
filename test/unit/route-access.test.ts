import { describe, expect, it } from 'vitest';
import { FUNCTIONS } from '../../functions/manifest';
import { ACCESS, DOC_SOURCES } from '../../functions/registry';
import { underPrefix } from '../../shared/http/paths';
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
    // role and session are the handler's to check, past the gate's path tables
    const { role: _role, session: _session, ...declared } = route.access ?? { surface: undefined };
    expect(declared).toEqual(ACCESS.accessOf(route.method, toHonoPath(route.path)));
  });

  it('roles are declared only where a dashboard session can call', () => {
    const misplaced = routes.filter(
      ({ route }) => route.access?.role && !['api', 'dashboard', 'sign_in'].includes(route.access.surface),
    );
    expect(misplaced.map(({ route }) => route.path)).toEqual([]);
  });
});

/** The function the manifest routes `path` to: the longest prefix wins (`/` is the root path only). */
function ownerOf(path: string): string | undefined {
  let best: { name: string; length: number } | undefined;
  for (const fn of FUNCTIONS)
    for (const prefix of fn.prefixes) {
      const hit = prefix === '/' ? path === '/' : underPrefix(path, prefix);
      if (hit && prefix.length > (best?.length ?? -1)) best = { name: fn.name, length: prefix.length };
    }
  return best?.name;
}

describe('route declarations and the manifest', () => {
  it('every function in the manifest has its declarations in the registry, in manifest order', () => {
    expect(DOC_SOURCES.map((s) => s.name)).toEqual(FUNCTIONS.map((f) => f.name));
  });

  it('the manifest routes each declared path to the function that declares it', () => {
    const misrouted = routes
      .map(({ source, route }) => ({
        source,
        path: toHonoPath(route.path),
        owner: ownerOf(toHonoPath(route.path)),
      }))
      .filter((r) => r.owner !== r.source);
    expect(misrouted).toEqual([]);
  });
});
