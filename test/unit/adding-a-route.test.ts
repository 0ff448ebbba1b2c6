import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FUNCTIONS } from '../../functions/manifest';
import { DOC_SOURCES } from '../../functions/registry';
import type { FunctionApp } from '../../shared/context/app-env';
import { routesOf, toHonoPath } from '../../shared/http/route';

/**
 * README's "Adding a route" names every file a new endpoint and a new route group need; this test
 * holds each route group folder to it, and the README to this list, so a step forgotten (or one the
 * README stops naming) fails here.
 */

/** what the README's table names, and where each is checked */
const NAMED: Record<string, string> = {
  'functions/<name>/routes.ts': 'below: every group has one, and what it declares is served',
  'functions/<name>/app.ts': 'below: every group exports `app`',
  'functions/<name>/data.ts': 'npm run check:imports (queries only in data.ts)',
  'functions/<name>/index.ts': 'below: every group has its Worker entry, built on its app',
  'functions/manifest.ts': 'below: every group has its entry, and every entry its folder',
  'functions/registry.ts': 'below: every group is a source of the documents',
  'docs/architecture.md': 'below: every group has a row in "Route groups" naming an existing page',
  'clients/typescript/generated/':
    'test/integration/client-typescript.test.ts (the committed client is fresh)',
};

const GROUPS = readdirSync('functions').filter((name) => statSync(`functions/${name}`).isDirectory());
const read = (path: string) => readFileSync(path, 'utf8');

/** The backticked paths of the first column of the README's "Adding a route" table. */
function readmeNames(): string[] {
  const section = read('README.md').split('\n## Adding a route\n')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.match(/^\| `([^`]+)`/)?.[1] as string);
}

/** group -> docs page, from docs/architecture.md "Route groups" */
function groupPages(): Record<string, string> {
  const section = read('docs/architecture.md').split('\n### Route groups\n')[1]?.split('\n#')[0] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return Object.fromEntries(
    rows.map((line) => [line.match(/^\| `([^`]+)`/)?.[1], line.match(/\]\(([^)]+)\)/)?.[1]]),
  );
}

describe('adding a route (README)', () => {
  it('names exactly the files and entries this test checks', () => {
    expect(readmeNames().sort()).toEqual(Object.keys(NAMED).sort());
  });

  it('finds the route groups', () => {
    expect(GROUPS.length).toBeGreaterThan(20);
  });

  describe.each(GROUPS)('route group %s', (name) => {
    const dir = `functions/${name}`;

    it('has routes.ts, app.ts exporting `app`, and index.ts built on that app', () => {
      expect(existsSync(`${dir}/routes.ts`), 'routes.ts').toBe(true);
      expect(read(`${dir}/app.ts`)).toMatch(/^export const app\b/m);
      const entry = read(`${dir}/index.ts`);
      expect(entry).toMatch(/from '\.\/app'/);
      expect(entry).toMatch(/^export default /m);
    });

    it('is in the manifest and in the registry', () => {
      expect(FUNCTIONS.map((f) => f.name)).toContain(name);
      expect(DOC_SOURCES.map((s) => s.name)).toContain(name);
    });

    it('has a row in docs/architecture.md "Route groups" naming a page that exists', () => {
      const page = groupPages()[name];
      expect(page, `no row for ${name}`).toBeDefined();
      expect(existsSync(`docs/${page}`), `docs/${page}`).toBe(true);
    });

    it('serves every route its routes.ts declares', async () => {
      const declared = routesOf(await import(`../../functions/${name}/routes.ts`));
      const { app } = (await import(`../../functions/${name}/app.ts`)) as { app: FunctionApp };
      const served = new Set(app.routes.map((r) => `${r.method} ${r.path}`));
      const unserved = declared
        .map((r) => `${r.method.toUpperCase()} ${toHonoPath(r.path)}`)
        .filter((route) => !served.has(route));
      expect(unserved).toEqual([]);
    });
  });

  it('has no manifest entry or docs row without its folder', () => {
    expect(FUNCTIONS.map((f) => f.name).filter((n) => !GROUPS.includes(n))).toEqual([]);
    expect(Object.keys(groupPages()).filter((n) => !GROUPS.includes(n))).toEqual([]);
  });
});
