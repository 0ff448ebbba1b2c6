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
import { SourceMapConsumer } from 'source-map-js';
import { BUNDLE_DIR } from '../edge/config';

const RUNS = Number(process.env.STARTUP_PROFILE_RUNS ?? 6);
const workers = process.argv.slice(2).length
  ? process.argv.slice(2)
  : readdirSync(BUNDLE_DIR).filter((n) => !n.startsWith('__'));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** `node_modules/@scope/pkg/...` → `@scope/pkg`; our files → "ours" */
function packageOf(source: string | null): string {
  if (!source) return "the bundle's own top level";
  const inModules = source.split('node_modules/').pop() ?? source;
  if (inModules === source) return 'ours';
  const parts = inModules.split('/');
  return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? source);
}

function profileWorker(name: string): { evaluationMs: number; byPackage: Map<string, number> } {
  const bundle = join(BUNDLE_DIR, name, 'index.js');
  const map = new SourceMapConsumer(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')));
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
    const byPackage = new Map<string, number>();
    let total = 0;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
      const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
      const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
      const parent = new Map<number, number>();
      for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
      profile.samples.forEach((sample, i) => {
        let inEvaluation = false;
        let innermost: string | undefined;
        for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
          const frame = nodes.get(id)?.callFrame;
          if (!frame) break;
          if (frame.functionName === 'evaluate' && frame.url === '') inEvaluation = true;
          if (innermost === undefined && frame.url.endsWith(`/${name}/index.js`))
            innermost = packageOf(
              map.originalPositionFor({ line: frame.lineNumber + 1, column: frame.columnNumber }).source,
            );
        }
        if (!inEvaluation) return;
        const us = profile.timeDeltas[i] ?? 0;
        total += us;
        const key = innermost ?? "Node's own (under evaluation)";
        byPackage.set(key, (byPackage.get(key) ?? 0) + us);
      });
    }
    const perRun = (us: number) => us / 1000 / RUNS;
    return {
      evaluationMs: perRun(total),
      byPackage: new Map(
        [...byPackage].map(([k, v]): [string, number] => [k, perRun(v)]).sort((a, b) => b[1] - a[1]),
      ),
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
