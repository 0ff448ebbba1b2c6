// A 25 MiB file through `npm start` in its own process, sent and fetched with the typed client's
// upload helper and a streamed download: the server's resident memory must grow by less than the
// file (it streams, never holds the file whole). Also the client's Blob and stream uploads.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportClient, type SupportClient } from '../../clients/typescript/index';
import { signDashboardToken } from '../../shared/auth/jwt';

const ROOT = join(import.meta.dirname, '..', '..');
const MiB = 1024 * 1024;
const SIZE = 25 * MiB;

/** Resident memory of a process and its children (tsx runs the server in a child node), in bytes. */
function rssOf(pid: number): number {
  const own = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    /* gone */
  }
  return own + children.reduce((sum, c) => sum + rssOf(c), 0);
}

/** The highest resident memory seen while `work` runs (sampled every 10 ms). */
async function peakRss(pid: number, work: () => Promise<void>): Promise<number> {
  let peak = rssOf(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssOf(pid));
}

/** `size` deterministic bytes, produced a chunk at a time as they are pulled, and their sha256. */
function bytesStream(size: number) {
  const hash = createHash('sha256');
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= size) return c.close();
      const chunk = new Uint8Array(Math.min(256 * 1024, size - sent)).fill(sent % 251);
      sent += chunk.byteLength;
      hash.update(chunk);
      c.enqueue(chunk);
    },
  });
  return { stream, digest: () => hash.digest('hex') };
}

describe('files streamed through npm start (separate process)', () => {
  let server: ChildProcess;
  let out = '';
  let dir: string;
  let client: SupportClient;
  let ticket: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'files-stream-'));
    server = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/serve.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dir,
        DATABASE_URL: '',
        APP_ENV: 'development',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout?.on('data', (b: Buffer) => (out += b.toString()));
    server.stderr?.on('data', (b: Buffer) => (out += b.toString()));
    // PGlite migrates a fresh DATA_DIR at start: minutes on a busy machine
    const until = Date.now() + 480_000;
    while (!/listening on http/.test(out)) {
      if (server.exitCode !== null) throw new Error(`npm start exited:\n${out}`);
      if (Date.now() > until) throw new Error(`npm start did not listen:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const base = /listening on (http:\/\/\S+)/.exec(out)![1]!;
    const tenant = /Demo tenant:\s+(ten_\S+)/.exec(out)![1]!;
    const admin = await signDashboardToken('dev-dashboard-jwt-secret-change-me', {
      sub: 'user_admin',
      tenant_id: tenant,
      role: 'tenant_admin',
    });
    const keyRes = await fetch(`${base}/api/v1/api-keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'stream', scopes: ['tickets:read', 'tickets:write'] }),
    });
    const { api_key } = (await keyRes.json()) as { api_key: string };
    client = createSupportClient({ baseUrl: base, apiKey: api_key, retry: false });
    const { data } = await client.POST('/api/v1/tickets', { body: { subject: 'Big files' } });
    ticket = data!.id;
  }, 500_000);
  afterAll(() => {
    server?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('a 25 MiB upload and download: resident memory grows by less than the file', async () => {
    const pid = server.pid!;
    // warm: the first upload loads the code paths it needs
    await client.upload(`/api/v1/tickets/${ticket}/attachments`, bytesStream(MiB).stream, {
      filename: 'warm.bin',
      size: MiB,
    });
    const before = rssOf(pid);
    const { stream, digest } = bytesStream(SIZE);
    let uploaded: Awaited<ReturnType<SupportClient['upload']>> | undefined;
    const upPeak = await peakRss(pid, async () => {
      uploaded = await client.upload(`/api/v1/tickets/${ticket}/attachments`, stream, {
        filename: 'big.bin',
        size: SIZE,
      });
    });
    expect(uploaded!.size).toBe(SIZE);
    expect(uploaded!.sha256).toBe(digest());
    const got = createHash('sha256');
    let size = 0;
    const downPeak = await peakRss(pid, async () => {
      const res = await fetch(uploaded!.download_url);
      const reader = res.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        got.update(value);
      }
    });
    expect(size).toBe(SIZE);
    expect(got.digest('hex')).toBe(uploaded!.sha256);
    console.log(
      `rss before ${(before / MiB).toFixed(1)} MiB, upload peak +${((upPeak - before) / MiB).toFixed(1)} MiB, download peak +${((downPeak - before) / MiB).toFixed(1)} MiB (file ${SIZE / MiB} MiB)`,
    );
    expect(upPeak - before).toBeLessThan(SIZE);
    expect(downPeak - before).toBeLessThan(SIZE);
  }, 180_000);
});
