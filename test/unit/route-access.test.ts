import { describe, expect, it } from 'vitest';
import { ACCESS_RULES, FUNCTIONS } from '../../functions/manifest';
import { DOC_SOURCES } from '../../functions/registry';
import type { FunctionApp } from '../../shared/context/app-env';
import { underPrefix } from '../../shared/http/paths';
import { toHonoPath } from '../../shared/http/route';

// A route's surface and scopes are the manifest's (functions/manifest.ts), written once: the gate
// applies them by path and the registry gives them to each route. A route declares only its role
// (or a required session), which the handler checks. What remains to hold: every route falls under
// a rule of the manifest, its role can be met, and its path reaches the function that serves it.
const routes = DOC_SOURCES.flatMap((source) =>
  source.routes.map((route) => ({ source: source.name, route, path: toHonoPath(route.path) })),
);
const where = (r: { route: { method: string; path: string } }) =>
  `${r.route.method.toUpperCase()} ${r.route.path}`;

/** `/` is the exact root path (scripts/edge/config.ts), every other prefix covers what lies under it */
const covers = (prefix: string, path: string) => (prefix === '/' ? path === '/' : underPrefix(path, prefix));

describe('route access', () => {
  it("every route falls under a rule of the manifest, not the gate's default for unlisted paths", () => {
    const ruleless = routes.filter(({ path }) => !ACCESS_RULES.some((rule) => covers(rule.prefix, path)));
    expect(ruleless.map(where)).toEqual([]);
  });

  it('roles are declared only where a dashboard session can call', () => {
    const misplaced = routes.filter(
      ({ route }) => route.access.role && !['api', 'dashboard', 'sign_in'].includes(route.access.surface),
    );
    expect(misplaced.map(where)).toEqual([]);
  });

  it('a required session is declared only on sign-in routes, where a credential is otherwise optional', () => {
    const misplaced = routes.filter(
      ({ route }) => route.access.session && route.access.surface !== 'sign_in',
    );
    expect(misplaced.map(where)).toEqual([]);
  });
});

/** The function the manifest routes `path` to: the longest prefix wins. */
function ownerOf(path: string): string | undefined {
  let best: { name: string; length: number } | undefined;
  for (const fn of FUNCTIONS)
    for (const prefix of fn.prefixes)
      if (covers(prefix, path) && prefix.length > (best?.length ?? -1))
        best = { name: fn.name, length: prefix.length };
  return best?.name;
}

describe('route declarations and the manifest', () => {
  it('every function in the manifest has its declarations in the registry, in manifest order', () => {
    expect(DOC_SOURCES.map((s) => s.name)).toEqual(FUNCTIONS.map((f) => f.name));
  });

  it('the manifest routes each declared path to the function that declares it', () => {
    const misrouted = routes
      .map(({ source, path }) => ({ source, path, owner: ownerOf(path) }))
      .filter((r) => r.owner !== r.source);
    expect(misrouted).toEqual([]);
  });
});

// A route is declared once (`defineRoute`, exported from routes.ts) and served by one `register`
// line: the registry finds the declarations among the module's exports, so what a function serves
// and what the registry holds of it are the same routes, both ways.
describe('each route declared once, served from its declaration', () => {
  const key = (method: string, path: string) => `${method.toUpperCase()} ${toHonoPath(path)}`;
  it.each(DOC_SOURCES.map((s) => [s.name, s] as const))('%s', async (name, source) => {
    const { app } = (await import(`../../functions/${name}/app.ts`)) as { app: FunctionApp };
    const served = new Set(
      app.routes.filter((r) => r.method !== 'ALL' && !r.path.includes('*')).map((r) => key(r.method, r.path)),
    );
    const declared = new Set(source.routes.map((r) => key(r.method, r.path)));
    expect(
      [...declared].filter((r) => !served.has(r)),
      'declared, never registered',
    ).toEqual([]);
    expect(
      [...served].filter((r) => !declared.has(r)),
      'registered, not declared',
    ).toEqual([]);
  });
});
