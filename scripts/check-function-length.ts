// A function over 80 lines in the code that ships or runs as a tool (functions/, shared/, scripts/,
// the TypeScript client without its generated types) is Biome's `noExcessiveLinesPerFunction`
// (biome.json; `npm run lint` applies it too). What Biome cannot say is this project's budget: a
// long function is allowed only where splitting it would scatter one idea, each such one carries a
// `biome-ignore` with that reason, and there are at most three. This script runs the rule, lists
// the exceptions as `path:line reason`, and exits 1 when the rule fails or there are more than three.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { longFunctionExceptions } from './lib/function-length';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const LIMIT = 80;
const ALLOWED = 3;
const ROOTS = ['functions', 'shared', 'scripts', 'clients/typescript'];
const SKIPPED_DIRS = new Set(['node_modules', 'generated', 'dist', 'test']);
const SOURCE = /\.(ts|tsx|mts)$/;

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.') || SKIPPED_DIRS.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(name)) out.push(path);
  }
  return out;
}

const lint = spawnSync(
  'npx',
  ['biome', 'lint', '--only=complexity/noExcessiveLinesPerFunction', '--max-diagnostics=none', ...ROOTS],
  { cwd: ROOT, stdio: 'inherit' },
);

const found = ROOTS.flatMap((root) =>
  walk(join(ROOT, root)).flatMap((file) =>
    longFunctionExceptions(readFileSync(file, 'utf8')).map((e) => ({ ...e, path: relative(ROOT, file) })),
  ),
);
for (const f of found) console.log(`${f.path}:${f.line} ${f.reason}`);
console.log(`${found.length} function(s) over ${LIMIT} lines (at most ${ALLOWED} allowed)`);
process.exit(lint.status !== 0 || found.length > ALLOWED ? 1 : 0);
