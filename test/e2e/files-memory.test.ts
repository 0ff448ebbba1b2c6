// A 25 MiB upload and download on workerd must not hold the file in memory. workerd's resident
// memory (VmRSS of the workerd processes the stack runs, every Worker lives in them) is sampled while
// the file goes in and comes back out. workerd's local R2 itself costs memory for a large object, so
// the same bytes also go through control Workers on the same bucket (scripts/edge/stack.ts,
// CONTROL_PATH): one handing request.body straight to R2, one reading every chunk in JS. Our upload
// (hashing, counting, the record in Postgres) and download may grow workerd's memory by less than the
// file's size beyond what the controls grow it by; holding the body whole would cost the file's size
// at least once more.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { call, edgeTenant, edgeUrl } from './support';

const MiB = 1024 * 1024;
const SIZE = 25 * MiB;

/** pid → parent pid and command name, for every process readable in /proc */
function processes(): { pid: number; ppid: number; comm: string }[] {
  const out: { pid: number; ppid: number; comm: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      out.push({ pid: Number(name), ppid, comm });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** The workerd processes under the process that started the stack (the e2e tier's globalSetup). */
function workerdPids(owner: number): number[] {
  const all = processes();
  const children = new Map<number, number[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const below = new Set<number>();
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      below.add(c);
      walk(c);
    }
  };
  walk(owner);
  return all.filter((p) => below.has(p.pid) && p.comm.includes('workerd')).map((p) => p.pid);
}

const rssOf = (pids: number[]) =>
  pids.reduce((sum, pid) => {
    try {
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return sum + Number(kb ?? 0) * 1024;
    } catch {
      return sum;
    }
  }, 0);

/** How far workerd's resident memory rises above where it was while `work` runs (sampled every 5 ms). */
async function growth(pids: number[], work: () => Promise<void>): Promise<number> {
  const before = rssOf(pids);
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(pids));
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssOf(pids)) - before;
}

/** `size` bytes that differ from one position to the next, and their sha256. */
function pattern(size: number, seed: number) {
  const out = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return { bytes: out, sha256: createHash('sha256').update(out).digest('hex') };
}

/** Reads a response's body chunk by chunk (never whole, in this process either) into its sha256 and size. */
async function drain(res: Response) {
  const hash = createHash('sha256');
  let size = 0;
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    hash.update(value);
  }
  return { size, sha256: hash.digest('hex') };
}

const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

describe('a 25 MiB file on workerd', () => {
  it("our upload and download grow workerd's memory by less than the file beyond the platform's own", async () => {
    const pids = workerdPids(inject('edgeOwnerPid'));
    expect(pids.length, 'workerd processes under the stack').toBeGreaterThan(0);
    const t = await edgeTenant();
    const key = await t.key(['tickets:read', 'tickets:write']);
    const ticket = await call('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'Memory' } });
    expect(ticket.status, ticket.text).toBe(201);
    const file = pattern(SIZE, 29);
    const control = (route: 'pipe' | 'chunks', name: string) => async () => {
      const put = await fetch(`${edgeUrl()}/__control/${route}?key=${name}`, {
        method: 'PUT',
        body: file.bytes,
      });
      expect(put.status, await put.text()).toBe(201);
      const got = await drain(await fetch(`${edgeUrl()}/__control/get?key=${name}`));
      expect(got).toEqual({ size: SIZE, sha256: file.sha256 });
    };
    const ours = async () => {
      const up = await fetch(`${edgeUrl()}/api/v1/tickets/${ticket.body.id}/attachments?filename=big.bin`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/octet-stream' },
        body: file.bytes,
      });
      const text = await up.text();
      expect(up.status, text).toBe(201);
      const row = JSON.parse(text) as { size: number; sha256: string; download_url: string };
      expect(row).toMatchObject({ size: SIZE, sha256: file.sha256 });
      expect(await drain(await fetch(row.download_url))).toEqual({ size: SIZE, sha256: file.sha256 });
    };
    // once each before measuring: the isolates' code, R2's local storage and workerd's pools warm
    await control('pipe', 'memory/warm-pipe')();
    await ours();
    const pipe = await growth(pids, control('pipe', 'memory/pipe'));
    const chunks = await growth(pids, control('chunks', 'memory/chunks'));
    const api = await growth(pids, ours);
    console.log(
      `[files-memory] workerd RSS growth for 25 MiB in and out: ours ${mib(api)}; controls: R2 put of request.body ${mib(pipe)}, chunks read in JS ${mib(chunks)}`,
    );
    // against the least the platform costs (R2 taking request.body): the stricter of the two
    expect(api - pipe, `ours ${mib(api)} vs the platform's ${mib(pipe)}`).toBeLessThan(SIZE);
  }, 120_000);
});
