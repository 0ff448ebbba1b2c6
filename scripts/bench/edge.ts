// Edge bench (`npm run bench:edge`): every function's Worker bundle in workerd (the e2e tier's stack,
// scripts/edge/stack.ts) against this machine's Postgres through the Neon SQL-over-HTTP endpoint
// and Redis through the Upstash REST stand-in, each round trip delayed by a set RTT. Each case runs
// at every RTT of EDGE_RTTS in one run (so the machine's speed cancels out of the slope), on the HTTP
// path (production; EDGE_TRANSPORTS=http,websocket adds the WebSocket Pool of old for comparison).
// Per case and RTT, one line in the contract's form (docs/benchmarks.md, "edge bench") and a line of detail
// (round trips after the response, workerd CPU per request, the trace of where the latency went);
// then per case its p50 at each RTT and the slope `(p50 at max - p50 at 0) / max` against its target
// (docs/benchmarks.md, "edge targets"). Before each case at each RTT, the same number of requests go
// to a bare Hono Worker (scripts/edge/bare/index.ts) in the same workerd, measured the same way:
// per case one line puts the case's workerd CPU per request beside the bare Worker's, with the ratio
// against its target.
//
//   EDGE_RTTS (default "0,20,60")   EDGE_REQUESTS (default 40 per case, RTT and path)
//   EDGE_TRANSPORTS (default "http")   BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres)
//   EDGE_PROFILE=<dir>: a CPU profile of each case's Worker (and of the bare Worker) over its
//   requests at the first RTT, taken through workerd's inspector and written there as
//   <case>.cpuprofile, with one line per case of where its samples went by package (profiling
//   slows the Worker: the CPU figures of such a run do not compare with another's)
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import pg from 'pg';
import { signDashboardToken } from '../../shared/auth/jwt';
import { newId } from '../../shared/ids';
import { BARE_WORKER, BUNDLE_DIR } from '../edge/config';
import { CPU_RATIO_TARGETS, cpuLine } from '../edge/floor';
import { workerProfiler } from '../edge/inspector';
import { freshSecrets, startEdgeStack } from '../edge/stack';
import { redisReachable, startUpstashRestAdapter } from '../edge/upstash-rest';
import { type Profile, samplesByPackage } from '../lib/cpu-profile';

const ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RTTS = (process.env.EDGE_RTTS ?? '0,20,60').split(',').map(Number);
const N = Number(process.env.EDGE_REQUESTS ?? 40);
const WARMUP = 5;
const TRANSPORTS = (process.env.EDGE_TRANSPORTS ?? 'http').split(',') as ('http' | 'websocket')[];
const PROFILE_DIR = process.env.EDGE_PROFILE;
const CALLBACK_PATH = '/api/internal/webhooks/qstash';
/** a webhook destination that refuses at once: the bookkeeping is what is measured, not the subscriber */
const HOOK_URL = 'https://127.0.0.1:9/hook';

interface Case {
  name: string;
  /** the function whose Worker serves it (the one EDGE_PROFILE profiles) */
  worker: string;
  /** the latency each millisecond of RTT may add at the p50 (docs/benchmarks.md, "edge targets") */
  slope: number;
  /** prepares the i-th request (signing, outside the timing) and returns the call to time */
  request(i: number): Promise<() => Promise<Response>> | (() => Promise<Response>);
  expect: number;
}

/** a port nothing listens on now */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/** CPU seconds (user + system) of the workerd processes this bench started (Miniflare's children). */
function workerdCpuMs(): number {
  const tick = 100; // USER_HZ on Linux
  let total = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      if (comm !== 'workerd' || Number(fields[1]) !== process.pid) continue;
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / tick;
    } catch {
      /* gone */
    }
  }
  return total;
}

async function sha256Base64url(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Buffer.from(digest).toString('base64url');
}

async function qstashSignature(body: string, key: string, url: string) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ body: await sha256Base64url(body) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('Upstash')
    .setSubject(url)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + 300)
    .setJti(`jwt_${crypto.randomUUID()}`)
    .sign(new TextEncoder().encode(key));
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one benchmark run: the stack, its seeding and every case share one set-up, in the order they print
async function runTransport(transport: 'http' | 'websocket') {
  const upstash = await startUpstashRestAdapter();
  const port = await freePort();
  const secrets = freshSecrets();
  const base = `http://127.0.0.1:${port}`;
  const signingKey = `sig_${crypto.randomUUID().replaceAll('-', '')}`;
  const inspectorPort = PROFILE_DIR ? await freePort() : undefined;
  const stack = await startEdgeStack({
    inspectorPort,
    adminUrl: ADMIN,
    secrets,
    port,
    bare: true,
    extraBindings: {
      UPSTASH_REDIS_REST_URL: upstash.url,
      UPSTASH_REDIS_REST_TOKEN: upstash.token,
      NEON_TRANSPORT: transport,
      WEBHOOK_SSRF_ALLOW: '127.0.0.1',
      QSTASH_CURRENT_SIGNING_KEY: signingKey,
      QSTASH_NEXT_SIGNING_KEY: `${signingKey}n`,
      PUBLIC_BASE_URL: base,
      // the access log would interleave with the results
      LOG_LEVEL: 'warn',
    },
  });
  const direct = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
  try {
    const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
      fetch(`${stack.url}${path}`, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
    const ok = async (res: Response, status: number, what: string) => {
      const text = await res.text();
      if (res.status !== status) throw new Error(`${what}: ${res.status} ${text}`);
      return text ? JSON.parse(text) : null;
    };

    // set-up at zero distance: a tenant, its key, one webhook subscription and 25 tickets
    const root = await signDashboardToken(secrets.DASHBOARD_JWT_SECRET, {
      sub: 'bench_root',
      tenant_id: 'platform',
      role: 'super_admin',
    });
    const tenant = await ok(
      await call(
        'POST',
        '/api/v1/tenants',
        { authorization: `Bearer ${root}` },
        { name: 'Edge bench', plan: 'enterprise', environment: 'production' },
      ),
      201,
      'tenant',
    );
    const admin = await signDashboardToken(secrets.DASHBOARD_JWT_SECRET, {
      sub: 'bench_admin',
      tenant_id: tenant.id,
      role: 'tenant_admin',
    });
    const { api_key: apiKey } = await ok(
      await call(
        'POST',
        '/api/v1/api-keys',
        { authorization: `Bearer ${admin}` },
        { name: 'bench', scopes: ['tickets:read', 'tickets:write'] },
      ),
      201,
      'api key',
    );
    const hook = await ok(
      await call(
        'POST',
        '/api/v1/webhooks',
        { authorization: `Bearer ${admin}` },
        { name: 'bench', description: 'bench', url: HOOK_URL, events: ['ticket.created'] },
      ),
      201,
      'webhook',
    );
    const key = { 'x-api-key': apiKey };
    const ids: string[] = [];
    for (let i = 0; i < 25; i++)
      ids.push(
        (
          await ok(
            await call('POST', '/api/v1/tickets', key, { subject: `Seed ${i}`, description: 'seed' }),
            201,
            'seed',
          )
        ).id,
      );
    // the deliveries the callback case claims, one per request: attempt 1 due now
    const deliveries: string[] = [];
    for (let i = 0; i < (N + WARMUP) * RTTS.length; i++) {
      const id = newId('delivery');
      deliveries.push(id);
      await direct.query(
        `INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_id, event_type, payload, event_created_at, next_attempt_at)
         VALUES ($1, $2, $3, $4, 'ticket.created', '{}'::jsonb, now(), now() - interval '1 second')`,
        [id, tenant.id, hook.id, newId('event')],
      );
    }
    await sleep(500); // the seeds' deferred deliveries

    const cases: Case[] = [
      {
        name: 'ticket-read',
        worker: 'tickets',
        slope: 1.15,
        expect: 200,
        request: (i) => () => call('GET', `/api/v1/tickets/${ids[i % ids.length]}`, key),
      },
      {
        name: 'ticket-list',
        worker: 'tickets',
        slope: 1.15,
        expect: 200,
        request: () => () => call('GET', '/api/v1/tickets?limit=20', key),
      },
      {
        name: 'ticket-create',
        worker: 'tickets',
        slope: 2.15,
        expect: 201,
        request: (i) => () =>
          call('POST', '/api/v1/tickets', key, { subject: `Bench ${i}`, description: 'bench' }),
      },
      {
        name: 'delivery-bookkeeping',
        worker: 'webhooks',
        slope: 2.15,
        expect: 200,
        request: async (i) => {
          const body = JSON.stringify({ delivery_id: deliveries[i], attempt: 1 });
          const signature = await qstashSignature(body, signingKey, `${base}${CALLBACK_PATH}`);
          return () => call('POST', CALLBACK_PATH, { 'upstash-signature': signature }, body);
        },
      },
    ];

    const counters = () => ({
      pg: stack.endpoint.requests + stack.proxy.roundTrips(),
      redis: upstash.requests,
      sockets: stack.proxy.connections(),
    });
    /** waits until no round trip has started for a while: the request's deferred work is done */
    const settle = async (rtt: number) => {
      let last = JSON.stringify(counters());
      for (;;) {
        await sleep(Math.max(3 * rtt, 60));
        const now = JSON.stringify(counters());
        if (now === last) return;
        last = now;
      }
    };

    /**
     * The floor: N requests to the bare Worker, each followed by the same settle as a case's, and
     * the workerd CPU they took (the same processes, counted the same way).
     */
    const bareCpuMs = async (rtt: number, profileAs?: string) => {
      for (let w = 0; w < WARMUP; w++) await ok(await call('GET', BARE_WORKER.path, {}), 200, 'bare');
      const profiling = profileAs ? await startProfile(BARE_WORKER.name) : null;
      const cpu0 = workerdCpuMs();
      for (let i = 0; i < N; i++) {
        await ok(await call('GET', BARE_WORKER.path, {}), 200, 'bare');
        await settle(rtt);
      }
      const spent = workerdCpuMs() - cpu0;
      if (profiling && profileAs) await profiling(profileAs);
      return spent;
    };
    /** EDGE_PROFILE: profiles `worker` from now; the returned call stops, writes and prints it */
    const startProfile = async (worker: string) => {
      if (!PROFILE_DIR || inspectorPort === undefined) return null;
      const profiler = await workerProfiler(inspectorPort, worker);
      await profiler.start();
      return async (label: string) => {
        const profile = await profiler.stop();
        profiler.close();
        mkdirSync(PROFILE_DIR, { recursive: true });
        writeFileSync(join(PROFILE_DIR, `${label}.cpuprofile`), JSON.stringify(profile));
        console.log(profileLine(label, worker, profile));
      };
    };
    /** per case, workerd CPU (ms) over every RTT: its own requests' and the bare Worker's beside them */
    const cpuOf = new Map<string, { own: number; bare: number }>();

    const lines: string[] = [];
    const p50s = new Map<string, Map<number, number>>();
    const tripsAt = new Map<string, string>();
    let di = 0;
    for (const rtt of RTTS) {
      stack.endpoint.delayMs = rtt;
      stack.proxy.delayMs = rtt;
      upstash.delayMs = rtt;
      for (const c of cases) {
        const next = () => (c.name === 'delivery-bookkeeping' ? di++ : di);
        const first = rtt === RTTS[0];
        const bareMs = await bareCpuMs(rtt, first && c === cases[0] ? 'bare' : undefined);
        for (let w = 0; w < WARMUP; w++) {
          const res = await (await c.request(next()))();
          if (res.status !== c.expect) throw new Error(`${c.name}: ${res.status} ${await res.text()}`);
          await settle(rtt);
        }
        const times: number[] = [];
        const traces: Trace[] = [];
        const sum = { pg: 0, redis: 0, pgAfter: 0, redisAfter: 0, sockets: 0 };
        const profiling = first ? await startProfile(c.worker) : null;
        const cpu0 = workerdCpuMs();
        for (let i = 0; i < N; i++) {
          const send = await c.request(next());
          const before = counters();
          stack.endpoint.trace = [];
          upstash.trace = [];
          const started = performance.now();
          const res = await send();
          await res.arrayBuffer();
          const at = performance.now();
          const answered = counters();
          if (res.status !== c.expect) throw new Error(`${c.name}: ${res.status}`);
          times.push(at - started);
          traces.push(traceOf(started, at, stack.endpoint.trace, upstash.trace));
          stack.endpoint.trace = null;
          upstash.trace = null;
          await settle(rtt);
          const after = counters();
          sum.pg += answered.pg - before.pg;
          sum.redis += answered.redis - before.redis;
          sum.pgAfter += after.pg - answered.pg;
          sum.redisAfter += after.redis - answered.redis;
          sum.sockets += after.sockets - before.sockets;
        }
        const cpuMs = workerdCpuMs() - cpu0;
        if (profiling) await profiling(c.name);
        const cpu = cpuMs / N;
        times.sort((a, b) => a - b);
        const p50 = pct(times, 0.5);
        const p99 = pct(times, 0.99);
        const per = (n: number) => Math.round((n / N) * 10) / 10;
        const name = transport === 'http' ? c.name : `${c.name}-websocket`;
        const spent = cpuOf.get(name) ?? { own: 0, bare: 0 };
        cpuOf.set(name, { own: spent.own + cpuMs, bare: spent.bare + bareMs });
        if (!p50s.has(name)) p50s.set(name, new Map());
        p50s.get(name)!.set(rtt, p50);
        tripsAt.set(name, `${fmt(per(sum.pg))} postgres + ${fmt(per(sum.redis))} redis`);
        lines.push(
          `edge ${name}: ${fmt(per(sum.pg))} postgres round trips, ${fmt(per(sum.redis))} redis round trips, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms at ${rtt} ms RTT`,
          `  ${transport}: after the response +${fmt(per(sum.pgAfter))} postgres, +${fmt(per(sum.redisAfter))} redis; ` +
            `${fmt(per(sum.sockets))} connection set-ups; workerd CPU ${cpu.toFixed(2)} ms/request; ` +
            `trace (median ms): ${medianTrace(traces)}`,
        );
        console.log(lines.at(-2));
        console.log(lines.at(-1));
      }
    }
    const lo = Math.min(...RTTS);
    const hi = Math.max(...RTTS);
    for (const c of cases) {
      const name = transport === 'http' ? c.name : `${c.name}-websocket`;
      const at = p50s.get(name)!;
      const slope = (at.get(hi)! - at.get(lo)!) / (hi - lo);
      const verdict = transport === 'http' ? (slope <= c.slope ? 'MET' : 'MISSED') : 'for comparison';
      lines.push(
        `edge ${name}: p50 ${RTTS.map((r) => `${at.get(r)!.toFixed(1)}`).join(' / ')} ms at ${RTTS.join(' / ')} ms RTT; ` +
          `slope ${slope.toFixed(2)} ms per ms of RTT (target <= ${c.slope}): ${verdict}; ${tripsAt.get(name)} round trips before the answer`,
      );
      console.log(lines.at(-1));
    }
    for (const c of cases) {
      const name = transport === 'http' ? c.name : `${c.name}-websocket`;
      const spent = cpuOf.get(name)!;
      lines.push(
        cpuLine(
          name,
          spent.own / (N * RTTS.length),
          spent.bare / (N * RTTS.length),
          transport === 'http' ? CPU_RATIO_TARGETS[c.name] : undefined,
        ),
      );
      console.log(lines.at(-1));
    }
    return lines;
  } finally {
    await direct.end();
    await stack.close();
    await upstash.close();
  }
}

/** One case's profile by package: each package's share of the samples the Worker's thread was busy in. */
function profileLine(label: string, worker: string, profile: Profile): string {
  const { total, byPackage } = samplesByPackage([profile], {
    bundle: join(BUNDLE_DIR, worker, 'index.js'),
    inBundle: (url) => url.endsWith('index.js'),
    outside: "workerd's own (no frame of the bundle)",
    // the isolate waiting between requests is no cost
    keep: (stack) => stack[0]?.functionName !== '(idle)',
    bySamples: true,
  });
  const parts = [...byPackage]
    .filter(([, n]) => n / total >= 0.01)
    .map(([pkg, n]) => `${pkg} ${Math.round((n / total) * 100)}%`)
    .join(', ');
  return `edge profile ${label} (${worker}): ${total} busy samples: ${parts}`;
}

/**
 * Where one request's latency went, from the stand-ins' own clocks (same process as the bench):
 * `before` the first round trip (the request reaching workerd, the front door, the key's HMAC),
 * each round trip begun before the answer (`redis` or `postgres`, with its command), the gap
 * between them (`between`: what the Worker did with one answer before asking the next: for a
 * creation, the body's validation), and `after` the last one (building and sending the answer).
 */
interface Trace {
  /** label -> ms, in order */
  phases: [string, number][];
}

function traceOf(
  started: number,
  answered: number,
  pgTrips: readonly { start: number; end: number; what: string }[] | null,
  redisTrips: readonly { start: number; end: number; what: string }[] | null,
): Trace {
  const trips = [
    ...(pgTrips ?? []).map((t) => ({ ...t, kind: 'postgres' })),
    ...(redisTrips ?? []).map((t) => ({ ...t, kind: 'redis' })),
  ]
    .filter((t) => t.start < answered)
    .sort((a, b) => a.start - b.start);
  const phases: [string, number][] = [];
  let at = started;
  trips.forEach((t, i) => {
    phases.push([i === 0 ? 'before' : 'between', Math.max(0, t.start - at)]);
    // concurrent trips overlap: the later one's own time is what it adds beyond the earlier's end
    phases.push([`${t.kind} [${t.what.toLowerCase()}]`, Math.max(0, t.end - Math.max(t.start, at))]);
    at = Math.max(at, t.end);
  });
  phases.push(['after', Math.max(0, answered - at)]);
  return { phases };
}

/** The median of each phase over the requests whose traces have the same shape (the commonest). */
function medianTrace(traces: Trace[]): string {
  const shape = (t: Trace) => t.phases.map(([l]) => l).join('|');
  const counts = new Map<string, Trace[]>();
  for (const t of traces) counts.set(shape(t), [...(counts.get(shape(t)) ?? []), t]);
  const common = [...counts.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  if (common.length === 0) return '(none)';
  return common[0]!.phases
    .map(([label], i) => {
      const values = common.map((t) => t.phases[i]![1]).sort((a, b) => a - b);
      return `${label} ${pct(values, 0.5).toFixed(1)}`;
    })
    .join(', ');
}

async function main() {
  if (!(await redisReachable()))
    throw new Error('bench:edge needs Redis at 127.0.0.1:6379 (the rate limit is one trip)');
  console.log(
    `edge bench: ${N} requests per case and RTT, warm (after ${WARMUP}), one at a time, at ${RTTS.join(', ')} ms RTT to Postgres and Redis`,
  );
  for (const transport of TRANSPORTS) await runTransport(transport);
}

await main();
