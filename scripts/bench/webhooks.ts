// `npm run bench:webhooks [-- --postgres <url>] [--deliveries 10000] [--subs 100] [--concurrency 64]`
// Webhook delivery benchmark on the embedded dispatcher (the same code the server runs):
//  1. fan-out: one event to 100 subscriptions;
//  2. throughput: --deliveries deliveries (events x subscriptions) to a local HTTPS receiver.
// Prints deliveries per second and p50/p99 latency from the event's commit to its arrival at the
// receiver. PGlite in memory by default; --postgres (or DATABASE_URL) for a real Postgres.

import { parseArgs } from 'node:util';
import { encryptSecret } from '../../shared/crypto';
import { loadConfig } from '../../shared/env';
import { newId } from '../../shared/ids';
import { standaloneLogger } from '../../shared/log/logger';
import { nodeWebhookPort } from '../../shared/webhooks/transport.node.js';
import { createDeliveryWorker } from '../../shared/webhooks/worker';
import { startHttpsReceiver, TLS_CERT_PATH } from '../../test/support/https-receiver';
import { openDatabase } from '../embedded';

const { values } = parseArgs({
  options: {
    postgres: { type: 'string' },
    deliveries: { type: 'string', default: '10000' },
    subs: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '64' },
  },
});
const DELIVERIES = Number(values.deliveries);
const SUBS = Number(values.subs);
const CONCURRENCY = Number(values.concurrency);
const databaseUrl = values.postgres ?? process.env.DATABASE_URL;

process.env.NODE_EXTRA_CA_CERTS = TLS_CERT_PATH; // the receiver's test certificate (read lazily by the transport)
const config = loadConfig({
  APP_ENV: 'development',
  WEBHOOK_SSRF_ALLOW: 'localhost',
  WEBHOOK_RETRY_UNIT_MS: '1000',
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
});

const rx = await startHttpsReceiver();
const handle = await openDatabase(config, true);
const db = handle.db;
const worker = createDeliveryWorker(
  { db, config, port: nodeWebhookPort(), logger: standaloneLogger },
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

async function emit(count: number) {
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
  worker.kick();
}

async function run(label: string, events: number) {
  const before = rx.requests.length;
  const started = Date.now();
  await emit(events);
  await worker.settle({ timeoutMs: 600_000 });
  const got = rx.requests.slice(before);
  const ended = Math.max(...got.map((r) => r.receivedAt));
  const latencies = got
    .map((r) => r.receivedAt - Date.parse(JSON.parse(r.body).timestamp))
    .sort((a, b) => a - b);
  const failed = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('status', '!=', 'delivered')
    .executeTakeFirstOrThrow();
  const seconds = (ended - started) / 1000;
  console.log(
    `${label.padEnd(44)} ${String(got.length).padStart(6)} deliveries  ${(got.length / seconds).toFixed(0).padStart(6)}/s  ` +
      `p50 ${pct(latencies, 50)} ms  p99 ${pct(latencies, 99)} ms  max ${latencies.at(-1)} ms  not delivered: ${failed.n}`,
  );
}

worker.start();
console.log(
  `webhooks benchmark on ${databaseUrl ? 'Postgres' : 'PGlite (in memory)'}; ${SUBS} subscriptions; worker concurrency ${CONCURRENCY}; receiver https://localhost:${rx.port}`,
);
await run(`fan-out: 1 event -> ${SUBS} subscriptions`, 1);
await run(
  `throughput: ${Math.ceil(DELIVERIES / SUBS)} events x ${SUBS} subscriptions`,
  Math.ceil(DELIVERIES / SUBS),
);
await worker.stop();
await rx.close();
if (databaseUrl) {
  // leave the shared database as found: drop this run's rows
  await db.deleteFrom('tenants').where('id', '=', tenantId).execute();
}
await handle.close();
