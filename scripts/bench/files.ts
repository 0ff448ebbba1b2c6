// The upload case of `npm run bench` (scripts/bench/run.ts calls it; BENCH_CASES including `u`):
// 1 MiB files uploaded through the whole stack (front door, gate, the upload handler streaming into
// storage with its sha256 and caps, the record in the database) beside its ceiling, a raw write of
// the same bytes to the same storage (`put` of the folder adapter, nothing else). In-process, as
// `npm start` runs, so both sides write the same disk: the record in an in-memory PGlite (`npm
// start`'s default) or in a throwaway database on this machine's Postgres (DATABASE_URL set), as
// BENCH_DB says. Figures, not assertions.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signDashboardToken } from '../../shared/auth/jwt';
import { loadConfig } from '../../shared/env';
import { createNodeLogger } from '../../shared/log/logger.node.js';
import { createEmbeddedRuntime } from '../embedded';
import { adminQuery, BENCH_SECRETS, benchDatabaseUrl } from './postgres';

const FILE = 1024 * 1024;
const TARGET = 0.5;

async function timed(n: number, once: (i: number) => Promise<void>) {
  const started = performance.now();
  for (let i = 0; i < n; i++) await once(i);
  return (performance.now() - started) / n;
}

/** A tenant, its admin's session and a ticket to upload to, made through the API. */
async function uploadTarget(
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
  secret: string,
) {
  const superToken = await signDashboardToken(secret, {
    sub: 'bench',
    tenant_id: 'platform',
    role: 'super_admin',
  });
  const json = { 'Content-Type': 'application/json' };
  const tenant = (await (
    await app.request('/api/v1/tenants', {
      method: 'POST',
      headers: { ...json, Authorization: `Bearer ${superToken}` },
      body: JSON.stringify({ name: 'Bench files', plan: 'enterprise', environment: 'production' }),
    })
  ).json()) as { id: string };
  const admin = await signDashboardToken(secret, {
    sub: 'bench_admin',
    tenant_id: tenant.id,
    role: 'tenant_admin',
  });
  const ticket = (await (
    await app.request('/api/v1/tickets', {
      method: 'POST',
      headers: { ...json, Authorization: `Bearer ${admin}` },
      body: JSON.stringify({ subject: 'Bench uploads' }),
    })
  ).json()) as { id: string };
  return { admin, ticket };
}

/** Where the records go: nothing to set up on PGlite, a database of its own on Postgres. */
async function recordsDatabase(mode: 'pglite' | 'postgres') {
  if (mode === 'pglite') return { env: {}, remove: async () => {} };
  const name = `spa_bench_files_${Date.now().toString(36)}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  return {
    env: { DATABASE_URL: benchDatabaseUrl(name) },
    remove: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

export async function benchUploads(
  mode: 'pglite' | 'postgres' = 'pglite',
  files = Number(process.env.BENCH_FILES ?? 40),
) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-files-'));
  const database = await recordsDatabase(mode);
  const config = loadConfig({
    ...BENCH_SECRETS,
    ...database.env,
    APP_ENV: 'test',
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
  });
  const runtime = await createEmbeddedRuntime({
    config,
    inMemory: true,
    logger: createNodeLogger({ level: 'silent' }),
  });
  try {
    const app = runtime.app;
    const { admin, ticket } = await uploadTarget(app, config.DASHBOARD_JWT_SECRET);
    const bytes = new Uint8Array(FILE).map((_, i) => i % 251);
    const body = () =>
      new ReadableStream<Uint8Array>({
        start(c) {
          for (let at = 0; at < FILE; at += 64 * 1024) c.enqueue(bytes.subarray(at, at + 64 * 1024));
          c.close();
        },
      });
    const storage = runtime.services.files!.objects;
    const upload = async () => {
      const res = await app.request(`/api/v1/tickets/${ticket.id}/attachments?filename=bench.bin`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${admin}`, 'Content-Length': String(FILE) },
        body: body(),
        duplex: 'half',
      } as RequestInit);
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };
    const raw = (i: number) =>
      storage.put(`bench/raw-${i}`, body(), { size: FILE, contentType: 'application/octet-stream' });
    await upload(); // warm both paths
    await raw(-1);
    let best = { upload: Number.POSITIVE_INFINITY, raw: Number.POSITIVE_INFINITY };
    for (let round = 0; round < 3; round++) {
      const r = await timed(files, (i) => raw(round * files + i));
      const u = await timed(files, upload);
      best = { upload: Math.min(best.upload, u), raw: Math.min(best.raw, r) };
    }
    const tiny = await timed(files, async () => {
      const res = await app.request(`/api/v1/tickets/${ticket.id}/attachments?filename=tiny.bin`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${admin}`, 'Content-Length': '1' },
        body: 'x',
      });
      await res.arrayBuffer();
    });
    console.log(
      `\n[files ${mode}] a 1-byte upload through the API: ${tiny.toFixed(2)} ms (the per-request part)`,
    );
    const ratio = best.raw / best.upload;
    console.log(
      `[files ${mode}] (u) 1 MiB upload through the API ${best.upload.toFixed(2)} ms/file; ceiling (u0) raw write of the same bytes to the same storage (${storage.kind}) ${best.raw.toFixed(2)} ms/file`,
    );
    console.log(
      `(u)/(u0) = ${ratio.toFixed(2)}  target >= ${TARGET.toFixed(2)}  ${ratio >= TARGET ? 'MET' : 'MISSED'}`,
    );
  } finally {
    await runtime.close();
    await database.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}
