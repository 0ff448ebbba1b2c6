// Import rules of the tree, checked in CI after lint, so the layout stays as docs/architecture.md
// draws it:
//  - shared/ never imports functions/ or scripts/;
//  - scripts/ never imports test/ (tools and benchmarks run without the test tree's helpers);
//  - a function imports no other function (functions/<a>/ never reaches functions/<b>/); the two
//    top-level assembly modules (functions/manifest.ts, functions/registry.ts) may import them all;
//  - no import cycle (type-only imports count: they are arrows a reader follows too): Biome's
//    `noImportCycles` (biome.json), run from here; `npm run lint` applies it too;
//  - no import upward in shared/'s layer order (scripts/lib/shared-layers.ts);
//  - in functions/, routes are registered from their declarations and queries live only in data.ts.
// The rules other than the cycles are this layout's own, which no Biome rule expresses (paths
// relative to the importing file, a layer table, what a function folder's files may hold).
// Prints every violation and exits 1 if there is one.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { layerViolations } from './lib/shared-layers';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const SOURCE = /\.(ts|tsx)$/;

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"](\.[^'"]+)['"]/g;

function resolveImport(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec.replace(/\.js$/, ''));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      /* next */
    }
  }
  return null;
}

const files = [...walk(join(ROOT, 'shared')), ...walk(join(ROOT, 'functions'))];
const graph = new Map<string, string[]>();
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const targets: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const target = resolveImport(file, m[1]!);
    if (target) targets.push(target);
  }
  graph.set(file, targets);
}

const rel = (p: string) => relative(ROOT, p);
const functionOf = (p: string) => /^functions\/([^/]+)\//.exec(rel(p))?.[1] ?? null;
const ASSEMBLY = new Set(['functions/manifest.ts', 'functions/registry.ts']);

const violations: string[] = [];
for (const [file, targets] of graph) {
  const r = rel(file);
  for (const t of targets) {
    const rt = rel(t);
    if (r.startsWith('shared/') && !rt.startsWith('shared/'))
      violations.push(`shared imports outside shared: ${r} -> ${rt}`);
    const a = functionOf(file);
    const b = functionOf(t);
    if (a && b && a !== b && !ASSEMBLY.has(r))
      violations.push(`function imports another function: ${r} -> ${rt}`);
  }
}

// the layer order of shared/: no module imports one of a higher layer
const sharedEdges = [...graph].flatMap(([file, targets]) =>
  targets.map((t) => [rel(file), rel(t)] as const).filter(([r]) => r.startsWith('shared/')),
);
violations.push(...layerViolations(sharedEdges));

// import cycles: Biome's rule, over the code that ships and the tools
const cycles = spawnSync(
  'npx',
  [
    'biome',
    'lint',
    '--only=suspicious/noImportCycles',
    '--max-diagnostics=none',
    'shared',
    'functions',
    'scripts',
  ],
  { cwd: ROOT, stdio: 'inherit' },
);
if (cycles.status !== 0) violations.push('import cycles (Biome noImportCycles, above)');

// The shape of a function folder: routes are served only from app.ts, through the
// declarations in routes.ts (`register(app, routes.x, handler)`: no path written a second time), and
// queries live only in data.ts.
const ROUTE_BY_PATH =
  /\b[a-zA-Z]+\.(?:get|post|put|patch|delete|all|on)\(\s*(?:\[[^\]]*\],\s*)?['"`](\/[^'"`]*)/g;
const QUERY = /\.(?:selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql(?:<[^>]*>)?`/;
/** Routes that are not a declaration, with the reason: static files and the console's client-side paths. */
const ROUTE_PATHS_ALLOWED = new Set<string>([
  // an unknown file is a 404 like any missing file; the declared `file` enum would make it a 422
  'functions/docs/site.ts /docs/assets/:file',
  'functions/console/app.ts /console/assets/:file',
  // the page again for the console's client-side routes: a wildcard, which no OpenAPI path expresses
  'functions/console/app.ts /console/*',
]);
for (const file of files) {
  const r = rel(file);
  if (!r.startsWith('functions/') || !functionOf(file)) continue;
  const text = readFileSync(file, 'utf8');
  const base = r.split('/').pop();
  if (base !== 'data.ts' && QUERY.test(text)) violations.push(`query outside data.ts: ${r}`);
  for (const m of text.matchAll(ROUTE_BY_PATH))
    if (!ROUTE_PATHS_ALLOWED.has(`${r} ${m[1]}`))
      violations.push(`route registered by path instead of its declaration: ${r} ${m[1]}`);
}

// scripts/ is what `npm start`, the benchmarks and the tools run: nothing of it may need test/
for (const file of walk(join(ROOT, 'scripts'))) {
  for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const target = resolveImport(file, m[1]!);
    if (target && rel(target).startsWith('test/'))
      violations.push(`scripts import test code: ${rel(file)} -> ${rel(target)}`);
  }
}

for (const v of violations) console.error(v);
if (violations.length > 0) {
  console.error(`\n${violations.length} import rule violation(s)`);
  process.exit(1);
}
console.log(
  `imports: ${graph.size} files, shared/ free of cycles, of upward imports and of functions/, no function imports another, scripts/ free of test/; routes served from their declarations, queries only in data.ts`,
);
