// `npm run build:edge`: bundles every function of the manifest the way `wrangler deploy` would
// (`wrangler deploy --dry-run --minify --outdir dist/bundles/<name>`), two at a time, then loads
// every bundle in workerd (Miniflare) and prints each Worker's gzipped size and startup (the
// evaluation of its top-level code). It fails above the size budget or Cloudflare's startup limit,
// and marks a startup above the target (docs/deploy.md says why these numbers). A bare Hono Worker
// (scripts/edge/bare/index.ts), bundled by the same settings and started the same way in the same
// run, is the floor: one line per Worker puts its startup beside the floor's, with the ratio.
//   npm run build:edge [-- --only tickets,calls] [-- --markdown dist/bundle-sizes.md]
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { Miniflare } from 'miniflare';
import {
  BARE_WORKER,
  BUNDLE_DIR,
  functionsNamed,
  prepareDocsAssets,
  ROOT,
  writeBareConfig,
  writeFunctionConfig,
} from './edge/config';
import { prepareDocsWorker } from './edge/docs-worker';
import { startupLine } from './edge/floor';

/** Per Worker, gzipped: Cloudflare takes 3 MB (free) and 10 MB (paid); what size costs is startup. */
export const BUDGET_GZIP_BYTES = 1024 * 1024;
/** Cloudflare refuses a Worker whose startup takes longer than this (its startup CPU limit). */
export const STARTUP_LIMIT_MS = 1000;
/**
 * Our target: a tenth of the limit. A cold start runs on a request's path (Cloudflare starts the
 * Worker during the TLS handshake, which hides tens of milliseconds, not hundreds), and the
 * platform's machines and load differ from the one that measures here.
 */
export const STARTUP_TARGET_MS = 100;
/** Fresh workerd processes per measurement; the median is reported. */
const STARTUP_RUNS = 3;

const { values } = parseArgs({
  options: { only: { type: 'string' }, markdown: { type: 'string' }, concurrency: { type: 'string' } },
});

export interface BundleSize {
  name: string;
  raw: number;
  gzip: number;
  /** median milliseconds workerd spent evaluating the bundle's modules */
  startupMs?: number;
}

function run(cmd: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CI: process.env.CI ?? 'true' },
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('close', (code) => resolveRun({ code: code ?? 1, output }));
  });
}

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(m?js)$/.test(f))
    .map((f) => join(dir, f));
}

/**
 * Startup as workerd spends it: each bundle is loaded behind a probe module that takes the time
 * before the bundle's modules are evaluated, and its entry the time after (a Worker's clock runs
 * during its startup in workerd; in the cloud it stands still until I/O, so this is only measurable
 * locally). Parsing and compiling are not counted: V8 parses lazily, evaluation is the cost that
 * grows with what the top level builds (schemas, tables, documents).
 */
function probedModules(name: string) {
  const dir = join(BUNDLE_DIR, name);
  const files = jsFiles(dir).map((path) => ({ type: 'ESModule' as const, path }));
  return [
    {
      type: 'ESModule' as const,
      path: join(dir, '__startup-entry.js'),
      contents: [
        "import { t0 } from './__startup-start.js';",
        "import worker from './index.js';",
        'const evaluated = Date.now() - t0;',
        'export default {',
        "  fetch(req, env, ctx) { return new URL(req.url).pathname === '/__startup' ? new Response(String(evaluated)) : worker.fetch(req, env, ctx); },",
        '};',
      ].join('\n'),
    },
    {
      type: 'ESModule' as const,
      path: join(dir, '__startup-start.js'),
      contents: 'export const t0 = Date.now();',
    },
    ...files,
  ];
}

/** startup of each Worker (the bare one's measured in the same loop) */
async function measureStartup(names: string[]): Promise<Map<string, number>> {
  const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(
    readFileSync(join(ROOT, 'wrangler.toml'), 'utf8'),
  )?.[1];
  const runs = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let run = 0; run < STARTUP_RUNS; run++) {
    // one Worker per workerd process, so one's evaluation never waits on another's
    for (const name of names) {
      const mf = new Miniflare({
        name,
        modules: probedModules(name),
        modulesRoot: join(BUNDLE_DIR, name),
        compatibilityDate,
      });
      try {
        const res = await mf.dispatchFetch('http://startup.local/__startup');
        runs.get(name)?.push(Number(await res.text()));
      } finally {
        await mf.dispose();
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  return new Map([...runs].map(([n, xs]) => [n, median(xs)]));
}

async function bundle(name: string, config: string): Promise<BundleSize> {
  const outdir = join(BUNDLE_DIR, name);
  rmSync(outdir, { recursive: true, force: true });
  const wrangler = join(ROOT, 'node_modules', '.bin', 'wrangler');
  const { code, output } = await run(wrangler, [
    'deploy',
    '--dry-run',
    '--minify',
    '--outdir',
    outdir,
    '--config',
    config,
  ]);
  if (code !== 0) throw new Error(`wrangler deploy --dry-run failed for ${name}:\n${output}`);
  let raw = 0;
  let gzip = 0;
  for (const file of jsFiles(outdir)) {
    const bytes = readFileSync(file);
    raw += statSync(file).size;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { name, raw, gzip };
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

const verdict = (s: BundleSize) => {
  if (s.gzip > BUDGET_GZIP_BYTES) return '**over the size budget**';
  if (s.startupMs === undefined) return 'ok (startup not measured)';
  if (s.startupMs > STARTUP_LIMIT_MS) return '**over the startup limit**';
  return s.startupMs > STARTUP_TARGET_MS ? '**over the startup target**' : 'ok';
};

export function sizeTable(sizes: BundleSize[]): string {
  const rows = sizes.map(
    (s) => `| ${s.name} | ${kib(s.raw)} | ${kib(s.gzip)} | ${s.startupMs ?? '-'} ms | ${verdict(s)} |`,
  );
  return [
    `| function | minified | gzipped (budget ${kib(BUDGET_GZIP_BYTES)}) | startup (target ${STARTUP_TARGET_MS} ms, limit ${STARTUP_LIMIT_MS} ms) | |`,
    '|---|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
}

async function main() {
  const fns = functionsNamed(values.only);
  if (fns.some((f) => f.name === 'docs')) {
    prepareDocsAssets();
    prepareDocsWorker();
  }
  const queue = [
    // the floor first: it is small, and every line below needs it
    { name: BARE_WORKER.name, config: writeBareConfig() },
    ...fns.map((fn) => ({ name: fn.name, config: writeFunctionConfig(fn) })),
  ];
  const concurrency = Number(values.concurrency ?? 2);
  const sizes: BundleSize[] = [];
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        try {
          const size = await bundle(job.name, job.config);
          sizes.push(size);
          console.log(`built ${job.name.padEnd(14)} ${kib(size.raw).padStart(11)}  gz ${kib(size.gzip)}`);
        } catch (err) {
          failures.push(job.name);
          console.error(String((err as Error).message));
        }
      }
    }),
  );
  const order = fns.map((f) => f.name);
  const bare = sizes.find((s) => s.name === BARE_WORKER.name);
  if (bare) sizes.splice(sizes.indexOf(bare), 1);
  sizes.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  const startup = await measureStartup([...(bare ? [bare.name] : []), ...sizes.map((s) => s.name)]);
  for (const s of sizes) s.startupMs = startup.get(s.name);
  const table = sizeTable(sizes);
  console.log(`\n${table}\n`);
  const bareMs = startup.get(BARE_WORKER.name);
  for (const s of sizes)
    console.log(
      s.startupMs === undefined || bareMs === undefined
        ? `startup ${s.name}: not measured`
        : startupLine(s.name, s.startupMs, bareMs),
    );
  if (values.markdown) writeFileSync(values.markdown, `${table}\n`);
  const over = sizes.filter((s) => s.gzip > BUDGET_GZIP_BYTES).map((s) => s.name);
  if (over.length > 0) console.error(`over the ${kib(BUDGET_GZIP_BYTES)} gzipped budget: ${over.join(', ')}`);
  const slow = sizes.filter((s) => !((s.startupMs ?? 0) <= STARTUP_LIMIT_MS)).map((s) => s.name);
  if (slow.length > 0)
    console.error(`startup over ${STARTUP_LIMIT_MS} ms (or not measured): ${slow.join(', ')}`);
  if (failures.length > 0) console.error(`bundling failed: ${failures.join(', ')}`);
  if (over.length > 0 || slow.length > 0 || failures.length > 0) process.exit(1);
}

await main();
