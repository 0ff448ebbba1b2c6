/**
 * A real crash: a child process runs the embedded dispatcher on a Postgres database and is killed
 * with SIGKILL while attempts are in flight and retries are scheduled. A new process on the same
 * database finishes everything. Postgres only (PGlite cannot be shared between processes).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedRuntime, type EmbeddedRuntime } from '../../scripts/embedded';
import {
  type HttpsReceiver,
  startHttpsReceiver,
  TLS_CERT_PATH,
  trustTestCertificate,
} from '../../scripts/lib/https-receiver';
import { encryptSecret } from '../../shared/crypto';
import { createPostgresHandle } from '../../shared/db/adapters/pg';
import type { DatabaseHandle } from '../../shared/db/handle';
import { loadConfig } from '../../shared/env';
import { emitEvent } from '../../shared/events/emit';
import { newId } from '../../shared/ids';
import { servedTicket } from '../support/events';
import { TEST_DB, TEST_SECRETS } from '../support/harness';
import { createTestDatabase } from '../support/pg';

trustTestCertificate();
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const skip = TEST_DB !== 'postgres' || process.env.TEST_POSTGRES_UNAVAILABLE === '1';

describe.skipIf(skip)('a dispatcher process killed mid-schedule', { timeout: 120_000 }, () => {
  let rx: HttpsReceiver;
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  let url: string;
  let child: ChildProcess | null = null;
  let resumed: EmbeddedRuntime | null = null;
  const env = {
    APP_ENV: 'test',
    ...TEST_SECRETS,
    WEBHOOK_SSRF_ALLOW: 'localhost',
    WEBHOOK_RETRY_UNIT_MS: '100',
    WEBHOOK_TIMEOUT_MS: '1000',
  };

  beforeAll(async () => {
    rx = await startHttpsReceiver();
    const db = await createTestDatabase(process.env.TEST_POSTGRES_TEMPLATE!);
    url = db.url;
    drop = db.drop;
    handle = createPostgresHandle(url, { max: 5 });
  }, 120_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await resumed?.close();
    await handle?.close();
    await drop?.();
    await rx?.close();
  }, 60_000);

  it('resumes after restart: every delivery completes; only attempts in flight at the kill are sent again', async () => {
    const config = loadConfig(env);
    const tenantId = newId('tenant');
    await handle.db
      .insertInto('tenants')
      .values({ id: tenantId, name: 'kill', plan: 'pro', environment: 'production' })
      .execute();
    const sealed = await encryptSecret(config.WEBHOOK_ENCRYPTION_KEY, 'whsec_kill');
    const created = new Date(Date.now() - 60_000);
    for (const path of ['/hang', '/flaky', '/ok']) {
      await handle.db
        .insertInto('webhooks')
        .values({
          id: newId('webhook'),
          tenant_id: tenantId,
          url: rx.url(path),
          events: ['*'],
          secret_encrypted: sealed,
          created_at: created,
        })
        .execute();
    }
    rx.plan('/hang', ['timeout', 'timeout', 'timeout', 'timeout'], 'success');
    // two failures per delivery: a shared queue of 20 let one delivery draw five under load and give up
    rx.planEach('/flaky', ['fail', 'fail'], 'success');
    for (let i = 0; i < 10; i++)
      await emitEvent(handle.db, tenantId, 'ticket.created', {
        ticket: servedTicket(`tkt_${i}`, { subject: 's', priority: 'low' }),
      });

    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { createEmbeddedRuntime } from './scripts/embedded.ts';
         import { loadConfig } from './shared/env.ts';
         await createEmbeddedRuntime({ config: loadConfig(process.env) });
         console.log('ready');
         setInterval(() => {}, 1000);`,
      ],
      {
        cwd: ROOT,
        env: { ...process.env, ...env, DATABASE_URL: url, NODE_EXTRA_CA_CERTS: TLS_CERT_PATH },
        stdio: 'pipe',
      },
    );
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += String(d);
    });
    // kill it while 4 attempts hang in flight and /flaky retries are on the schedule (at-least-once:
    // an attempt sent but not recorded when the process dies is sent again, same delivery id)
    for (;;) {
      if (rx.received('/hang').length >= 4 && rx.received('/flaky').length >= 10) break;
      if (child.exitCode !== null) throw new Error(`child exited early: ${stderr}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    const killedAt = Date.now();
    const before = await handle.db.selectFrom('webhook_deliveries').select(['status']).execute();
    expect(before.some((r) => r.status === 'pending')).toBe(true);

    resumed = await createEmbeddedRuntime({ config, handle });
    await resumed.webhooks.settle({ timeoutMs: 90_000 });

    const rows = await handle.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'status', 'attempts', 'webhook_id'])
      .execute();
    expect(rows).toHaveLength(30);
    expect(rows.filter((r) => r.status !== 'delivered')).toEqual([]);
    const hanging = new Set(
      rx
        .received('/hang')
        .filter((q) => q.answered === 'timeout')
        .map((q) => q.headers['x-webhook-delivery-id']),
    );
    expect(hanging.size).toBe(4);
    for (const r of rows) {
      const sent = rx.requests.filter((q) => q.headers['x-webhook-delivery-id'] === r.id);
      const extra = sent.length - r.attempts;
      // recorded attempts, plus at most the one attempt that was in flight when the process died
      expect(extra, r.id).toBeGreaterThanOrEqual(0);
      expect(extra, r.id).toBeLessThanOrEqual(1);
      if (extra === 1) expect(sent.some((q) => q.receivedAt <= killedAt)).toBe(true);
      // the attempts hanging at the kill were lost with the process and sent again
      if (hanging.has(r.id)) expect(extra).toBe(1);
    }
    for (const path of ['/hang', '/flaky', '/ok']) {
      const ok = rx.received(path).filter((q) => q.answered === 'success');
      expect(new Set(ok.map((q) => JSON.parse(q.body).data.ticket.id)).size, path).toBe(10);
    }
    // the hanging attempts were taken again after the restart
    const retaken = rx
      .received('/hang')
      .filter((q) => q.receivedAt > killedAt && hanging.has(q.headers['x-webhook-delivery-id']));
    expect(retaken).toHaveLength(4);
  });
});
