// `npm run check:parity`: nothing Node-only reachable from a Worker entry. Bundles every function's
// entry (functions/<name>/index.ts) the way wrangler does (esbuild, workerd/browser conditions, no
// Node platform) and fails when
//   - a `node:*` (or bare Node built-in) import is reachable, unless listed in ALLOWED_NODE_IMPORTS,
//   - a Node-only module of this repo is reachable (adapters for PGlite/pg, the fs migrations
//     reader, anything named *.node.ts).
import { builtinModules } from 'node:module';
import { build, type Metafile } from 'esbuild';
import { FUNCTIONS } from '../functions/manifest';
import { ROOT } from './edge/config';

/**
 * `node:` imports deliberately allowed in Worker bundles, with the reason. Empty: the Workers run
 * without `nodejs_compat` (wrangler.toml). Add an entry here AND the flag there if ever needed.
 */
export const ALLOWED_NODE_IMPORTS: Record<string, string> = {};

/** Repo modules that only run on Node (the embedded runtime, scripts, tests). */
const NODE_ONLY = [
  /^shared\/db\/adapters\/(pglite|pg)\.ts$/,
  /^shared\/db\/migrations-fs\.ts$/,
  /\.node\.ts$/,
  /^scripts\//,
  /^test\//,
];
const NODE_PACKAGES =
  /(^|\/)node_modules\/(pg|pg-pool|pg-protocol|@electric-sql\/pglite|@hono\/node-server|tsx)\//;

const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

interface Finding {
  fn: string;
  problem: string;
  chain: string[];
}

/** importer chain to `target` (shortest path from the entry) */
function chainTo(meta: Metafile, entry: string, target: string): string[] {
  const prev = new Map<string, string>();
  const queue = [entry];
  const seen = new Set(queue);
  while (queue.length) {
    const cur = queue.shift() as string;
    if (cur === target) break;
    for (const imp of meta.inputs[cur]?.imports ?? []) {
      if (seen.has(imp.path)) continue;
      seen.add(imp.path);
      prev.set(imp.path, cur);
      queue.push(imp.path);
    }
  }
  const chain = [target];
  for (let p = prev.get(target); p; p = prev.get(p)) chain.unshift(p);
  return chain;
}

async function check(fn: string): Promise<Finding[]> {
  const entry = `functions/${fn}/index.ts`;
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['workerd', 'worker', 'browser', 'module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    metafile: true,
    logLevel: 'silent',
    // keep Node built-ins unresolved so they show up as imports instead of failing the build
    external: [...builtins],
  });
  const meta = result.metafile;
  const findings: Finding[] = [];
  for (const [file, input] of Object.entries(meta.inputs)) {
    for (const imp of input.imports) {
      if (!imp.external || !builtins.has(imp.path)) continue;
      const name = imp.path.startsWith('node:') ? imp.path : `node:${imp.path}`;
      if (name in ALLOWED_NODE_IMPORTS) continue;
      findings.push({ fn, problem: `imports ${imp.path}`, chain: chainTo(meta, entry, file) });
    }
    if (NODE_ONLY.some((re) => re.test(file)) || NODE_PACKAGES.test(file))
      findings.push({ fn, problem: 'Node-only module reachable', chain: chainTo(meta, entry, file) });
  }
  return findings;
}

async function main() {
  const findings = (await Promise.all(FUNCTIONS.map((f) => check(f.name)))).flat();
  for (const f of findings) console.error(`✗ ${f.fn}: ${f.problem}\n    ${f.chain.join('\n    -> ')}`);
  if (findings.length > 0) {
    console.error(
      `\nRuntime parity check failed: keep Node-only code in the adapters (shared/db/adapters/{pg,pglite}.ts, *.node.ts) and out of every Worker's import graph.`,
    );
    process.exit(1);
  }
  const allowed = Object.keys(ALLOWED_NODE_IMPORTS);
  console.log(
    `Runtime parity ok: ${FUNCTIONS.length} Worker entries, no Node-only module reachable${allowed.length ? ` (allowed: ${allowed.join(', ')})` : ', no node: import'}.`,
  );
}

await main();
