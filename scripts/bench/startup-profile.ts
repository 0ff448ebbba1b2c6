// `npm run bench:startup-profile [worker ...]`: where each Worker's startup goes. Imports each built
// bundle (dist/bundles/<name>/index.js, made by `npm run build:edge`) in fresh Node processes under
// `--cpu-prof`, keeps the samples taken inside module evaluation (what workerd's startup figure
// counts; parsing and compiling are left out there too) and gives each to the package of its
// innermost frame that the bundle's source map names. The bundler hoists every module's top-level
// statements into one scope, which the profile cannot split by file: that share is printed as
// "the bundle's own top level".
//
//   STARTUP_PROFILE_RUNS (default 6 processes per Worker)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLE_DIR } from '../edge/config';
import { type Profile, samplesByPackage } from '../lib/cpu-profile';

const RUNS = Number(process.env.STARTUP_PROFILE_RUNS ?? 6);
const workers = process.argv.slice(2).length
  ? process.argv.slice(2)
  : readdirSync(BUNDLE_DIR).filter((n) => !n.startsWith('__'));

function profileWorker(name: string): { evaluationMs: number; byPackage: Map<string, number> } {
  const bundle = join(BUNDLE_DIR, name, 'index.js');
  const dir = mkdtempSync(join(tmpdir(), `startup-${name}-`));
  const entry = join(dir, 'import.mjs');
  writeFileSync(entry, `await import(${JSON.stringify(bundle)});\n`);
  try {
    for (let run = 0; run < RUNS; run++)
      execFileSync(process.execPath, [
        '--cpu-prof',
        `--cpu-prof-dir=${dir}`,
        '--cpu-prof-interval',
        '100',
        entry,
      ]);
    const profiles = readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Profile);
    // only the samples taken inside module evaluation (V8's `evaluate`, the bundle's top level below it)
    const { total, byPackage } = samplesByPackage(profiles, {
      bundle,
      inBundle: (url) => url.endsWith(`/${name}/index.js`),
      outside: "Node's own (under evaluation)",
      keep: (stack) => stack.some((f) => f.functionName === 'evaluate' && f.url === ''),
    });
    const perRun = (us: number) => us / 1000 / RUNS;
    return {
      evaluationMs: perRun(total),
      byPackage: new Map([...byPackage].map(([k, v]): [string, number] => [k, perRun(v)])),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const name of workers) {
  const { evaluationMs, byPackage } = profileWorker(name);
  const parts = [...byPackage]
    .filter(([, ms]) => ms >= 0.2)
    .map(([pkg, ms]) => `${pkg} ${ms.toFixed(1)}`)
    .join(', ');
  console.log(`startup profile ${name}: evaluation ${evaluationMs.toFixed(1)} ms: ${parts}`);
}
