// `npm run build:edge`: bundles every function of the manifest the way `wrangler deploy` would
// (`wrangler deploy --dry-run --minify --outdir dist/bundles/<name>`), two at a time, prints each
// bundle's raw and gzipped size and fails if one exceeds the budget (200 KiB gzipped).
//   npm run build:edge [-- --only tickets,calls] [-- --markdown dist/bundle-sizes.md]
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import {
  BUDGET_GZIP_BYTES,
  BUNDLE_DIR,
  functionsNamed,
  prepareDocsAssets,
  ROOT,
  writeFunctionConfig,
} from './edge/config';

const { values } = parseArgs({
  options: { only: { type: 'string' }, markdown: { type: 'string' }, concurrency: { type: 'string' } },
});

export interface BundleSize {
  name: string;
  raw: number;
  gzip: number;
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

export function sizeTable(sizes: BundleSize[]): string {
  const rows = sizes.map(
    (s) =>
      `| ${s.name} | ${kib(s.raw)} | ${kib(s.gzip)} | ${s.gzip <= BUDGET_GZIP_BYTES ? 'ok' : '**over budget**'} |`,
  );
  return [
    `| function | minified | gzipped | budget ${kib(BUDGET_GZIP_BYTES)} gz |`,
    '|---|---:|---:|---|',
    ...rows,
  ].join('\n');
}

async function main() {
  const fns = functionsNamed(values.only);
  if (fns.some((f) => f.name === 'docs')) prepareDocsAssets();
  const queue = fns.map((fn) => ({ name: fn.name, config: writeFunctionConfig(fn) }));
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
  sizes.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  const table = sizeTable(sizes);
  console.log(`\n${table}\n`);
  if (values.markdown) writeFileSync(values.markdown, `${table}\n`);
  const over = sizes.filter((s) => s.gzip > BUDGET_GZIP_BYTES).map((s) => s.name);
  if (over.length > 0) console.error(`over the ${kib(BUDGET_GZIP_BYTES)} gzipped budget: ${over.join(', ')}`);
  if (failures.length > 0) console.error(`bundling failed: ${failures.join(', ')}`);
  if (over.length > 0 || failures.length > 0) process.exit(1);
}

await main();
