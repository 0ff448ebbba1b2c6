// `npm run check:generators`: the SDK generators integrators use, held to the public document.
// For each tool (pinned in scripts/generators/package.json and its lockfile, installed once into
// node_modules/.cache/openapi-generators/<hash>, never into the project): generate from the document
// as served by the embedded runtime on port 0, into a fresh project made with `tsc --init --strict`;
// compile it; then run scripts/generators/calls/<tool>.ts against that server: list, create and read
// a ticket, a 401 and a 422, each answer checked with the generated schemas or types (the zod
// clients' files are imported, so one that throws when loaded fails here). Prints a table; exits 1
// on any failure, with the tool's own output.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { signDashboardToken } from '../../shared/auth/jwt';
import { loadConfig } from '../../shared/env';
import { createEmbeddedRuntime } from '../embedded';
import { seedDemoTenant } from '../seed';

const ROOT = join(import.meta.dirname, '..', '..');
const HERE = import.meta.dirname;
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

interface Tool {
  /** the npm package, whose pinned version the table prints */
  pkg: string;
  /** the call script in calls/ (also the name in the table) */
  name: string;
  /** files to write into the project before generating (a config file) */
  files?: (ctx: { base: string }) => Record<string, string>;
  /** the generator's command line, run in the project (bin from the tools' node_modules) */
  generate: string[];
  /**
   * `tsc --init` flags beyond `--strict`, each with why: only where the tool's own runtime (files it
   * copies, not generated from the document) does not compile with a default.
   */
  tscFlags?: { flags: string[]; why: string };
  /** packages its output imports under another installed name (`zod` -> `zod-v3`), and why */
  packages?: { names: Record<string, string>; why: string };
}

/** Every tool writes into gen/ (the call scripts import from there) and emits `.js` import suffixes where it can. */
const TOOLS: Tool[] = [
  {
    pkg: '@hey-api/openapi-ts',
    name: 'hey-api',
    files: () => ({
      'openapi-ts.config.mjs': `export default {
  input: './openapi.json',
  output: { path: './gen', importFileExtension: '.js' },
  plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
};\n`,
    }),
    generate: ['openapi-ts', '-f', 'openapi-ts.config.mjs'],
    tscFlags: {
      flags: ['--exactOptionalPropertyTypes', 'false'],
      why: 'its bundled fetch runtime (gen/client/*, the same for any document) assigns `undefined` to optional properties',
    },
  },
  {
    pkg: 'orval',
    name: 'orval',
    files: ({ base }) => ({
      'orval.config.mjs': `export default {
  fetch: {
    input: './openapi.json',
    output: { target: './gen/fetch.ts', client: 'fetch', mode: 'single', baseUrl: ${JSON.stringify(base)} },
  },
  zod: { input: './openapi.json', output: { target: './gen/zod.ts', client: 'zod', mode: 'single' } },
};\n`,
    }),
    generate: ['orval', '--config', 'orval.config.mjs'],
  },
  {
    pkg: 'openapi-zod-client',
    name: 'openapi-zod-client',
    generate: [
      'openapi-zod-client',
      './openapi.json',
      '-o',
      './gen/schemas.ts',
      '--export-schemas',
      '--template',
      // the template ships with the CLI; the option takes its path
      './node_modules/openapi-zod-client/src/templates/schemas-only.hbs',
    ],
    packages: {
      names: { zod: 'zod-v3' },
      why: 'it writes zod 3 code (`z.record(value)`), which zod 4 refuses',
    },
  },
  {
    pkg: 'swagger-typescript-api',
    name: 'swagger-typescript-api',
    generate: ['swagger-typescript-api', 'generate', '-p', './openapi.json', '-o', './gen', '-n', 'api.ts'],
  },
  {
    pkg: 'openapi-typescript',
    name: 'openapi-typescript',
    generate: ['openapi-typescript', './openapi.json', '-o', './gen/schema.ts'],
  },
];

/**
 * A command's exit and output. Asynchronous: the server the call scripts reach runs in this process,
 * and a synchronous child would hold its event loop.
 */
function run(
  cmd: string,
  args: string[],
  cwd: string,
): Promise<{ ok: boolean; out: string; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    const done = (ok: boolean, extra = '') =>
      resolve({ ok, out: out + extra, seconds: (performance.now() - started) / 1000 });
    child.on('error', (e) => done(false, String(e)));
    child.on('close', (code) => done(code === 0));
  });
}

/** The tools' install, keyed by the manifest and lockfile: made once, reused by every later run. */
async function toolsDir(): Promise<string> {
  const manifest = readFileSync(join(HERE, 'package.json'));
  const lock = readFileSync(join(HERE, 'package-lock.json'));
  const hash = createHash('sha256').update(manifest).update(lock).digest('hex').slice(0, 12);
  const dir = join(ROOT, 'node_modules', '.cache', 'openapi-generators', hash);
  if (existsSync(join(dir, 'node_modules', '.package-lock.json'))) return dir;
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(HERE, 'package.json'), join(dir, 'package.json'));
  copyFileSync(join(HERE, 'package-lock.json'), join(dir, 'package-lock.json'));
  console.log(`installing the generators (once) into ${dir}`);
  const res = await run(
    'npm',
    ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
    dir,
  );
  if (!res.ok) throw new Error(`npm ci of the generators failed:\n${res.out}`);
  // an install of other versions is not used again
  for (const old of readdirSync(join(dir, '..')))
    if (old !== hash) rmSync(join(dir, '..', old), { recursive: true, force: true });
  return dir;
}

/** The embedded runtime on port 0, with an API key that may read and write tickets. */
async function startServer() {
  const config = loadConfig({
    APP_ENV: 'test',
    LOG_LEVEL: 'error',
    DASHBOARD_JWT_SECRET: 'generator-matrix-secret-0123456789abcdef',
    INTERNAL_API_TOKEN: 'generator-matrix-internal-token-0123456789',
  });
  const runtime = await createEmbeddedRuntime({ config, inMemory: true });
  const tenant = await seedDemoTenant(runtime.services.db);
  const server = serve({ fetch: runtime.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const admin = await signDashboardToken(config.DASHBOARD_JWT_SECRET!, {
    sub: 'user_generators',
    tenant_id: tenant.id,
    role: 'tenant_admin',
  });
  const created = await fetch(`${base}/api/v1/api-keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'generator matrix', scopes: ['tickets:read', 'tickets:write'] }),
  });
  if (created.status !== 201)
    throw new Error(`creating the API key: ${created.status} ${await created.text()}`);
  const apiKey = ((await created.json()) as { api_key: string }).api_key;
  const close = async () => {
    server.close();
    await runtime.close();
  };
  return { base, apiKey, close };
}

/** The project's node_modules: the tools' install, with `names` resolved to other installed packages. */
function linkPackages(from: string, to: string, names: Record<string, string>) {
  if (Object.keys(names).length === 0) return symlinkSync(from, to, 'dir');
  mkdirSync(to);
  for (const entry of readdirSync(from))
    if (!(entry in names)) symlinkSync(join(from, entry), join(to, entry), 'dir');
  for (const [name, installed] of Object.entries(names))
    symlinkSync(join(from, installed), join(to, name), 'dir');
}

interface Row {
  tool: string;
  version: string;
  generate: string;
  compile: string;
  calls: string;
  problem?: string;
}

async function checkTool(
  tool: Tool,
  tools: string,
  doc: string,
  server: { base: string; apiKey: string },
): Promise<Row> {
  const version = (
    JSON.parse(readFileSync(join(tools, 'node_modules', tool.pkg, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  const row: Row = { tool: tool.name, version, generate: '-', compile: '-', calls: '-' };
  const dir = mkdtempSync(join(tmpdir(), `gen-${tool.name}-`));
  try {
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: `check-${tool.name}`, private: true, type: 'module' }),
    );
    linkPackages(join(tools, 'node_modules'), join(dir, 'node_modules'), tool.packages?.names ?? {});
    writeFileSync(join(dir, 'openapi.json'), doc);
    for (const [name, text] of Object.entries(tool.files?.(server) ?? {}))
      writeFileSync(join(dir, name), text);
    // some tools write into gen/ only if it exists
    mkdirSync(join(dir, 'gen'));
    const bin = join(tools, 'node_modules', '.bin');
    const [cmd, ...args] = tool.generate as [string, ...string[]];
    const gen = await run(join(bin, cmd), args, dir);
    row.generate = `${gen.seconds.toFixed(1)} s`;
    if (!gen.ok) return { ...row, generate: 'FAIL', problem: gen.out };
    // an integrator's new project: `tsc --init` as it ships, with strict on
    const init = await run(join(bin, 'tsc'), ['--init', '--strict', ...(tool.tscFlags?.flags ?? [])], dir);
    if (!init.ok) return { ...row, compile: 'FAIL', problem: init.out };
    copyFileSync(join(HERE, 'calls', `${tool.name}.ts`), join(dir, 'call.ts'));
    copyFileSync(join(HERE, 'calls', 'expect.ts'), join(dir, 'expect.ts'));
    writeFileSync(
      join(dir, 'env.ts'),
      `export const BASE_URL = ${JSON.stringify(server.base)};\nexport const API_KEY = ${JSON.stringify(server.apiKey)};\n`,
    );
    const tsc = await run(join(bin, 'tsc'), ['-p', '.', '--noEmit'], dir);
    row.compile = `${tsc.seconds.toFixed(1)} s${tool.tscFlags ? ` (${tool.tscFlags.flags.join(' ')})` : ''}`;
    if (!tsc.ok) return { ...row, compile: 'FAIL', problem: tsc.out.slice(0, 6000) };
    const call = await run(TSX, ['call.ts'], dir);
    row.calls = call.ok ? `ok (${call.out.trim().split('\n').pop()})` : 'FAIL';
    if (!call.ok) return { ...row, problem: call.out.slice(0, 6000) };
    return row;
  } finally {
    if (!process.env.KEEP_GENERATED) rmSync(dir, { recursive: true, force: true });
    else console.log(`kept ${dir}`);
  }
}

const only = process.argv.slice(2);
const tools = await toolsDir();
const server = await startServer();
const rows: Row[] = [];
try {
  const doc = await (await fetch(`${server.base}/api/v1/openapi.json`)).text();
  for (const tool of TOOLS) {
    if (only.length > 0 && !only.includes(tool.name)) continue;
    const row = await checkTool(tool, tools, doc, server);
    rows.push(row);
    console.log(
      `${row.tool}@${row.version}: generate ${row.generate}, compile ${row.compile}, calls ${row.calls}`,
    );
  }
} finally {
  await server.close();
}
const failed = rows.filter((r) => r.problem);
for (const r of failed) console.error(`\n--- ${r.tool}@${r.version} ---\n${r.problem}`);
console.log(`\n| tool | version | generate | compile (tsc --init --strict) | list, create, read, 401, 422 |`);
console.log('| --- | --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.tool} | ${r.version} | ${r.generate} | ${r.compile} | ${r.calls} |`);
if (failed.length > 0) {
  console.error(`\ncheck:generators: ${failed.length} of ${rows.length} tool(s) failed`);
  process.exit(1);
}
console.log(`\ncheck:generators: ${rows.length} tool(s) generate, compile and call the server`);
