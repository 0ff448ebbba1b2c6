// `npm run bench:webhooks [-- --postgres <url>] [--deliveries 10000] [--subs 100] [--concurrency 64]`
// Webhook delivery benchmark on the embedded dispatcher (the same code the server runs):
//  1. fan-out: one event to --subs subscriptions;
//  2. throughput: --deliveries deliveries (events x subscriptions) to a local HTTPS receiver;
//  3. its ceiling: a raw loop of signed HTTPS POSTs (node:https, keep-alive, HMAC) to the same
//     receiver, as many, at the same concurrency, right after (2): the ratio is (2)/(3);
//  4. on Postgres only: the throughput run again with the dispatcher in 1, then 2 child processes
//     (each a worker of --concurrency on the same database, no kick: they find the events by polling),
//     once as fast as the receiver answers (bound by the machine's cores) and once with a receiver
//     that takes 100 ms per request (bound by each process's slots, as with real receivers).
// Prints deliveries per second and p50/p99 latency from the event's commit to its arrival at the
// receiver, and how many of the machine's cores were busy meanwhile (all processes: a second worker
// process can only add what the first left idle). PGlite in memory by default; --postgres (or
// DATABASE_URL) for a real Postgres.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { encryptSecret } from '../../shared/crypto';
import { loadConfig } from '../../shared/env';
import { newId } from '../../shared/ids';
import { standaloneLogger } from '../../shared/log/logger';
import { outstandingWork } from '../../shared/webhooks/delivery';
import { WebhookHeader } from '../../shared/webhooks/signing';
import { nodeWebhookPort } from '../../shared/webhooks/transport.node.js';
import { createDeliveryWorker } from '../../shared/webhooks/worker';
import { openDatabase } from '../embedded';
import { startHttpsReceiver, TLS_CERT_PATH } from '../lib/https-receiver';

const { values } = parseArgs({
  options: {
    postgres: { type: 'string' },
    deliveries: { type: 'string', default: '10000' },
    subs: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '64' },
    /** internal: run only a delivery worker until SIGTERM (the multi-process case) */
    child: { type: 'boolean', default: false },
  },
});
const DELIVERIES = Number(values.deliveries);
const SUBS = Number(values.subs);
const CONCURRENCY = Number(values.concurrency);
const databaseUrl = values.postgres ?? process.env.DATABASE_URL;
/** How long the receiver takes to answer in the latency-bound two-process comparison. */
const RECEIVER_MS = 100;

process.env.NODE_EXTRA_CA_CERTS = TLS_CERT_PATH; // the receiver's test certificate (read lazily by the transport)
const config = loadConfig({
  APP_ENV: 'development',
  WEBHOOK_SSRF_ALLOW: 'localhost',
  WEBHOOK_RETRY_UNIT_MS: '1000',
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
});

/** The machine's CPU ticks so far, busy and in all (Linux /proc/stat; null elsewhere). */
function machineTicks(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n', 1)[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
    return {
      busy: user + nice + system + irq + softirq,
      total: user + nice + system + idle + iowait + irq + softirq + steal,
    };
  } catch {
    return null;
  }
}

/** How many cores of the machine were busy between two readings, e.g. `1.93 of 2 cores busy`. */
function coresBusy(from: ReturnType<typeof machineTicks>, to: ReturnType<typeof machineTicks>): string {
  if (!from || !to || to.total === from.total) return '';
  const cores = cpus().length;
  return `  ${(((to.busy - from.busy) / (to.total - from.total)) * cores).toFixed(2)} of ${cores} cores busy`;
}

if (values.child) {
  const handle = await openDatabase(config, false);
  const worker = createDeliveryWorker(
    { db: handle.db, config, port: nodeWebhookPort(), logger: standaloneLogger },
    { concurrency: CONCURRENCY },
  );
  worker.start();
  process.send?.('ready');
  process.once('SIGTERM', async () => {
    await worker.stop();
    await handle.close();
    process.exit(0);
  });
} else {
  await main();
}

async function main() {
  const rx = await startHttpsReceiver({ slowMs: RECEIVER_MS });
  const handle = await openDatabase(config, true);
  const db = handle.db;
  // statements the worker sends, counted on its own Kysely instance: a figure machine noise cannot move
  let statements = 0;
  const counted = db.withPlugin({
    // once per statement executed (transformQuery also runs for every subquery builder)
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      statements++;
      return args.result;
    },
  });
  const worker = createDeliveryWorker(
    { db: counted, config, port: nodeWebhookPort(), logger: standaloneLogger },
    { concurrency: CONCURRENCY },
  );

  const tenantId = newId('tenant');
  await db
    .insertInto('tenants')
    .values({ id: tenantId, name: 'bench', plan: 'enterprise', environment: 'production' })
    .execute();
  const sealed = await encryptSecret(config.WEBHOOK_ENCRYPTION_KEY, 'whsec_bench_secret');
  const created = new Date(Date.now() - 60_000);
  await db
    .insertInto('webhooks')
    .values(
      Array.from({ length: SUBS }, (_, i) => ({
        id: newId('webhook'),
        tenant_id: tenantId,
        url: rx.url(`/bench/${i}`),
        events: ['*'],
        secret_encrypted: sealed,
        created_at: created,
      })),
    )
    .execute();

  const pct = (sorted: number[], p: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

  async function emit(count: number, kick: boolean) {
    const rows = Array.from({ length: count }, (_, i) => ({
      id: newId('event'),
      tenant_id: tenantId,
      event_type: 'ticket.created',
      payload: JSON.stringify({
        ticket: { id: `tkt_${i}`, subject: 'bench', status: 'open', priority: 'low' },
      }),
    }));
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto('events')
        .values(rows.slice(i, i + 500))
        .execute();
    if (kick) worker.kick();
  }

  /** Waits until the receiver has `expected` more requests and nothing is outstanding in the database. */
  async function arrived(before: number, expected: number) {
    const deadline = Date.now() + 600_000;
    while (Date.now() < deadline) {
      if (rx.requests.length - before >= expected) {
        const work = await outstandingWork(db);
        if (work.events === 0 && work.pending === 0) return;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('deliveries did not arrive');
  }

  const line = (label: string, count: number, perSecond: number, rest: string) =>
    console.log(
      `${label.padEnd(48)} ${String(count).padStart(6)} deliveries  ${perSecond.toFixed(0).padStart(6)}/s  ${rest}`,
    );

  /** Emits `events` events and reports their deliveries; `inProcess`: this process's worker sends them. */
  async function run(label: string, events: number, inProcess: boolean): Promise<number> {
    const before = rx.requests.length;
    const statementsBefore = statements;
    const ticksBefore = machineTicks();
    const started = Date.now();
    await emit(events, inProcess);
    if (inProcess) await worker.settle({ timeoutMs: 600_000 });
    else await arrived(before, events * SUBS);
    const ticksAfter = machineTicks();
    const got = rx.requests.slice(before);
    const arrivals = got.map((r) => r.receivedAt);
    // child processes find the events by polling: their rate is timed from the first arrival
    const from = inProcess ? started : Math.min(...arrivals);
    const seconds = (Math.max(...arrivals) - from) / 1000;
    const latencies = got
      .map((r) => r.receivedAt - Date.parse(JSON.parse(r.body).timestamp))
      .sort((a, b) => a - b);
    const failed = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('status', '!=', 'delivered')
      .executeTakeFirstOrThrow();
    const rate = got.length / seconds;
    // deliveries the receiver got more than once, from one process or two (every answer a timely 200: none)
    const repeated =
      got.length - new Set(got.map((r) => r.headers[WebhookHeader.deliveryId.toLowerCase()])).size;
    line(
      label,
      got.length,
      rate,
      `p50 ${pct(latencies, 50)} ms  p99 ${pct(latencies, 99)} ms  max ${latencies.at(-1)} ms  not delivered: ${failed.n}  sent twice: ${repeated}` +
        (inProcess
          ? `  statements/delivery ${((statements - statementsBefore) / got.length).toFixed(3)}`
          : '') +
        coresBusy(ticksBefore, ticksAfter),
    );
    return rate;
  }

  /** The ceiling: `count` signed HTTPS POSTs, `CONCURRENCY` in flight, nothing else. */
  async function rawCeiling(count: number): Promise<number> {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 256, ca: readFileSync(TLS_CERT_PATH) });
    const url = new URL(rx.url('/raw'));
    const before = rx.requests.length;
    let next = 0;
    const post = () =>
      new Promise<void>((resolve, reject) => {
        const timestamp = new Date().toISOString();
        const body = JSON.stringify({
          event_type: 'ticket.created',
          timestamp,
          data: { ticket: { id: `tkt_${next}`, subject: 'bench', status: 'open', priority: 'low' } },
        });
        const signature = createHmac('sha256', 'whsec_bench_secret')
          .update(`${timestamp}.${body}`)
          .digest('hex');
        const req = https.request(
          url,
          {
            method: 'POST',
            agent,
            headers: {
              'Content-Type': 'application/json',
              'Content-Length': String(Buffer.byteLength(body)),
              [WebhookHeader.event]: 'ticket.created',
              [WebhookHeader.timestamp]: timestamp,
              [WebhookHeader.signature]: signature,
              [WebhookHeader.deliveryId]: `dlv_raw_${next}`,
            },
          },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const ticksBefore = machineTicks();
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < count) {
          next++;
          await post();
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    agent.destroy();
    const got = rx.requests.length - before;
    line(
      `ceiling: raw signed HTTPS POSTs, ${CONCURRENCY} in flight`,
      got,
      got / seconds,
      coresBusy(ticksBefore, machineTicks()).trimStart(),
    );
    return got / seconds;
  }

  async function children(n: number): Promise<ChildProcess[]> {
    const procs = Array.from({ length: n }, () =>
      spawn(
        process.execPath,
        ['--import', 'tsx', 'scripts/bench/webhooks.ts', '--child', '--concurrency', String(CONCURRENCY)],
        {
          env: { ...process.env, DATABASE_URL: databaseUrl },
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        },
      ),
    );
    await Promise.all(procs.map((p) => new Promise((r) => p.once('message', r))));
    return procs;
  }
  const stopAll = (procs: ChildProcess[]) =>
    Promise.all(
      procs.map(
        (p) =>
          new Promise((r) => {
            p.once('exit', r);
            p.kill('SIGTERM');
          }),
      ),
    );

  worker.start();
  console.log(
    `webhooks benchmark, ${new Date().toISOString()}, on ${databaseUrl ? 'Postgres' : 'PGlite (in memory)'}; ${SUBS} subscriptions; worker concurrency ${CONCURRENCY}; receiver https://localhost:${rx.port}`,
  );
  const events = Math.ceil(DELIVERIES / SUBS);
  // the first fan-out opens the connections; the second is measured as a steady server sees it
  await run(`fan-out (cold connections): 1 event -> ${SUBS} subs`, 1, true);
  await run(`fan-out: 1 event -> ${SUBS} subscriptions`, 1, true);
  const rate = await run(`throughput: ${events} events x ${SUBS} subscriptions`, events, true);
  const ceiling = await rawCeiling(events * SUBS);
  const verdict = (met: boolean) => (met ? 'MET' : 'MISSED');
  console.log(
    `throughput / raw ceiling = ${(rate / ceiling).toFixed(2)}  target >= 0.60  ${verdict(rate / ceiling >= 0.6)}`,
  );
  await worker.stop();

  if (databaseUrl) {
    /** The throughput run with the dispatcher in 1, then 2 child processes: their ratio. */
    const scaling = async (label: string) => {
      const rates: number[] = [];
      for (const n of [1, 2]) {
        const procs = await children(n);
        try {
          rates.push(await run(`${label}, ${n} worker process(es)`, events, false));
        } finally {
          await stopAll(procs);
        }
      }
      return rates[1]! / rates[0]!;
    };
    // As fast as the receiver answers: bound by the machine's cores, which one process already
    // mostly fills on a small machine.
    const cpuBound = await scaling('throughput');
    console.log(`2 processes / 1 process = ${cpuBound.toFixed(2)}`);
    // Receivers that take RECEIVER_MS to answer, as real ones do: a process's rate is then bound
    // by its slots (concurrency / latency), not by the cores, so this shows whether the lease
    // design lets a second process add its slots without the two getting in each other's way.
    for (let i = 0; i < SUBS; i++) rx.plan(`/bench/${i}`, [], 'slow');
    const slotBound = await scaling(`receiver taking ${RECEIVER_MS} ms`);
    console.log(
      `2 processes / 1 process, receiver taking ${RECEIVER_MS} ms = ${slotBound.toFixed(2)}  target close to 2 (>= 1.80)  ${verdict(slotBound >= 1.8)}`,
    );
  }
  await rx.close();
  if (databaseUrl) {
    // leave the shared database as found: drop this run's rows
    await db.deleteFrom('tenants').where('id', '=', tenantId).execute();
  }
  await handle.close();
}
