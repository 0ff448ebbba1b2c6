// `npm run deploy -- --env staging|production [--only <name>[,<name>]] [--dry-run] [--secrets] [--migrate]`
// One `wrangler deploy` per function of the manifest, with the config generated from wrangler.toml
// and the manifest (scripts/edge/config.ts): Worker `spa-<name>-<env>`, routes on the environment's
// API hostname by path prefix. Needs CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID (docs/deploy.md).
//   --secrets   first `wrangler secret bulk` the secrets below from this shell's environment
//   --migrate   first apply schema/ to DATABASE_URL (Workers never migrate)
//   --dry-run   bundle only (what CI runs offline)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BUNDLE_DIR,
  ENVIRONMENTS,
  type Environment,
  functionsNamed,
  prepareDocsAssets,
  ROOT,
  workerName,
  writeFunctionConfig,
} from './edge/config';
import { prepareDocsWorker } from './edge/docs-worker';

/** What every Worker needs as a secret (wrangler.toml carries only non-secret vars). */
export const SECRETS = [
  'DATABASE_URL',
  'DASHBOARD_JWT_SECRET',
  'INTERNAL_API_TOKEN',
  'API_KEY_HASH_SECRET',
  'WEBHOOK_ENCRYPTION_KEY',
  'END_USER_JWT_SECRET',
  'UPSTASH_REDIS_REST_URL',
  'UPSTASH_REDIS_REST_TOKEN',
  'QSTASH_TOKEN',
  'QSTASH_CURRENT_SIGNING_KEY',
  'QSTASH_NEXT_SIGNING_KEY',
  'VOICE_WIDGET_SECRET',
  // the mail API (invites, password resets); MAIL_FROM is a plain var
  'MAIL_API_URL',
  'MAIL_API_KEY',
] as const;

/** Put only where set: the QStash region's own token and signing keys (QSTASH_REGION is a plain var). */
const REGION_SECRETS = ['EU_CENTRAL_1', 'US_EAST_1'].flatMap((region) =>
  ['QSTASH_TOKEN', 'QSTASH_CURRENT_SIGNING_KEY', 'QSTASH_NEXT_SIGNING_KEY'].map(
    (name) => `${region}_${name}`,
  ),
);

const { values } = parseArgs({
  options: {
    env: { type: 'string' },
    only: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    secrets: { type: 'boolean', default: false },
    migrate: { type: 'boolean', default: false },
  },
});

function run(args: string[], stdin?: string): Promise<number> {
  return new Promise((resolveRun) => {
    const child = spawn(join(ROOT, 'node_modules', '.bin', 'wrangler'), args, {
      cwd: ROOT,
      stdio: [stdin === undefined ? 'inherit' : 'pipe', 'inherit', 'inherit'],
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    });
    if (stdin !== undefined) child.stdin?.end(stdin);
    child.on('close', (code) => resolveRun(code ?? 1));
  });
}

async function main() {
  const env = values.env as Environment;
  if (!ENVIRONMENTS.includes(env)) {
    console.error(`usage: npm run deploy -- --env ${ENVIRONMENTS.join('|')} [--only <function>] [--dry-run]`);
    process.exit(2);
  }
  const fns = functionsNamed(values.only);
  const dryRun = values['dry-run'];
  if (!dryRun && !process.env.CLOUDFLARE_API_TOKEN)
    console.warn('CLOUDFLARE_API_TOKEN is not set: wrangler will try an interactive login.');

  if (values.migrate && !dryRun) {
    if (!process.env.DATABASE_URL) throw new Error('--migrate needs DATABASE_URL (the Neon direct URL)');
    const code = await new Promise<number>((r) =>
      spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/migrate.ts'], {
        cwd: ROOT,
        stdio: 'inherit',
      }).on('close', (c) => r(c ?? 1)),
    );
    if (code !== 0) process.exit(code);
  }

  if (fns.some((f) => f.name === 'docs')) {
    prepareDocsAssets();
    prepareDocsWorker();
  }
  const failed: string[] = [];
  for (const fn of fns) {
    const config = writeFunctionConfig(fn);
    console.log(`\n=== ${fn.name} -> ${workerName(fn.name)}-${env}${dryRun ? ' (dry run)' : ''}`);
    if (values.secrets && !dryRun) {
      const present = Object.fromEntries(
        [...SECRETS, ...REGION_SECRETS].filter((s) => process.env[s]).map((s) => [s, process.env[s]]),
      );
      const missing = SECRETS.filter((s) => !process.env[s]);
      if (missing.length) console.warn(`not in this shell, left as they are: ${missing.join(', ')}`);
      const dir = mkdtempSync(join(tmpdir(), 'spa-secrets-'));
      const file = join(dir, 'secrets.json');
      writeFileSync(file, JSON.stringify(present), { mode: 0o600 });
      const code = await run(['secret', 'bulk', file, '--config', config, '--env', env]);
      rmSync(dir, { recursive: true, force: true });
      if (code !== 0) {
        failed.push(fn.name);
        continue;
      }
    }
    const args = ['deploy', '--config', config, '--env', env];
    if (dryRun) args.push('--dry-run', '--outdir', join(BUNDLE_DIR, `${fn.name}-${env}`));
    if ((await run(args)) !== 0) failed.push(fn.name);
  }
  if (failed.length > 0) {
    console.error(`\ndeploy failed for: ${failed.join(', ')}`);
    process.exit(1);
  }
  console.log(`\n${dryRun ? 'Bundled' : 'Deployed'} ${fns.length} function(s) to ${env}.`);
}

await main();
