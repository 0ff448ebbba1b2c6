// Lists every function over 80 lines in the code that ships or runs as a tool (functions/,
// shared/, scripts/, the TypeScript client without its generated types), longest first, as
// `path:line name length`. Exits 1 when more than three are that long: a long function is allowed
// only where splitting it would scatter one idea, and those few are named by this list.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { type FunctionSpan, longFunctions } from './lib/function-length';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const LIMIT = 80;
const ALLOWED = 3;
const ROOTS = ['functions', 'shared', 'scripts', 'clients/typescript'];
const SKIPPED_DIRS = new Set(['node_modules', 'generated', 'dist', 'test']);
const SOURCE = /\.(ts|tsx|mts)$/;
const NOT_SOURCE = /(\.d\.ts|\.gen\.ts|\.test\.tsx?)$/;

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.') || SKIPPED_DIRS.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(name) && !NOT_SOURCE.test(name)) out.push(path);
  }
  return out;
}

const found: Array<FunctionSpan & { path: string }> = [];
for (const root of ROOTS) {
  for (const file of walk(join(ROOT, root))) {
    const path = relative(ROOT, file);
    for (const span of longFunctions(path, readFileSync(file, 'utf8'), LIMIT)) {
      found.push({ ...span, path });
    }
  }
}
found.sort((a, b) => b.length - a.length);
for (const f of found) console.log(`${f.path}:${f.line} ${f.name} ${f.length}`);
console.log(`${found.length} function(s) over ${LIMIT} lines (at most ${ALLOWED} allowed)`);
process.exit(found.length > ALLOWED ? 1 : 0);
