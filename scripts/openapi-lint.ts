// `npm run lint:openapi`: the public OpenAPI document, as the docs function builds and serves it,
// linted by Redocly (`recommended`) and Spectral (`spectral:oas`) as an integrator's CI would run
// them. Any error or warning fails. The linters run from npx at pinned versions (neither is a
// dependency of the service; npx caches them after the first run).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApiDocument } from '../functions/docs/document';

const REDOCLY = '@redocly/cli@2.77.0';
const SPECTRAL = '@stoplight/spectral-cli@6.16.3';

const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
const file = join(dir, 'openapi.json');
writeFileSync(file, JSON.stringify(openApiDocument('public'), null, 2));
writeFileSync(join(dir, '.spectral.json'), JSON.stringify({ extends: ['spectral:oas'] }));
writeFileSync(join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
// A recording is served as a redirect to its signed link (302 only, no 2xx: the bytes come from the
// link): the one operation Redocly's operation-2xx-response is told to pass by, by its pointer.
writeFileSync(
  join(dir, '.redocly.lint-ignore.yaml'),
  "openapi.json:\n  operation-2xx-response:\n    - '#/paths/~1api~1v1~1calls~1{call_id}~1recording/get/responses'\n",
);

const run = (args: string[]) => {
  const res = spawnSync('npx', ['-y', ...args], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: res.status, out: res.stdout ?? '', err: res.stderr ?? '' };
};

const problems: string[] = [];

const redocly = run([REDOCLY, 'lint', '--format=json', 'openapi.json']);
try {
  const report = JSON.parse(redocly.out) as {
    problems: { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] }[];
  };
  for (const p of report.problems)
    problems.push(`redocly ${p.severity} ${p.ruleId}: ${p.message} (${p.location?.[0]?.pointer ?? ''})`);
} catch {
  problems.push(`redocly did not report (exit ${redocly.status}): ${redocly.err.slice(0, 2000)}`);
}

const spectral = run([SPECTRAL, 'lint', '--format=json', '--ruleset=.spectral.json', 'openapi.json']);
try {
  // spectral follows the JSON with a line of its own ("No results with a severity of ...")
  const json = spectral.out.slice(spectral.out.indexOf('['), spectral.out.lastIndexOf(']') + 1) || '[]';
  const report = JSON.parse(json) as { code: string; severity: number; message: string; path: string[] }[];
  const SEVERITY = ['error', 'warning', 'info', 'hint'];
  for (const p of report)
    if (p.severity <= 1)
      problems.push(`spectral ${SEVERITY[p.severity]} ${p.code}: ${p.message} (${p.path.join('.')})`);
  if (spectral.status !== 0 && report.length === 0)
    problems.push(`spectral failed (exit ${spectral.status}): ${spectral.err.slice(0, 2000)}`);
} catch {
  problems.push(`spectral did not report (exit ${spectral.status}): ${spectral.err.slice(0, 2000)}`);
}

rmSync(dir, { recursive: true, force: true });
if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`\nOpenAPI lint: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`OpenAPI lint: clean (${REDOCLY} recommended, ${SPECTRAL} spectral:oas)`);
